#!/usr/bin/env python3
"""Instructions (callgrind, all threads) a PostgreSQL replica spends per change, split by where the
change came from (issue 27 part 4): one it wrote itself (a PUT it answered) and one another replica
wrote (read from the change log and applied), and the profiles they came from.

Usage: cluster-instructions.py BINARY OUTDIR [CHANGES] [WRITERS] [WARM]

Two replicas of the embedded cities on a scratch PostgreSQL (scripts/pg-scratch): A runs under
`valgrind --tool=callgrind --instr-atstart=no`, B natively. WARM changes (default 100) go unmeasured
on each; then CHANGES (default 400) PUTs of new cities from WRITERS (default 8) concurrent keep-alive
connections to A are counted until A has applied them all ("own"), then as many to B, counted on A
until it has applied them ("applied"). The profiles stay in OUTDIR/cg.out.1 (own) and cg.out.2
(applied): `callgrind_annotate --inclusive=yes OUTDIR/cg.out.1 | swift demangle`.
valgrind 3.19 cannot read Swift 6's DWARF 5: the binary is measured as an --strip-debug copy.
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

binary, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
changes = int(sys.argv[3]) if len(sys.argv) > 3 else 400
writers = int(sys.argv[4]) if len(sys.argv) > 4 else 8
warm = int(sys.argv[5]) if len(sys.argv) > 5 else 100
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
        put_many(writer, name, changes)
        wait_applied(measured, pg.head())
        control(measured, "-i", "off")
        control(measured, "-d", name)
        groups = (measured.metric("signalbox_commit_groups_total") or 0) - groups_before
        dump = sorted(f for f in os.listdir(out) if f.startswith("cg.out."))[-1]
        totals[name] = int(re.search(r"^totals: (\d+)", open(os.path.join(out, dump), errors="replace").read(), re.M).group(1))
        print(f"{name}: {changes} changes ({writers} writers to {'A' if writer is measured else 'B'}; A's commit groups "
              f"{groups:.0f}), {totals[name]:,} instructions on A, {totals[name] // changes:,} per change ({dump})", flush=True)
finally:
    other.stop(timeout=15)
    measured.stop(timeout=60)
    pg.stop()
    shutil.rmtree(work, ignore_errors=True)
