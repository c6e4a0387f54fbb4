#!/usr/bin/env python3
"""Part 7, disk full: a write that cannot be made durable is 507, never 204; the rest goes on.

The store lives on a small ext4 image the part makes and loop-mounts (a size-limited tmpfs when
loop devices are missing; root needed for either). An event stream and a search probe run
throughout. A filler file takes every free block, then writers PUT documents of ~40 KB until the
store's files cannot grow: each answer must be 204 or 507 (problem+json with Retry-After), and
searches, reads and the stream go on. The filler is then removed: writes must succeed again
without a restart. Last, SIGTERM, `PRAGMA integrity_check` = ok on the store, a restart on the
same store, and every document answered 204 is there with the body it was given.
Short mode: one episode; long mode: three, on one store.
"""
import json
import os
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import Probe, Server, arguments, describe_latencies  # noqa: E402
from harness import Report, SSEReader, connect, get, put_document  # noqa: E402

IMAGE_MB = 24
LEFT_FREE = 512 * 1024  # room for a few writes before the first 507


class Mount:
    """A small file system at `path`: a loop-mounted ext4 image, else a tmpfs."""

    def __init__(self, workdir):
        self.path = os.path.join(workdir, "disk")
        self.image = os.path.join(workdir, "disk.img")
        os.makedirs(self.path)
        try:
            subprocess.run(["truncate", "-s", f"{IMAGE_MB}M", self.image], check=True)
            subprocess.run(["mkfs.ext4", "-q", "-m", "0", "-F", self.image], check=True, capture_output=True)
            subprocess.run(["mount", "-o", "loop", self.image, self.path], check=True, capture_output=True)
            self.kind = f"ext4 image of {IMAGE_MB} MB, loop-mounted"
        except (subprocess.CalledProcessError, FileNotFoundError):
            subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={IMAGE_MB}m", "tmpfs", self.path], check=True)
            self.kind = f"tmpfs of {IMAGE_MB} MB"

    def free_bytes(self):
        stat = os.statvfs(self.path)
        return stat.f_bavail * stat.f_frsize

    def fill(self, leave):
        """Writes a filler file until at most `leave` bytes are free; returns its size in bytes."""
        filler = os.path.join(self.path, "filler")
        written = 0
        with open(filler, "wb", buffering=0) as f:
            chunk = b"\0" * 65536
            while self.free_bytes() > leave + len(chunk):
                try:
                    written += f.write(chunk)
                except OSError:
                    break
            os.fsync(f.fileno())
        return written

    def free(self):
        os.remove(os.path.join(self.path, "filler"))

    def unmount(self):
        subprocess.run(["umount", self.path], capture_output=True)


def document(key, n):
    return {"name": f"Diskfull {key}", "alternateNames": [f"{key}-{n}-{i}-" + "x" * 190 for i in range(200)],
            "rank": n, "attributes": {"countryCode": "FR"}}


def episode(report, server, mount, stream, acknowledged, round_number):
    connection = connect(server.port, timeout=30)
    filled = mount.fill(leave=LEFT_FREE)
    report.figure(f"round {round_number}: filler took {filled / 1e6:.1f} MB; {mount.free_bytes() / 1024:.0f} KiB left free")
    statuses, problems, n = {}, [], 0
    started = time.monotonic()
    first507 = None
    # Writes until five in a row are refused (the store's files can no longer grow).
    refused_in_a_row = 0
    while refused_in_a_row < 5 and time.monotonic() - started < 60:
        n += 1
        key = f"full-{round_number}-{n}"
        body = document(key, n)
        status, headers, payload = put_document(server.port, key, body, connection=connection)
        statuses[status] = statuses.get(status, 0) + 1
        if status == 204:
            acknowledged[key] = body
            refused_in_a_row = 0
        elif status == 507:
            refused_in_a_row += 1
            first507 = first507 or payload
            if headers.get("content-type") != "application/problem+json" or "retry-after" not in headers:
                problems.append(f"507 without problem+json or Retry-After: {headers}")
        else:
            problems.append(f"{status}: {payload[:200]!r}")
    full_at = time.monotonic()
    report.figure(f"writes of ~40 KB on the full disk: {dict(sorted(statuses.items()))}; a 507 says {first507[:160] if first507 else None!r}")
    report.require("a write that cannot be stored is 507 (problem+json, Retry-After), never another status", 507 in statuses and not problems,
                   "; ".join(problems[:3]))
    # Reads and searches go on while the disk is full.
    statuses_now = [get(server.port, "/search?q=paris")[0], get(server.port, "/healthz")[0]]
    some = next(iter(acknowledged), None)
    if some:
        statuses_now.append(get(server.port, f"/documents/{some}")[0])
    report.require("searches and reads answer 200 while the disk is full", all(s == 200 for s in statuses_now), f"{statuses_now}")

    mount.free()
    freed = time.monotonic()
    recovered, attempts = None, 0
    while time.monotonic() - freed < 10:
        attempts += 1
        key = f"after-{round_number}-{attempts}"
        body = document(key, attempts)
        status = put_document(server.port, key, body, connection=connection).status
        if status == 204:
            acknowledged[key] = body
            recovered = time.monotonic() - freed
            break
        time.sleep(0.05)
    report.require("once space is freed, writes succeed again without a restart", recovered is not None,
                   f"first 204 {recovered:.3f} s after freeing ({attempts} attempt(s))" if recovered is not None else "")
    time.sleep(1.5)
    report.require("the event stream is still open and received data after the disk filled",
                   stream.ended is None and stream.received_between(full_at, time.monotonic()) > 0,
                   f"ended: {stream.ended}")
    connection.close()


def main():
    args = arguments(__doc__)
    report = Report(f"disk full ({args.mode})")
    if os.geteuid() != 0:
        report.require("runs as root (it mounts a file system)", False)
        report.finish()
    rounds = 1 if args.mode == "short" else 3
    server = Server(args.binary, settings={"sse.heartbeatInterval": 1})
    mount = Mount(server.workdir)
    server.store = os.path.join(mount.path, "store.sqlite")
    report.figure(f"store on a {mount.kind}")
    acknowledged = {}
    try:
        server.start()
        stream = SSEReader(server.port)  # one /events client for the whole part
        stream.start()
        connection = connect(server.port, timeout=30)
        for n in range(20):  # acknowledged before the disk fills
            key = f"before-{n}"
            if put_document(server.port, key, document(key, n), connection=connection).status == 204:
                acknowledged[key] = document(key, n)
        connection.close()
        probe = Probe(server.port, rate=10)
        probe.start()
        probe.running.set()
        for round_number in range(1, rounds + 1):
            episode(report, server, mount, stream, acknowledged, round_number)
        probe.running.clear()
        probe.stop()
        report.figure(f"search probe throughout: {describe_latencies(probe.latencies)}; failures {len(probe.failures)}")
        report.require("no search failed while the disk was full", not probe.failures, "; ".join(probe.failures[:3]))
        code = server.stop()
        report.require("SIGTERM then ends it with exit code 0", code == 0, f"exit {code}\n{server.log_tail(30) if code else ''}")
        db = sqlite3.connect(server.store)
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        stored = {row[0]: row[1] for row in db.execute("SELECT id, body FROM document")}
        db.close()
        report.require("PRAGMA integrity_check = ok", integrity == "ok", integrity)
        missing = [k for k, body in acknowledged.items()
                   if k not in stored or json.loads(stored[k])["alternateNames"] != body["alternateNames"]]
        report.require(f"every write answered 204 is in the store ({len(acknowledged)})", not missing, f"missing: {missing[:5]}")
        server.process = None
        server.start()
        lost = [k for k in acknowledged if get(server.port, f"/documents/{k}")[0] != 200]
        report.require("after a restart every acknowledged document is served", not lost, f"lost: {lost[:5]}")
        code = server.stop()
        report.require("SIGTERM then ends the restarted server with exit code 0", code == 0, f"exit {code}")
    finally:
        if server.alive():
            server.process.kill()
            server.process.wait()
        mount.unmount()
        server.cleanup()
    report.finish()


if __name__ == "__main__":
    main()
