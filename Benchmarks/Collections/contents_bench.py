"""What the collections benchmarks share (imported by the scripts beside it, not run): the Contents
documents, the signalbox server under test (scripts/harness.py), its schema PUT and NDJSON import in
requests of at most N MiB, a PostgreSQL scratch cluster, and the line that says how a run ran.
"""
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, SCRIPTS)
import harness  # noqa: E402  (scripts/harness.py)

DEFAULT_DATA = "/work/data/contents" if os.path.isdir("/work/data/contents") else os.path.join(ROOT, "artifacts", "contents")
COLLECTION = "contents"
# The schema's searched fields: what "the size of the indexed field values" sums.
SEARCHED = ("file", "path", "package")


def environment(cpus=None):
    """How the run ran: cores, pinning, load average (1, 5, 15 min)."""
    pinning = f"server pinned with taskset -c {cpus}" if cpus else "no taskset pinning"
    return f"{os.cpu_count()} cores, {pinning}, load average {harness.load_average()}"


def ndjson_lines(data, limit):
    """The first `limit` lines of contents.ndjson, as bytes (newline kept)."""
    lines = []
    with open(os.path.join(data, "contents.ndjson"), "rb") as source:
        for line in source:
            if len(lines) >= limit:
                break
            lines.append(line if line.endswith(b"\n") else line + b"\n")
    return lines


def chunks_of(lines, chunk_mib):
    """The lines joined into request bodies of at most `chunk_mib` MiB each."""
    chunks, current, size = [], [], 0
    for line in lines:
        if size + len(line) > chunk_mib << 20 and current:
            chunks.append(b"".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line)
    if current:
        chunks.append(b"".join(current))
    return chunks


def server(binary, store, cpus=None, settings=None, workdir=None):
    """A harness.Server on `store` (not started), default settings, warnings-only log."""
    return harness.Server(binary, store=store, cpus=cpus, settings=settings, workdir=workdir, name="signalbox",
                          ready_timeout=600)


def put_schema(srv, data):
    with open(os.path.join(data, "schema.json"), "rb") as schema:
        # Public: the benchmarks read without a key, as a search frontend of open data would.
        body = json.dumps(dict(json.load(schema), public=True)).encode()
    answer = harness.request(srv.port, "PUT", f"/collections/{COLLECTION}", body,
                             {"Content-Type": "application/json"}, key=srv.key, timeout=600)
    assert answer.status in (200, 201), answer
    return answer


def import_chunks(srv, chunks):
    """POSTs each chunk (NDJSON), one after another on one connection; returns (seconds, created+updated).
    Each answer comes only once its lines are durable."""
    connection = harness.connect(srv.port, timeout=1800)
    done = 0
    started = time.perf_counter()
    for chunk in chunks:
        answer = harness.request(srv.port, "POST", f"/collections/{COLLECTION}/documents", chunk,
                                 {"Content-Type": "application/x-ndjson"}, key=srv.key, connection=connection)
        assert answer.status == 200, (answer.status, answer.body[:500])
        result = json.loads(answer.body)
        assert result["failed"] == 0, result["errors"][:3]
        done += result["created"] + result["updated"]
    elapsed = time.perf_counter() - started
    connection.close()
    return elapsed, done


def document_count(srv):
    # With the key: a store whose collection is not public (any more) is counted too.
    answer = harness.request(srv.port, "GET", f"/collections/{COLLECTION}", key=srv.key, timeout=60)
    assert answer.status == 200, answer
    return json.loads(answer.body)["documents"]


class Postgres:
    """A scratch PostgreSQL cluster (scripts/pg-scratch) in a folder of its own; psql on its URL."""

    def __init__(self, directory):
        self.directory = directory
        self.url = subprocess.run([os.path.join(SCRIPTS, "pg-scratch"), "start", directory], check=True,
                                  capture_output=True, text=True).stdout.strip()
        self.base = self.url.split("?")[0]

    def psql(self, sql, stdin=None, capture=False):
        return subprocess.run(["psql", "-q", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", self.base, "-c", sql],
                              stdin=stdin, check=True, capture_output=capture, text=capture)

    def stop(self):
        subprocess.run([os.path.join(SCRIPTS, "pg-scratch"), "stop", self.directory], capture_output=True)



def value_bytes(lines):
    searched = declared = 0
    for line in lines:
        r = json.loads(line)
        s = sum(len(r[f].encode()) for f in SEARCHED if isinstance(r.get(f), str))
        searched += s
        declared += s + len(r.get("section", "").encode()) + sum(len(p.encode()) for p in r.get("packages", []))
    return searched, declared


def peak_kib(srv):
    """VmHWM: the process's peak resident memory so far."""
    return status_kib(srv, "VmHWM")


def status_kib(srv, field):
    """A field of /proc/PID/status in KiB: VmRSS, VmHWM, RssAnon (the process's own memory), RssFile
    (pages of mapped files, such as the index's saved segments: the kernel's to take back)."""
    with open(f"/proc/{srv.pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def print_memory(lines, before, after_import, after, peak):
    """VmRSS (KiB) before and after an import of `lines`, per document and against the values' sizes."""
    searched, declared = value_bytes(lines)
    raw = sum(len(line) for line in lines)
    n = len(lines)
    grown = (after - before) * 1024
    print(f"VmRSS before {before / 1024:,.1f} MiB, right after the import {after_import / 1024:,.1f} MiB, "
          f"5 s later {after / 1024:,.1f} MiB; peak (VmHWM) {peak / 1024:,.1f} MiB")
    print(f"grown by {grown / 2**20:,.1f} MiB: {grown / n:,.0f} bytes per document "
          f"(whole process after: {after * 1024 / n:,.0f} bytes per document)")
    print(f"searched field values (file, path, package): {searched / 2**20:,.1f} MiB, {searched / n:.1f} bytes "
          f"per document; memory grown / that = {grown / searched:.2f}x")
    print(f"declared string values (+ packages, section): {declared / 2**20:,.1f} MiB; memory grown / that = "
          f"{grown / declared:.2f}x")
    print(f"NDJSON: {raw / 2**20:,.1f} MiB; memory grown / that = {grown / raw:.2f}x")


def move_store(source, destination):
    """Moves a SQLite store (its -wal, -shm files, and its saved collection indexes, STORE.index) from
    `source` to `destination`."""
    for suffix in ("", "-wal", "-shm", ".index"):
        if os.path.exists(source + suffix):
            shutil.move(source + suffix, destination + suffix)
