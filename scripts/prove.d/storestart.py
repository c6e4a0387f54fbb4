#!/usr/bin/env python3
"""Part 8, store problems at start: an unusable store stops the start with one line and its own exit code.

Each case starts the server on a store it cannot use: its directory missing, a file that is not
SQLite, a store whose pages were damaged, a file the server's user cannot read (the server runs
as `nobody` for it, since root reads everything), and a store on a file system mounted
read-only. Each must end the process (no crash, no listening) with the documented exit code and
one line on stderr naming the file, and leave the file as it was (never a new empty store).
Both modes run every case (a few seconds).
"""
import hashlib
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from common import arguments  # noqa: E402
from harness import API_KEY, Report  # noqa: E402

EXPECTED = {"directory missing": 66, "not SQLite": 65, "damaged pages": 65, "unreadable": 77, "read-only file system": 73}


def digest(path):
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def valid_store(path, rows=400):
    db = sqlite3.connect(path)
    with db:
        db.execute("CREATE TABLE document (id TEXT PRIMARY KEY, body BLOB, sequence INTEGER NOT NULL UNIQUE)")
        db.executemany("INSERT INTO document VALUES (?, ?, ?)",
                       [(f"d{i}", ('{"id":"d%d","name":"%s"}' % (i, "x" * 300)).encode(), i) for i in range(1, rows)])
    db.close()
    return path


def run(binary, store, as_nobody=False):
    env = dict(os.environ, SIGNALBOX_API_KEY=API_KEY, SIGNALBOX_STORE=store, SIGNALBOX_LOG_LEVEL="warning")
    def drop():
        if as_nobody:
            os.setgid(65534)
            os.setuid(65534)
    return subprocess.run([os.path.abspath(binary), "--host", "127.0.0.1", "--port", "0"], env=env, capture_output=True, text=True,
                          timeout=60, preexec_fn=drop, cwd="/")


def main():
    args = arguments(__doc__)
    report = Report(f"store problems at start ({args.mode})")
    work = tempfile.mkdtemp(prefix="signalbox-prove-store-")
    os.chmod(work, 0o755)
    cases = {}
    cases["directory missing"] = (os.path.join(work, "no-such-directory", "store.sqlite"), False)
    garbage = os.path.join(work, "garbage.sqlite")
    with open(garbage, "wb") as f:
        f.write(os.urandom(16384))
    cases["not SQLite"] = (garbage, False)
    damaged = valid_store(os.path.join(work, "damaged.sqlite"))
    with open(damaged, "r+b") as f:  # page 3 onwards: b-tree pages overwritten, header intact
        f.seek(2 * 4096)
        f.write(os.urandom(4096 * 3))
    cases["damaged pages"] = (damaged, False)
    unreadable = valid_store(os.path.join(work, "unreadable.sqlite"))
    os.chmod(unreadable, 0o000)
    cases["unreadable"] = (unreadable, True)
    readonly_dir = os.path.join(work, "ro")
    os.makedirs(readonly_dir)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", readonly_dir], capture_output=True).returncode == 0
    if mounted:
        valid_store(os.path.join(readonly_dir, "store.sqlite"))
        subprocess.run(["mount", "-o", "remount,ro", readonly_dir], check=True)
        cases["read-only file system"] = (os.path.join(readonly_dir, "store.sqlite"), False)
    else:
        report.figure("read-only file system: skipped (cannot mount; needs root)")
    try:
        for name, (store, as_nobody) in cases.items():
            before = digest(store)
            result = run(args.binary, store, as_nobody)
            lines = [l for l in result.stderr.splitlines() if l.strip()]
            report.figure(f"{name}: exit {result.returncode}; stderr: {' | '.join(lines[:3])}")
            report.require(f"{name}: exit {EXPECTED[name]}, one line naming the file, file unchanged",
                           result.returncode == EXPECTED[name] and len(lines) == 1 and store in lines[0]
                           and digest(store) == before and os.path.exists(os.path.dirname(store)) != (name == "directory missing"),
                           f"exit {result.returncode}, {len(lines)} line(s)")
        # Control: a usable store starts and keeps running until SIGTERM.
        env = dict(os.environ, SIGNALBOX_API_KEY=API_KEY, SIGNALBOX_STORE=os.path.join(work, "fresh.sqlite"))
        control = subprocess.Popen([args.binary, "--host", "127.0.0.1", "--port", "0"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            control.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        fine = control.poll() is None
        control.terminate()
        control.wait()
    finally:
        if mounted:
            subprocess.run(["umount", readonly_dir], capture_output=True)
        subprocess.run(["rm", "-rf", work])
    report.require("a usable store starts (control: the server keeps running)", fine)
    report.finish()


if __name__ == "__main__":
    main()
