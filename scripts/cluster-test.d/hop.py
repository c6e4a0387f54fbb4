"""Resume on a replica that has just (re)started (issue 27, part 1): while writers write, one replica
is stopped (SIGTERM, then kill -9, in turns) and started again, and every SSE client leaves the
replica it is on for the restarted one the moment that one accepts a connection, resuming with its
Last-Event-ID. Every client must get every change once, with consecutive ids and no `reset`; a resume
the replica cannot serve yet may be held or refused with 503 before anything is sent, never reset."""
import socket
import threading
import time

from cluster import (READY_SECONDS, acknowledged, converge, new_replica, report,
                     require_change_log_without_gap, require_changes_reached_every_client,
                     require_writes_on_every_replica, start_clients, start_writers)
from harness import load_average, wait_until

# Longest a client may take to hop: from the restarted replica accepting to the client's 200 there.
HOP_SECONDS = 1.0


def accepts(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def run(args, binary, work, pg):
    report.section("-- hop: SSE clients resume on a replica within a second of its restart")
    replicas = [new_replica(binary, pg.url, work, f"hop{i}").start() for i in range(3)]
    done, stop = threading.Event(), threading.Event()
    try:
        clients = start_clients(args.clients, replicas, done, first=400)
        writers = start_writers(args.writers, replicas, stop, first=400, pause=0.01)
        waits = []
        for round_number in range(args.hop_rounds):
            time.sleep(1.5)  # changes flow meanwhile
            victim = replicas[round_number % len(replicas)]
            how = "SIGTERM" if round_number % 2 == 0 else "kill -9"
            if how == "SIGTERM":
                code = victim.stop()
                report.require(f"{victim.name} exits 0 after SIGTERM", code == 0, f"exit {code}")
            else:
                victim.kill9()
            victim.start(wait=False)
            if not wait_until(lambda: accepts(victim.port), timeout=READY_SECONDS, interval=0.005):
                report.require(f"{victim.name} accepts connections again", False)
                break
            accepted = time.monotonic()
            hopped_before = [len(c.hops) for c in clients]
            for client in clients:
                client.hop_to(victim)
            wait_until(lambda: all(len(c.hops) > n for c, n in zip(clients, hopped_before)), timeout=10, interval=0.005)
            delays = [time.monotonic() - accepted if len(c.hops) == n else c.hops[-1][1]
                      for c, n in zip(clients, hopped_before)]
            waits += delays
            report.say(f"round {round_number + 1}: {how} {victim.name}, started again in {accepted - victim.started:.2f} s; "
                       f"{len(clients)} clients resumed there {min(delays) * 1000:.0f}-{max(delays) * 1000:.0f} ms after "
                       f"it accepted (load average {load_average()})")
        time.sleep(1)
        stop.set()
        for writer in writers:
            writer.join(30)
        head = pg.head()
        converge(replicas, clients, head, done)
        acked, refused, unknown = acknowledged(writers)
        refusals = sum(c.refusals for c in clients)
        report.say(f"writes: {len(acked)} acknowledged, {unknown} cut off by a stopped replica, refused {refused}; "
                   f"resumes refused with 503 before any byte: {refusals}; head {head}")
        report.require(f"every client resumed on the restarted replica within {HOP_SECONDS:.0f} s of it accepting, "
                       f"every round", waits and max(waits) <= HOP_SECONDS,
                       f"{len(waits)} hops, slowest {max(waits) * 1000:.0f} ms" if waits else "no hop")
        require_changes_reached_every_client(clients, acked, head)
        require_writes_on_every_replica(replicas, writers, acked, head)
        require_change_log_without_gap(pg, acked, head)
    finally:
        done.set()
        stop.set()
        for replica in replicas:
            replica.stop(timeout=15)
