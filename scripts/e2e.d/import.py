#!/usr/bin/env python3
"""End-to-end checks of `signalbox import`, the CLI that streams files to a running server.

usage: python3 scripts/e2e.d/import.py PATH_TO_SIGNALBOX   (scripts/e2e runs it)
The one binary serves (started by harness.Server) and imports (run as a client). Checks: a small
NDJSON file with --schema (the collection made first); a CSV file with a quoted cell that holds a
comma and a line end, and a `|` list; a gzipped NDJSON file; a file with bad lines (exit 1, each
error names the file's line); NDJSON and CSV files of several requests with --chunk-mib 1 (every
document arrives, a bad line in a later request named by its line of the file, the CSV header
repeated); usage errors (exit 2), an unreachable server (exit 3), a refused key and an unknown
collection (exit 4, the problem's detail printed), `import --help`. Documents are checked through
the API. Each check is a function of CHECKS, run in that order once the server is up.
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/
from harness import API_KEY, Report, Server, free_port, get, run_checks  # noqa: E402

SCHEMA = {"id": "sku",
          "fields": [{"name": "title", "type": "string", "search": True},
                     {"name": "price", "type": "number"},
                     {"name": "tags", "type": "string[]"}],
          "rank": "price"}
# Documents in the big files: enough for 3 requests of at most 1 MiB.
BIG_DOCUMENTS = 30000
IMPORT_TIMEOUT = 300
# A debug binary loads the cities slowly on a busy machine; the release one takes about a second.
READY_TIMEOUT = 300


class Import:
    """What the checks share: the server, the report, the binary and a folder for the files."""

    def __init__(self, server, report, binary, folder):
        self.server, self.report, self.binary, self.folder = server, report, binary, folder
        self.require = report.require

    def path(self, name):
        return os.path.join(self.folder, name)

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def run(self, *args, key=API_KEY, url=None):
        """`signalbox import ARGS` against the server; returns (exit code, stdout, stderr)."""
        command = [self.binary, "import", *args, "--url", url or self.server.base]
        if key is not None:
            command += ["--api-key", key]
        done = subprocess.run(command, capture_output=True, text=True, timeout=IMPORT_TIMEOUT,
                              env=dict(os.environ, SIGNALBOX_API_KEY=""))
        return done.returncode, done.stdout, done.stderr

    def document(self, collection, doc_id):
        status, _, body = get(self.server.port, f"/collections/{collection}/documents/{doc_id}", key=API_KEY)
        return json.loads(body) if status == 200 else None

    def count(self, collection):
        status, _, body = get(self.server.port, f"/collections/{collection}", key=API_KEY)
        return json.loads(body)["documents"] if status == 200 else None


def ndjson(documents):
    return "".join(json.dumps(d) + "\n" for d in documents)


def small_ndjson_with_schema(t):
    schema = t.write("schema.json", json.dumps(SCHEMA))
    data = t.write("small.ndjson", ndjson([{"sku": f"n{i}", "title": f"Lamp {i}", "price": i, "tags": ["home"]}
                                           for i in range(1, 4)]))
    code, out, err = t.run(data, "--collection", "products", "--schema", schema)
    t.require("an NDJSON import with --schema exits 0", code == 0, f"(exit {code}) {out}{err}")
    t.require("it says the collection was created", "collection products created" in out, out)
    t.require("a plain line per request when not a terminal", "small.ndjson: request 1:" in out
              and "3 created" in out and "documents/s" in out, out)
    document = t.document("products", "n2")
    t.require("its documents are served by the API", document is not None and document.get("title") == "Lamp 2",
              document)
    t.require("the collection holds the 3", t.count("products") == 3, t.count("products"))


def csv_file(t):
    data = t.write("small.csv", 'sku,title,price,tags\n'
                                'c1,"Desk, oak",120,office|wood\n'
                                'c2,"Two\nlines",7,\n'
                                'c3,Chair,45,office\n')
    code, out, err = t.run(data, "--collection", "products")
    t.require("a CSV import exits 0", code == 0, f"(exit {code}) {out}{err}")
    desk, two = t.document("products", "c1"), t.document("products", "c2")
    t.require("a quoted cell keeps its comma, a | cell is a list",
              desk is not None and desk.get("title") == "Desk, oak" and desk.get("tags") == ["office", "wood"], desk)
    t.require("a quoted cell keeps its line end", two is not None and two.get("title") == "Two\nlines", two)


def gzip_file(t):
    data = t.path("small.ndjson.gz")
    with gzip.open(data, "wt") as f:
        f.write(ndjson([{"sku": f"g{i}", "title": f"Gz {i}", "price": i} for i in range(1, 6)]))
    code, out, err = t.run(data, "--collection", "products")
    t.require("a .gz import exits 0", code == 0, f"(exit {code}) {out}{err}")
    document = t.document("products", "g5")
    t.require("its documents arrive inflated", document is not None and document.get("title") == "Gz 5", document)


def bad_lines(t):
    data = t.write("bad.ndjson", '{"sku": "b1", "title": "Fine", "price": 1}\n'
                                 '\n'
                                 '{"sku": "b3", "title": \n'
                                 '{"sku": "b4", "title": "Also fine", "price": 4}\n'
                                 '{"sku": "b5", "title": "Bad price", "price": "cheap"}\n')
    code, out, err = t.run(data, "--collection", "products")
    t.require("a file with bad lines exits 1", code == 1, f"(exit {code}) {out}{err}")
    t.require("each error names the file's line", f"{data}:3:" in err and f"{data}:5: 422" in err
              and ":1:" not in err and ":4:" not in err, err)
    t.require("the good lines are imported", t.document("products", "b1") is not None
              and t.document("products", "b4") is not None and t.document("products", "b5") is None)


def big_ndjson_in_chunks(t):
    bad = BIG_DOCUMENTS - 7  # in the last request
    lines = [json.dumps({"sku": f"big{i}", "title": f"Item number {i} of the big file", "price": i,
                         "tags": ["bulk", "padding-to-make-the-line-longer"]}) for i in range(1, BIG_DOCUMENTS + 1)]
    lines[bad - 1] = '{"sku": "broken", "price": [}'
    data = t.write("big.ndjson", "\n".join(lines) + "\n")
    size = os.path.getsize(data)
    code, out, err = t.run(data, "--collection", "big", "--schema", t.path("schema.json"), "--chunk-mib", "1")
    requests = out.count("big.ndjson: request ")
    t.require("an NDJSON file bigger than one chunk goes in several requests", requests >= 3 and requests >= size / 2**20,
              f"{requests} requests for {size} bytes")
    t.require("it exits 1 for its one bad line, named by its line of the file",
              code == 1 and f"{data}:{bad}:" in err and err.count(f"{data}:") == 1, f"(exit {code}) {err}")
    t.require("every other document arrives", t.count("big") == BIG_DOCUMENTS - 1, t.count("big"))
    last = t.document("big", f"big{BIG_DOCUMENTS}")
    t.require("the last one intact", last is not None and last.get("price") == BIG_DOCUMENTS, last)


def big_csv_in_chunks(t):
    bad = BIG_DOCUMENTS - 11  # a record's line; the header is line 1, every record one line
    rows = ["sku,title,price,tags"]
    for i in range(2, BIG_DOCUMENTS + 2):
        rows.append(f'csv{i},"Row {i}, quoted",{"not-a-number" if i == bad else i},bulk|padding-for-a-longer-row')
    data = t.write("big.csv", "\n".join(rows) + "\n")
    code, out, err = t.run(data, "--collection", "bigcsv", "--schema", t.path("schema.json"), "--chunk-mib", "1")
    requests = out.count("big.csv: request ")
    t.require("a CSV file bigger than one chunk goes in several requests, its header repeated",
              requests >= 2 and t.count("bigcsv") == BIG_DOCUMENTS - 1, f"{requests} requests, {t.count('bigcsv')} documents")
    t.require("its bad record is named by its line of the file", code == 1 and f"{data}:{bad}: 422" in err,
              f"(exit {code}) {err}")
    row = t.document("bigcsv", f"csv{BIG_DOCUMENTS + 1}")
    t.require("the last record intact", row is not None and row.get("title") == f"Row {BIG_DOCUMENTS + 1}, quoted", row)


def usage_errors(t):
    data = t.path("small.ndjson")
    cases = [("no --collection", [data]), ("no file", ["--collection", "products"]),
             ("a bad collection name", [data, "--collection", "Bad Name"]),
             ("an unknown extension", [t.write("data.txt", "{}\n"), "--collection", "products"]),
             ("a missing file", [t.path("missing.ndjson"), "--collection", "products"]),
             ("--chunk-mib 0", [data, "--collection", "products", "--chunk-mib", "0"]),
             ("an https URL", [data, "--collection", "products", "--url", "https://127.0.0.1:1"])]
    for name, args in cases:
        url = args[args.index("--url") + 1] if "--url" in args else None
        if url:
            args = args[:args.index("--url")]
        code, out, err = t.run(*args, url=url)
        t.require(f"{name}: exit 2 with a message", code == 2 and err.strip(), f"(exit {code}) {err.strip()[:200]}")


def server_problems(t):
    data = t.path("small.ndjson")
    code, _, err = t.run(data, "--collection", "products", url=f"http://127.0.0.1:{free_port()}")
    t.require("an unreachable server: exit 3", code == 3 and "cannot reach the server" in err, f"(exit {code}) {err}")
    code, _, err = t.run(data, "--collection", "products", key="wrong-key")
    t.require("a wrong key: exit 4 with the status", code == 4 and "answered 401" in err, f"(exit {code}) {err}")
    code, _, err = t.run(data, "--collection", "nosuch")
    t.require("an unknown collection: exit 4 with the problem's detail",
              code == 4 and "answered 404" in err and "nosuch" in err, f"(exit {code}) {err}")


def help_text(t):
    done = subprocess.run([t.binary, "import", "--help"], capture_output=True, text=True, timeout=60)
    t.require("import --help exits 0 and documents the options and exit codes",
              done.returncode == 0 and "--chunk-mib" in done.stdout and "--collection" in done.stdout
              and "Exit codes" in done.stdout, done.stdout[-300:])
    done = subprocess.run([t.binary, "--help"], capture_output=True, text=True, timeout=60)
    t.require("signalbox --help lists the import subcommand and the serving options",
              done.returncode == 0 and "import" in done.stdout and "--port" in done.stdout, done.stdout[:300])


CHECKS = [small_ndjson_with_schema, csv_file, gzip_file, bad_lines, big_ndjson_in_chunks, big_csv_in_chunks,
          usage_errors, server_problems, help_text]


def main(binary):
    report = Report(details_on_pass=False)
    with tempfile.TemporaryDirectory(prefix="signalbox-e2e-import-") as folder, \
            Server(binary, prefix="signalbox-e2e-import-", ready_timeout=READY_TIMEOUT) as server:
        server.start()  # `signalbox` with no subcommand still serves, with its flags
        run_checks(report, CHECKS, Import(server, report, binary, folder), seconds=IMPORT_TIMEOUT)
        server.stop_and_require_clean_exit(report)
    print(report.tally("e2e-import"))
    return report


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1]).failures else 0)
