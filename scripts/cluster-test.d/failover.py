"""Losing the primary (issue 27, part 3): a primary with a synchronous standby (pg_basebackup -R,
synchronous_standby_names), three replicas given both servers (target_session_attrs=read-write),
writers and SSE clients; under the write storm the primary is killed (kill -9 of every one of its
processes) and the standby promoted (pg_ctl promote). The replicas must find the new primary by
themselves, every 204 must be in its log as acknowledged, the log must have no gap, and every SSE
client must get every change once with consecutive ids and no reset."""
import threading
import time

from cluster import (Postgres, acknowledged, converge, new_replica, report, require_change_log_without_gap,
                     require_changes_reached_every_client, require_writes_on_every_replica, start_clients,
                     start_writers)
from harness import load_average, wait_until

# How long after the kill the standby is promoted (a failover manager notices the loss first).
PROMOTE_AFTER = 0.5


def run(args, binary, work):
    report.section("-- failover: kill -9 of the primary under a write storm, its synchronous standby promoted")
    primary = Postgres(work, "pg-primary")
    standby = None
    replicas = []
    done, stop = threading.Event(), threading.Event()
    try:
        standby = Postgres(work, "pg-standby", primary=primary)
        primary.sql("ALTER SYSTEM SET synchronous_standby_names = 'standby'")
        primary.sql("SELECT pg_reload_conf()")
        synchronous = wait_until(lambda: primary.sql("SELECT sync_state FROM pg_stat_replication") == "sync", timeout=30)
        report.require("the standby streams synchronously", synchronous,
                       primary.sql("SELECT application_name, state, sync_state FROM pg_stat_replication"))
        url = (f"postgres://signalbox@{primary.host},{standby.host}/signalbox"
               "?sslmode=disable&target_session_attrs=read-write&connect_timeout=2")
        replicas = [new_replica(binary, url, work, f"fail{i}").start() for i in range(3)]
        clients = start_clients(args.clients, replicas, done, first=600)
        writers = start_writers(args.writers, replicas, stop, first=600)
        started = time.monotonic()
        time.sleep(args.failover_seconds * 0.4)
        before = primary.head()
        killed = time.monotonic()
        primary.kill9()
        report.say(f"{killed - started:5.1f} s: kill -9 of the primary (head {before}, load average {load_average()})")
        time.sleep(PROMOTE_AFTER)
        standby.promote()
        promoted = time.monotonic()
        report.say(f"{promoted - started:5.1f} s: standby promoted")
        time.sleep(max(0, started + args.failover_seconds - time.monotonic()))
        stop.set()
        for writer in writers:
            writer.join(30)
        head = standby.head()
        converge(replicas, clients, head, done)

        acked, refused, unknown = acknowledged(writers)
        after = sorted(a.answered for w in writers for a in w.answers if a.status == 204 and a.sent > killed)
        first = after[0] - killed if after else float("nan")
        report.say(f"writes: {len(acked)} acknowledged, refused {refused}, {unknown} cut off; head {head}; "
                   f"first 204 of a write sent after the kill: {first:.2f} s after it ({first - PROMOTE_AFTER:.2f} s after "
                   f"the promotion was asked for)")
        stored = {}  # seq → "id|deleted"
        for line in standby.sql("SELECT seq, id, body IS NULL FROM signalbox_change").splitlines():
            seq, rest = line.split("|", 1)
            stored[int(seq)] = rest
        lost = [seq for seq, (method, doc_id) in acked.items()
                if stored.get(seq) != f"{doc_id}|{'t' if method == 'DELETE' else 'f'}"]
        report.require("every 204 is in the new primary's log, as acknowledged", not lost and after,
                       f"{len(lost)} of {len(acked)} missing or different: {lost[:5]}" if lost else
                       ("no write succeeded after the kill" if not after else f"{len(acked)} changes"))
        rewinds = [r.metric("signalbox_replication_rewinds_total") or 0 for r in replicas]
        report.require("no replica had served a change the new primary lacks (none went back)", not any(rewinds), str(rewinds))
        require_change_log_without_gap(standby, acked, head)
        require_writes_on_every_replica(replicas, writers, acked, head)
        require_changes_reached_every_client(clients, acked, head)
    finally:
        done.set()
        stop.set()
        for replica in replicas:
            replica.stop(timeout=15)
        primary.stop()
        if standby is not None:
            standby.stop()
