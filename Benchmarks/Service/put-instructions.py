#!/usr/bin/env python3
"""Instructions (callgrind, all threads) per `PUT /documents/{id}` of a city with nobody listening,
and the profile they came from (issue 27 part 4: what a write costs, the index's share of it).

Usage: put-instructions.py BINARY OUTDIR [PUTS] [WARM] [DATA]

The server runs under `valgrind --tool=callgrind --instr-atstart=no` with a fresh SQLite store; WARM
writes (default 40) go unmeasured, then PUTS writes (default 100) one at a time on one keep-alive
connection, each a new document, are counted. DATA is an .ndjson data set; default 1,000 generated
documents; `embedded` serves the embedded cities (33,961; minutes to load under valgrind). Use
enough PUTS to span the index's periodic rebuilds (1,100 on the cities spans one whole-index
rebuild of the release before issue 27 part 4, which rebuilt every 1,024 changes).
The profile stays in OUTDIR/cg.out.1: `callgrind_annotate --inclusive=yes OUTDIR/cg.out.1 | swift demangle`.
valgrind 3.19 cannot read Swift 6's DWARF 5: the binary is measured as an --strip-debug copy.
"""
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

binary, out = sys.argv[1], sys.argv[2]
puts = int(sys.argv[3]) if len(sys.argv) > 3 else 100
warm = int(sys.argv[4]) if len(sys.argv) > 4 else 40
data = sys.argv[5] if len(sys.argv) > 5 else None
os.makedirs(out, exist_ok=True)
if data is None:
    data = os.path.join(out, "documents.ndjson")
    with open(data, "w") as f:
        for n in range(1000):
            f.write(f'{{"id": "d{n}", "name": "Place {n}", "rank": {n}}}\n')
stripped = os.path.join(out, "signalbox")
subprocess.run(["objcopy", "--strip-debug", binary, stripped], check=True)
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
server = subprocess.Popen(
    ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}/cg.out", stripped,
     "--host", "127.0.0.1", "--port", str(port), "--api-key", "k", "--store", f"{out}/store.sqlite"]
    + ([] if data == "embedded" else ["--data", data]),
    stdout=open(f"{out}/server.log", "wb"), stderr=subprocess.STDOUT)
while True:
    if server.poll() is not None:
        raise SystemExit(f"the server exited; see {out}/server.log")
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5).read()
        break
    except OSError:
        time.sleep(0.5)
connection = socket.create_connection(("127.0.0.1", port))


def put(n):
    body = f'{{"id": "w{n}", "name": "Written {n}", "rank": 1}}'.encode()
    connection.sendall(f"PUT /documents/w{n} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer k\r\n"
                       f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += connection.recv(65536)
    if b" 204 " not in answer.split(b"\r\n")[0]:
        raise SystemExit(f"PUT answered {answer[:200]!r}")


def control(*arguments):
    subprocess.run(["callgrind_control", *arguments, str(server.pid)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


for n in range(warm):
    put(-1 - n)
control("-i", "on")
for n in range(puts):
    put(n)
control("-i", "off")
control("-d")
server.send_signal(signal.SIGTERM)
server.wait()
total = int(re.search(r"^totals: (\d+)", open(f"{out}/cg.out.1", errors="replace").read(), re.M).group(1))
print(f"{puts} PUTs after {warm} unmeasured, data {os.path.basename(data)}: {total:,} instructions, {total // puts:,} per PUT")
