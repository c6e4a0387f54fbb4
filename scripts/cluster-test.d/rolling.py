"""A rolling restart behind nginx (issue 27, part 2): every replica is stopped with SIGTERM and started
again, one after another, while clients of nginx search, write and follow /events. A replica told to
stop reports not ready for `shutdown.notReadyDelay`, finishes what it has, then closes its streams;
nginx passes refused and failed requests to another replica. No request may fail, and no SSE client
may lose or repeat an event."""
import threading
import time

from cluster import (acknowledged, converge, new_replica, report, require_change_log_without_gap,
                     require_changes_reached_every_client, require_writes_on_every_replica, start_clients,
                     start_writers)
from harness import RequestLoop, load_average
from proxy import Proxy

# What a replica of this part is started with: a short not-ready step, as compose.yaml's but quicker.
SETTINGS = {"shutdown.notReadyDelay": 0.5}
SEARCHES = ["/search?q=par", "/search?q=sao%20pa", "/search?q=clustertown", "/search?q=lon&limit=3",
            "/documents/2988507", "/search?q=berl&country=DE"]


def run(args, binary, work, pg):
    report.section("-- rolling restart: every replica in turn behind nginx, under search, write and SSE load")
    replicas = [new_replica(binary, pg.url, work, f"roll{i}", settings=SETTINGS).start() for i in range(3)]
    proxy = None
    done, stop = threading.Event(), threading.Event()
    try:
        proxy = Proxy(work, replicas)
        clients = start_clients(args.clients, [proxy], done, first=500)
        writers = start_writers(args.writers, [proxy], stop, first=500, pause=0.01)
        searchers = [RequestLoop(proxy.port, paths=SEARCHES[i:] + SEARCHES[:i], stop=stop, pause=0.005) for i in range(2)]
        for searcher in searchers:
            searcher.start()
        for round_number in range(args.rolling_rounds):
            for replica in replicas:
                time.sleep(1.0)  # steady load between restarts
                stopping = time.monotonic()
                code = replica.stop()
                stopped = time.monotonic()
                replica.start()
                report.say(f"{replica.name}: SIGTERM → exit {code} in {stopped - stopping:.2f} s, ready again "
                           f"{time.monotonic() - stopped:.2f} s later (load average {load_average()})")
                report.require(f"{replica.name} exits 0 after SIGTERM (round {round_number + 1})", code == 0, f"exit {code}")
        time.sleep(1.0)
        stop.set()
        for thread in writers + searchers:
            thread.join(30)
        head = pg.head()
        converge(replicas, clients, head, done)

        acked, refused, unknown = acknowledged(writers)
        searches = {}
        for searcher in searchers:
            for status, count in searcher.statuses.items():
                searches[status] = searches.get(status, 0) + count
        failed_searches = sum(count for status, count in searches.items() if status != 200)
        reconnects = sum(c.reconnects for c in clients)
        report.say(f"through nginx: {sum(searches.values())} searches and reads {searches}, {len(acked) + sum(refused.values()) + unknown} "
                   f"writes ({len(acked)} × 204, refused {refused}, {unknown} failed), {len(clients)} SSE clients "
                   f"reconnected {reconnects} times; head {head}")
        report.require("no failed request: every search and read 200, every write 204",
                       failed_searches == 0 and not refused and unknown == 0,
                       f"searches {searches}, writes refused {refused}, {unknown} writes failed"
                       + (f"; first errors {[f for s in searchers for f in s.failures][:3]}" if failed_searches else ""))
        require_changes_reached_every_client(clients, acked, head)
        require_writes_on_every_replica(replicas, writers, acked, head)
        require_change_log_without_gap(pg, acked, head)
    finally:
        done.set()
        stop.set()
        if proxy is not None:
            proxy.stop()
        for replica in replicas:
            replica.stop(timeout=15)
