#!/usr/bin/env python3
"""Single-node SQLite writes/s of two binaries, alternated round by round in the same minutes: the
SQLite row of `scripts/cluster-test figures` (64 wrk connections PUTting new documents back to back,
2xx answers counted) without the PostgreSQL clusters, for comparing a store change against a base.

usage: Benchmarks/Service/sqlite-writes-ab.py BINARY BASE_BINARY [ROUNDS] [SECONDS]

Each round starts each binary on a fresh store (order alternating), writes for SECONDS (default 5)
and prints writes/s and the server's CPU microseconds per write; then the medians and their ratio.
"""
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "scripts", "cluster-test.d"))
from cluster import new_replica  # noqa: E402
from harness import load_average, median  # noqa: E402
from throughput import wrk_writes  # noqa: E402


def main():
    binary, base = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    seconds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    rates = {binary: [], base: []}
    cpu = {binary: [], base: []}
    print(f"load average before: {load_average()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="sqlite-writes-ab-") as work:
        for number in range(rounds):
            for name in ([binary, base] if number % 2 == 0 else [base, binary]):
                label = f"r{number}-{'b' if name == base else 'n'}"
                server = new_replica(name, os.path.join(work, f"{label}.sqlite"), work, label).start()
                try:
                    before = server.cpu_seconds()
                    rate = wrk_writes([server], seconds, label)
                    used = server.cpu_seconds() - before
                finally:
                    server.stop(timeout=15)
                rates[name].append(rate)
                cpu[name].append(used / max(rate * seconds, 1) * 1e6)
                print(f"round {number + 1} {'base' if name == base else 'new '}: {rate:,.0f} writes/s, "
                      f"{cpu[name][-1]:,.1f} µs CPU a write (load {load_average()})", flush=True)
    new, old = median(rates[binary]), median(rates[base])
    print(f"median writes/s: new {new:,.0f} (rounds {[round(r) for r in rates[binary]]}), "
          f"base {old:,.0f} (rounds {[round(r) for r in rates[base]]}): {new / old:.2f}x; "
          f"CPU a write: new {median(cpu[binary]):,.1f} µs, base {median(cpu[base]):,.1f} µs; load average after: {load_average()}")


if __name__ == "__main__":
    main()
