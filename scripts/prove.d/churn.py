#!/usr/bin/env python3
"""Part 11, connection churn: thousands of connections opened, half-written and reset while
responses and event streams are being written, and while the server shuts down.

The hunt for the overload SIGSEGV: the server (`http.maxConnections` 256, so some connections
take the 503 path, `sse.heartbeatInterval` 0.2 s) gets a writer (a PUT every 20 ms, so every
`/events` stream is being written to) and 8 churning threads. Each churner loops over: connect
and reset at once; send half a head and reset; send half a body and reset; ask for a large
search answer and reset after its first bytes; open `/events` or `/search/live` and reset after
the first event; pipeline three requests and reset. Resets are real RSTs (`SO_LINGER` 0).
Then: still up, connections back to the baseline. Last, churn again and send SIGTERM in the middle
of it: the server must exit 0 within its grace period. Any sanitizer report in the server's log
fails the part (run it against `-sanitize=address` / `-sanitize=thread` builds: see
`scripts/prove-sanitizers`). Short: 15 s of churn; long: 120 s.
"""
import os
import random
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import Server, arguments  # noqa: E402
from harness import API_KEY, Report, Writer, get  # noqa: E402


def reset(sock):
    """Closes with an RST instead of a FIN."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


def read_some(sock, count=1):
    try:
        sock.recv(count)
    except OSError:
        pass


ACTIONS = [
    ("reset at once", lambda s: None),
    ("half a head", lambda s: s.sendall(b"GET /search?q=par HTTP/1.1\r\nHost: pro")),
    ("half a body", lambda s: s.sendall(b"PUT /documents/churn HTTP/1.1\r\nHost: prove\r\nAuthorization: Bearer "
                                        + API_KEY.encode() + b"\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"name\":")),
    ("large answer, reset after its first bytes", lambda s: (s.sendall(b"GET /search?q=a&limit=100 HTTP/1.1\r\nHost: prove\r\n\r\n"), read_some(s, 100))),
    ("events, reset after the first bytes", lambda s: (s.sendall(b"GET /events HTTP/1.1\r\nHost: prove\r\n\r\n"), read_some(s, 200))),
    ("live query, reset at once", lambda s: s.sendall(b"GET /search/live?q=" + random.choice([b"par", b"ber", b"lon", b"new"]) + b" HTTP/1.1\r\nHost: prove\r\n\r\n")),
    ("three pipelined, reset", lambda s: s.sendall(b"GET /healthz HTTP/1.1\r\nHost: p\r\n\r\nGET /search?q=rom HTTP/1.1\r\nHost: p\r\n\r\nGET /events HTTP/1.1\r\nHost: p\r\n\r\n")),
]


class Churner(threading.Thread):
    def __init__(self, port, seed):
        super().__init__(daemon=True)
        self.port, self.random = port, random.Random(seed)
        self.counts = {name: 0 for name, _ in ACTIONS}
        self.refused = 0
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            name, action = self.random.choice(ACTIONS)
            try:
                s = socket.create_connection(("127.0.0.1", self.port), timeout=2)
            except OSError:
                self.refused += 1
                time.sleep(0.01)
                continue
            try:
                action(s)
            except OSError:
                pass
            if self.random.random() < 0.3:
                time.sleep(self.random.random() * 0.01)  # let the server be mid-write
            reset(s)
            self.counts[name] += 1


def churn(port, seconds, seed):
    churners = [Churner(port, seed + i) for i in range(8)]
    writer = Writer(port, prefix="churn", ids=30, title="Churn", country="DE", pause=0.02)  # every /events stream is written to
    for t in churners + [writer]:
        t.start()
    return churners, writer


def finish(threads):
    for t in threads:
        t.stop.set()
    for t in threads:
        t.join(timeout=10)


def main():
    args = arguments(__doc__)
    report = Report(f"connection churn ({args.mode})")
    seconds = 15 if args.mode == "short" else 120
    seed = int(os.environ.get("PROVE_SEED", "0")) or random.randrange(1 << 30)
    server = Server(args.binary, settings={"http.maxConnections": 256, "sse.heartbeatInterval": 0.2,
                                           "shutdown.gracePeriod": 5}).start()
    try:
        baseline = server.baseline()
        churners, writer = churn(server.port, seconds, seed)
        time.sleep(seconds)
        finish(churners + [writer])
        total = sum(sum(c.counts.values()) for c in churners)
        by_action = {name: sum(c.counts[name] for c in churners) for name, _ in ACTIONS}
        report.figure(f"{seconds} s, seed {seed}: {total:,} connections reset ({total / seconds:,.0f}/s), "
                      f"{sum(c.refused for c in churners)} connects refused; {by_action}; writer {writer.statuses}")
        alive = server.alive()
        report.require("the server is still up", alive, "" if alive else f"exit {server.process.returncode}; server log:\n{server.crash_report()}")
        if not alive:
            return
        status = get(server.port, "/search?q=paris")[0]
        report.require("it serves normally after the churn", status == 200, f"{status}")
        waited, counts = server.wait_for_connections(baseline, timeout=20)
        report.require("connections and descriptors return to the baseline", waited is not None, f"{counts} vs {baseline}")

        # Churn during shutdown: SIGTERM while connections are being opened, written and reset.
        churners, writer = churn(server.port, 3, seed + 100)
        time.sleep(2)
        started = time.monotonic()
        code = server.stop(timeout=30)
        took = time.monotonic() - started
        finish(churners + [writer])
        report.figure(f"SIGTERM during churn: exit {code} after {took:.2f} s")
        report.require("SIGTERM during churn ends it with exit code 0 within the grace period (5 s) + 2 s",
                       code == 0 and took < 7, f"exit {code}" + ("" if code == 0 else f"; server log:\n{server.crash_report()}"))
        report.require("no sanitizer report in the server's log", not server.sanitizer_reports(), server.sanitizer_reports()[:2000])
    finally:
        server.cleanup()
    report.finish()


if __name__ == "__main__":
    main()
