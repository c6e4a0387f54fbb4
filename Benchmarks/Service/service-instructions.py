#!/usr/bin/env python3
"""Instructions (callgrind, all threads) of the `signalbox` binary per keep-alive `GET /healthz`
and per `/events` delivery, for one or more binaries in one run: steady before/after figures on a
machine too busy for wrk (rounds of one binary differ by well under 1%).

Usage: service-instructions.py BINARY[=LABEL] [BINARY[=LABEL] ...]
           [--requests 2000] [--clients 1000] [--events 20] [--data FILE]
           [--only healthz|fanout] [--keep DIR]

Each binary runs at its defaults (access log on, written to a file) with a fresh SQLite store and
an API key, on 1,000 generated documents (`--data` takes another file: the embedded cities take
minutes to load under valgrind), under `valgrind --tool=callgrind --instr-atstart=no`; the
count covers only the measured part (instrumentation switched on with `callgrind_control`):

- healthz: REQUESTS requests one at a time on one keep-alive connection, after 200 unmeasured.
- fan-out: EVENTS unmeasured writes, EVENTS writes (`PUT /documents/fanout-N`, one at a time) with nobody listening, then
  CLIENTS raw `text/event-stream` clients on `/events` and EVENTS more writes, each waited for
  until every client has read its event (one unmeasured write before them). A delivery is
  (second part - first part) / (EVENTS x CLIENTS): the write's own work left out.

--keep DIR keeps each run's callgrind files there (recorded with --dump-instr=yes), to see where
the instructions go: `callgrind_annotate --inclusive=yes DIR/LABEL-healthz.callgrind`.

The uncached search has its own script (search-instructions.sh, BASELINE=COMMIT).
valgrind 3.19 cannot read Swift 6's DWARF 5: each binary is measured as an --strip-debug copy.
"""
import argparse
import os
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

KEY = "bench-key"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One binary under callgrind, instrumentation off until `measure()`."""

    def __init__(self, binary, work, label, data):
        self.port = free_port()
        self.out = os.path.join(work, f"{label}.callgrind")
        self.log = open(os.path.join(work, f"{label}.log"), "wb")
        self.process = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--dump-instr=yes", f"--callgrind-out-file={self.out}",
             binary, "--host", "127.0.0.1", "--port", str(self.port), "--api-key", KEY,
             "--store", os.path.join(work, f"{label}.sqlite"), "--data", data],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"{label}: the server exited; see {self.log.name}")
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=5).read()
                return
            except OSError:
                time.sleep(0.5)
        raise SystemExit(f"{label}: not ready in 600 s")

    def instrument(self, on):
        subprocess.run(["callgrind_control", "-i", "on" if on else "off", str(self.process.pid)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def dump(self):
        """Writes the counts so far to their own file and zeroes them."""
        subprocess.run(["callgrind_control", "-d", str(self.process.pid)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self):
        """SIGTERM, wait, and the instructions counted while instrumented: one figure per dump,
        in order, the counts at exit last."""
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=300)
        folder, base = os.path.split(self.out)
        files = sorted((name for name in os.listdir(folder) if name.startswith(base)),
                       key=lambda name: int(name.rsplit(".", 1)[1]) if name != base else 1 << 30)
        totals = []
        for name in files:
            for line in open(os.path.join(folder, name), errors="replace"):
                if line.startswith("totals:"):
                    totals.append(int(line.split()[1]))
        return totals


def read_response(sock, buffer):
    """Reads one Content-Length response off a keep-alive connection; returns (status, rest)."""
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end >= 0:
            head = buffer[:end].decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if len(buffer) >= end + 4 + length:
                return int(head.split(" ")[1]), buffer[end + 4 + length:]
        chunk = sock.recv(65536)
        if not chunk:
            raise SystemExit("the server closed the connection")
        buffer += chunk


def healthz(binary, work, label, data, requests):
    server = Server(binary, work, label + "-healthz", data)
    sock = socket.create_connection(("127.0.0.1", server.port))
    request = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"
    buffer = b""

    def run(count):
        nonlocal buffer
        for _ in range(count):
            sock.sendall(request)
            status, buffer = read_response(sock, buffer)
            assert status == 200, status

    run(200)
    server.instrument(True)
    run(requests)
    server.instrument(False)
    sock.close()
    return server.stop()[-1] / requests


def fanout(binary, work, label, data, clients, events):
    server = Server(binary, work, label + "-fanout", data)
    selector = selectors.DefaultSelector()
    streams = []
    writer = socket.create_connection(("127.0.0.1", server.port))
    buffer = b""

    def put(n):
        nonlocal buffer
        body = f'{{"id": "fanout-{n}", "name": "Fanout {n}", "rank": 1}}'.encode()
        writer.sendall(f"PUT /documents/fanout-{n} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {KEY}\r\n"
                       f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        status, buffer = read_response(writer, buffer)
        assert status in (200, 204), status

    # The writes alone, with no client listening: what a delivery's figure leaves out. The first
    # writes of a fresh server cost more (statements prepared, buffers grown): EVENTS go unmeasured.
    for n in range(events):
        put(-1000 - n)
    server.instrument(True)
    for n in range(events):
        put(-2 - n)
    server.instrument(False)
    server.dump()

    def connect(count):
        for _ in range(count):
            s = socket.create_connection(("127.0.0.1", server.port))
            s.sendall(b"GET /events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
            s.setblocking(False)
            selector.register(s, selectors.EVENT_READ, len(streams))
            streams.append(bytearray())

    def wait_for(marker):
        """Until every client's stream holds `marker` (the body's name of a write)."""
        waiting = {i for i, data in enumerate(streams) if marker not in data}
        deadline = time.monotonic() + 300
        while waiting:
            if time.monotonic() > deadline:
                raise SystemExit(f"{label}: {len(waiting)} clients never got {marker!r}")
            for key, _ in selector.select(timeout=1):
                chunk = key.fileobj.recv(65536)
                if not chunk:
                    raise SystemExit(f"{label}: a stream was closed")
                streams[key.data] += chunk
                if marker in streams[key.data]:
                    waiting.discard(key.data)

    def write(n):
        put(n)
        wait_for(f"Fanout {n}\"".encode())

    # In batches, each answered before the next: a slow server under valgrind would overflow the
    # listen backlog with a thousand connections at once.
    while len(streams) < clients:
        connect(min(100, clients - len(streams)))
        wait_for(b"HTTP/1.1 200")

    write(0)
    server.instrument(True)
    for n in range(1, events + 1):
        write(n)
    server.instrument(False)
    for key in list(selector.get_map().values()):
        key.fileobj.close()
    writer.close()
    alone, listened = server.stop()
    return alone / events, (listened - alone) / (events * clients)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", nargs="+", help="BINARY or BINARY=LABEL")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--data", help="data set (.ndjson); default 1,000 generated documents")
    parser.add_argument("--only", choices=["healthz", "fanout"], help="measure only this part")
    parser.add_argument("--keep", help="keep the callgrind files in this folder")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        raise SystemExit("valgrind is needed: apt-get install valgrind")
    work = tempfile.mkdtemp(prefix="service-instructions-")
    data = args.data
    if not data:
        data = os.path.join(work, "documents.ndjson")
        with open(data, "w") as f:
            for n in range(1000):
                f.write(f'{{"id": "d{n}", "name": "Place {n}", "rank": {n}}}\n')
    print(f"load average {os.getloadavg()[0]:.1f}; healthz: {args.requests} keep-alive requests; "
          f"fan-out: {args.clients} clients x {args.events} writes")
    rows = []
    try:
        for spec in args.binaries:
            binary, _, label = spec.partition("=")
            label = label or os.path.basename(binary)
            stripped = os.path.join(work, label + ".bin")
            subprocess.run(["objcopy", "--strip-debug", binary, stripped], check=True)
            write = delivery = per_request = float("nan")
            if args.only != "healthz":
                write, delivery = fanout(stripped, work, label, data, args.clients, args.events)
            if args.only != "fanout":
                per_request = healthz(stripped, work, label, data, args.requests)
            rows.append((label, per_request, delivery, write))
            print(f"{label:>24}: /healthz {per_request:,.0f} instructions per request; /events {delivery:,.0f} per "
                  f"delivery; PUT with no listener {write:,.0f}", flush=True)
        if len(rows) > 1:
            base = rows[0]
            for label, h, d, w in rows[1:]:
                print(f"{label} against {base[0]}: /healthz {h / base[1]:.3f}x, /events delivery {d / base[2]:.3f}x, "
                      f"PUT {w / base[3]:.3f}x")
    finally:
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            for name in os.listdir(work):
                if ".callgrind" in name:
                    shutil.move(os.path.join(work, name), os.path.join(args.keep, name))
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
