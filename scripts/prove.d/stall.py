#!/usr/bin/env python3
"""Part 10, a stalled process: SIGSTOP for 5 s, then SIGCONT, under load and with open streams.

The server (`sse.heartbeatInterval` 1 s, `http.headerTimeout` 2 s) has 40 `/events` streams and
4 `/search/live` streams open, a search client and a writer running, and one slowloris
connection that has sent half a head. It is stopped for 5 s and continued. Then: it is still
up; every stream is still open and its heartbeats resume within 2 s; every byte each stream
received parses as whole events (none is left half-written); the requests sent during the stall
are answered (200/204) once it continues; the slowloris connection gets its 408 (timeouts
resume); connections return to their baseline; SIGTERM exits 0. Short: one stall; long: three.
"""
import os
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import Server, arguments  # noqa: E402
from harness import Report, RequestLoop, SSEReader, Writer, get  # noqa: E402

STALL_SECONDS = 5


def main():
    args = arguments(__doc__)
    report = Report(f"stalled process ({args.mode})")
    rounds = 1 if args.mode == "short" else 3
    server = Server(args.binary, settings={"sse.heartbeatInterval": 1, "http.headerTimeout": 2}).start()
    try:
        baseline = server.baseline()
        # Each stream keeps every byte with its arrival time.
        streams = [SSEReader(server.port, "/events", silence=60) for _ in range(40)]
        streams += [SSEReader(server.port, f"/search/live?q={q}", silence=60) for q in ["stock", "oslo", "paris", "rome"]]
        for s in streams:
            s.start()
        # Searches and writes one after another, each answer's status recorded with when it was sent.
        loads = [RequestLoop(server.port, paths=["/search?q=stock", "/search?q=par", "/search?q=osl"], pause=0.02, timeout=30),
                 Writer(server.port, prefix="stall", ids=10, title="Stall", country="SE", pause=0.02, timeout=30)]
        for load in loads:
            load.start()
        time.sleep(2)
        for round_number in range(1, rounds + 1):
            slowloris = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            slowloris.sendall(b"GET /search?q=a HTTP/1.1\r\nHost: prove\r\n")
            server.send_signal(signal.SIGSTOP)
            stopped = time.monotonic()
            time.sleep(STALL_SECONDS)
            server.send_signal(signal.SIGCONT)
            continued = time.monotonic()
            time.sleep(3)
            resumed = [s.first_data_after(continued) for s in streams]
            delays = [t - continued for t in resumed if t is not None]
            open_streams = sum(1 for s in streams if s.ended is None)
            report.figure(f"round {round_number}: stopped {STALL_SECONDS} s; streams open {open_streams}/{len(streams)}; "
                          f"first bytes after SIGCONT: {len(delays)}/{len(streams)} streams, "
                          f"max {max(delays or [float('nan')]):.2f} s")
            report.require("still up after SIGSTOP/SIGCONT", server.alive())
            report.require("every stream still open, its heartbeats resumed within 2 s",
                           open_streams == len(streams) and len(delays) == len(streams) and max(delays) < 2,
                           f"{open_streams} open, {len(delays)} resumed")
            slowloris.settimeout(10)
            try:
                reply = slowloris.recv(4096)
            except OSError:
                reply = b""
            slowloris.close()
            report.require("the half-sent head gets its 408 once the process continues (timeouts resume)",
                           reply.startswith(b"HTTP/1.1 408"), reply[:40].decode(errors="replace"))
            during = [(a.sent, a.answered, a.status) for load in loads for a in load.answers if stopped <= a.sent <= continued]
            statuses = sorted({status for _, _, status in during})
            waited = max((d - continued for _, d, _ in during), default=0)
            report.figure(f"requests sent during the stall: {len(during)}, statuses {statuses}, last answered {waited:.2f} s after SIGCONT")
            report.require("requests sent during the stall are answered once it continues", statuses in ([200], [204], [200, 204])
                           and not any(load.failures for load in loads), f"failures {[l.failures[:2] for l in loads]}")
        for load in loads:
            load.stop.set()
            load.join()
        halves = [s for s in streams if not s.whole_events()]
        if halves:  # an event may be arriving right now: look again once it has
            time.sleep(0.5)
            halves = [s for s in halves if not s.whole_events()]
        report.require("no stream is left half-written (every stream's bytes end on an event boundary)", not halves,
                       f"{len(halves)} streams end mid-event")
        for s in streams:
            s.close()
        waited, counts = server.wait_for_connections(baseline, timeout=15)
        report.require("connections and descriptors return to the baseline", waited is not None, f"{counts} vs {baseline}")
        status = get(server.port, "/search?q=stockholm")[0]
        report.require("serves normally afterwards", status == 200, f"{status}")
    finally:
        server.stop_and_require_clean_exit(report)
    report.finish()


if __name__ == "__main__":
    main()
