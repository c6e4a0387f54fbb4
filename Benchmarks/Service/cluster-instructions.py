#!/usr/bin/env python3
"""Instructions (callgrind, all threads) a PostgreSQL replica spends per change, split by where the
change came from (issue 27 part 4): one it wrote itself (a PUT it answered) and one another replica
wrote (read from the change log and applied), and the profiles they came from.

Usage: cluster-instructions.py BINARY OUTDIR [CHANGES] [WRITERS] [WARM] [--paced]

Two replicas of the embedded cities on a scratch PostgreSQL (scripts/pg-scratch): A runs under
`valgrind --tool=callgrind --instr-atstart=no`, B natively. WARM changes (default 100) go unmeasured
on each; then CHANGES (default 400) PUTs of new cities from WRITERS (default 8) concurrent keep-alive
connections to A are counted until A has applied them all ("own"), then as many to B, counted on A
until it has applied them ("applied"). The profiles stay in OUTDIR/cg.out.1 (own) and cg.out.2
(applied): `callgrind_annotate --inclusive=yes OUTDIR/cg.out.1 | swift demangle`.
valgrind 3.19 cannot read Swift 6's DWARF 5: the binary is measured as an --strip-debug copy.

--paced: the writes go in bursts of WRITERS (one each), the next once A has applied the last: A
(slowed down by valgrind) applies each burst as a run of its own, as a replica at full speed does
under load, instead of gathering hundreds of changes into one run while it lags, which spreads the
costs of a run (the indexes' delta and recent segment, the read of the log) over far more changes.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "scripts", "cluster-test.d"))
from cluster import Postgres, new_replica  # noqa: E402
from harness import API_KEY, connect, put_document  # noqa: E402

paced = "--paced" in sys.argv
arguments = [a for a in sys.argv if a != "--paced"]
binary, out = os.path.abspath(arguments[1]), os.path.abspath(arguments[2])
changes = int(arguments[3]) if len(arguments) > 3 else 400
writers = int(arguments[4]) if len(arguments) > 4 else 8
warm = int(arguments[5]) if len(arguments) > 5 else 100
os.makedirs(out, exist_ok=True)
stripped = os.path.join(out, "signalbox")
subprocess.run(["objcopy", "--strip-debug", binary, stripped], check=True)
wrapper = os.path.join(out, "under-callgrind")
with open(wrapper, "w") as f:
    f.write(f'#!/bin/sh\nexec valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file={out}/cg.out {stripped} "$@"\n')
os.chmod(wrapper, 0o755)


def put_many(replica, label, count):
    """`count` new cities PUT over `writers` keep-alive connections, all answered 204."""
    def write(number):
        connection = connect(replica.port, timeout=120)
        for n in range(number, count, writers):
            answer = put_document(replica.port, f"{label}-{n}", {"name": f"Counted {label} {n}", "attributes": {"n": n}},
                                  connection=connection)
            if answer.status != 204:
                raise SystemExit(f"PUT answered {answer.status}")
        connection.close()
    threads = [threading.Thread(target=write, args=(number,)) for number in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def wait_applied(replica, head):
    while replica.status().get("applied", 0) < head:
        time.sleep(0.05)


def put_paced(writer, measured, label, count):
    """`count` new cities in bursts of `writers` concurrent PUTs, each burst once `measured` has applied the last."""
    connections = [connect(writer.port, timeout=120) for _ in range(writers)]  # keep-alive, one per writer

    def write(n, connection):
        answer = put_document(writer.port, f"{label}-{n}", {"name": f"Counted {label} {n}", "attributes": {"n": n}},
                              connection=connection)
        if answer.status != 204:
            raise SystemExit(f"PUT answered {answer.status}")
    for start in range(0, count, writers):
        threads = [threading.Thread(target=write, args=(n, connections[n - start])) for n in range(start, min(start + writers, count))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wait_applied(measured, pg.head())
    for connection in connections:
        connection.close()


def control(replica, *arguments):
    subprocess.run(["callgrind_control", *arguments, str(replica.pid)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


work = tempfile.mkdtemp(prefix="signalbox-instructions-")
pg = Postgres(work)
measured = new_replica(wrapper, pg.url, work, "measured")
measured.ready_timeout = 1800
other = new_replica(binary, pg.url, work, "other")
try:
    measured.start()
    other.start()
    put_many(measured, "warm-a", warm)
    put_many(other, "warm-b", warm)
    wait_applied(measured, pg.head())
    totals = {}
    for name, writer in (("own", measured), ("applied", other)):
        groups_before = measured.metric("signalbox_commit_groups_total") or 0
        control(measured, "-i", "on")
        if paced:
            put_paced(writer, measured, name, changes)
        else:
            put_many(writer, name, changes)
        wait_applied(measured, pg.head())
        control(measured, "-i", "off")
        control(measured, "-d", name)
        groups = (measured.metric("signalbox_commit_groups_total") or 0) - groups_before
        dump = sorted(f for f in os.listdir(out) if f.startswith("cg.out."))[-1]
        totals[name] = int(re.search(r"^totals: (\d+)", open(os.path.join(out, dump), errors="replace").read(), re.M).group(1))
        print(f"{name}: {changes} changes ({writers} writers{' in paced bursts' if paced else ''} to {'A' if writer is measured else 'B'}; A's commit groups "
              f"{groups:.0f}), {totals[name]:,} instructions on A, {totals[name] // changes:,} per change ({dump})", flush=True)
finally:
    other.stop(timeout=15)
    measured.stop(timeout=60)
    pg.stop()
    shutil.rmtree(work, ignore_errors=True)
