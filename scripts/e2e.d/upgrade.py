#!/usr/bin/env python3
"""The store upgrade from the release before collections (commit 1dd7cca, issue 25), over real sockets.

usage: python3 scripts/e2e.d/upgrade.py PATH_TO_SIGNALBOX --old-binary PATH_TO_1dd7cca_SIGNALBOX [--no-postgres]

For SQLite, then PostgreSQL (a throwaway cluster from scripts/pg-scratch): the old binary starts on a
fresh store and writes, overwrites and deletes documents (new ones and embedded cities) while an
/events client notes every event; it stops, and the new binary starts on the same store. Required:
every document as the old binary served it (deleted ones stay deleted), `GET /collections` lists
`cities` with the same document count, the next write's id is the old head + 1, a `Last-Event-ID`
resume from an old id replays exactly the old events after it (the same ids, kinds and documents,
each now naming its collection), and all of it again after a second start of the new binary.

What a resume can replay differs by store, as the stores differ: the release's PostgreSQL store kept a
change log, so any old id within it resumes; its SQLite store kept only the latest write of each
document, so a resume is served from the newest old id after which every change is still stored (the
writes below make that id 2), and an older id gets a `reset`, never a wrong replay.

The old binary may also be a release with collections (its SQLite store at migration v4, documents in
three B-trees; v5 keys them by sequence): the same checks run, and as its SQLite store has a change
log, a resume from any old id is served, as on PostgreSQL.

Without --old-binary the script says so and exits 0 (skipped): CI runs it once it has such a binary.
Without PostgreSQL (scripts/pg-scratch exits 3) or with --no-postgres, the PostgreSQL part is skipped.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/
from harness import Report, Server, ServerFailed, SSEReader, get, request, run_checks, wait_until  # noqa: E402

PG_SCRATCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pg-scratch")
# Debug binaries load the embedded cities slowly on a busy machine.
READY_SECONDS = 400
# How long an event the checks wait for may take to arrive.
EVENT_SECONDS = 30
PARIS, LONDON, TOKYO = "2988507", "2643743", "1850147"  # embedded cities (GeoNames ids)


def city(name, rank):
    return {"name": name, "alternateNames": [f"{name} alias"], "rank": rank, "attributes": {"countryCode": "FR"}}


# What the old binary does, in order: (method, id, body). Ids 1 and 2 are overwritten later (up-1
# deleted at 6, up-2 written again at 7), so an old SQLite store keeps changes 3 to 10 only.
OLD_WRITES = [
    ("PUT", "up-1", city("Upgrade One", 1)),
    ("PUT", "up-2", city("Upgrade Two", 2)),
    ("PUT", "up-3", city("Upgrade Three", 3)),
    ("PUT", "up-4", city("Upgrade Four", 4)),
    ("PUT", PARIS, city("Paris Upgraded", 5)),
    ("DELETE", "up-1", None),
    ("PUT", "up-2", city("Upgrade Two Again", 7)),
    ("DELETE", LONDON, None),
    ("PUT", "up-5", city("Upgrade Five", 9)),
    ("PUT", "up-6", city("Upgrade Six", 10)),
]
# The newest old id after which an old SQLite store still holds every change.
SQLITE_RESUMABLE_FROM = 2
WATCHED = ["up-1", "up-2", "up-3", "up-4", "up-5", "up-6", PARIS, LONDON, TOKYO]


class Old:
    """What the old binary left: its events (id → (event, data)), its head, its document count,
    and every watched document as it served it (None: 404)."""

    def __init__(self):
        self.events, self.head, self.count, self.documents = {}, None, None, {}
        # Whether the old binary already had collections (and so a SQLite change log of its own).
        self.has_collections = False


class Upgrade:
    def __init__(self, report, new_binary, old_binary, store, label, workdir):
        self.report, self.require = report, report.require
        self.new_binary, self.old_binary, self.store, self.label, self.workdir = new_binary, old_binary, store, label, workdir
        self.old = Old()
        self.server = None

    def start(self, binary, name):
        server = Server(binary, name=name, store=self.store, workdir=self.workdir, log_level=None, ready_timeout=READY_SECONDS)
        try:
            server.start()
        except ServerFailed as error:
            self.require(f"{name} starts on the {self.label} store", False, str(error)[-3000:])
            return None
        self.server = server
        return server

    def resumed(self, last_event_id, path="/events", until=None):
        """The events a resume from `last_event_id` brings until `until(reader)` holds (or EVENT_SECONDS pass)."""
        reader = SSEReader(self.server.port, path, last_event_id=str(last_event_id), stop=threading.Event())
        reader.start()
        try:
            wait_until(lambda: until(reader) or reader.count("reset") > 0 or reader.ended is not None, EVENT_SECONDS)
        finally:
            end(reader)
        return reader

    def replayed(self, reader):
        """(id, event, data) of each change a reader received (its position, resets and heartbeats left out)."""
        return [(int(e.id), e.event, json.loads(e.data)) for e in reader.events if e.event and e.event != "reset"]

    def expected_replay(self, after):
        """The old events after `after`, as the new binary sends them: each naming the cities."""
        return [(i, event, {"collection": "cities", **data}) for i, (event, data) in sorted(self.old.events.items()) if i > after]


def end(reader):
    """Ends a started reader from its own thread, which closes the socket (a close from here could
    come before that thread first reads, which then fails on a closed descriptor)."""
    reader.stop.set()
    reader.join(10)


def documents_of(port, ids):
    answers = {}
    for doc_id in ids:
        response = get(port, f"/documents/{doc_id}")
        answers[doc_id] = json.loads(response.body) if response.status == 200 else (None if response.status == 404 else response.status)
    return answers


# ---------------------------------------------------------------------------------------------
# The checks, in order


def old_binary_writes(u):
    u.report.section(f"{u.label}: the old binary writes")
    server = u.start(u.old_binary, "old")
    if server is None:
        raise RuntimeError("the old binary did not start")
    events = SSEReader(server.port, "/events", stop=threading.Event())
    events.start()
    sequences = []
    try:
        for method, doc_id, body in OLD_WRITES:
            answer = request(server.port, method, f"/documents/{doc_id}", body=body, key=server.key)
            sequences.append(int(answer.headers.get("signalbox-seq", "0")) if answer.status == 204 else answer.status)
        wait_until(lambda: len([e for e in events.events if e.event]) >= len(OLD_WRITES), EVENT_SECONDS)
    finally:
        end(events)
    u.require("the old binary numbers its writes 1 to 10 (Signalbox-Seq)", sequences == list(range(1, len(OLD_WRITES) + 1)), sequences)
    u.old.events = {int(e.id): (e.event, json.loads(e.data)) for e in events.events if e.event}
    u.require("its /events sent every write once, with the same ids", sorted(u.old.events) == sequences, sorted(u.old.events))
    u.old.head = max(sequences)
    u.old.has_collections = get(server.port, "/collections").status == 200
    u.old.count = server.metric("signalbox_documents")
    u.old.documents = documents_of(server.port, WATCHED)
    u.require("it serves what it was sent (deleted ones 404)",
              u.old.documents["up-1"] is None and u.old.documents[LONDON] is None
              and u.old.documents["up-2"]["name"] == "Upgrade Two Again" and u.old.documents[PARIS]["name"] == "Paris Upgraded",
              {k: v and v.get("name") for k, v in u.old.documents.items()})
    u.require("the old binary exits 0 on SIGTERM", server.stop() == 0)
    server.cleanup()
    u.server = None


def new_binary_serves_every_document(u):
    u.report.section(f"{u.label}: the new binary on the old store")
    server = u.start(u.new_binary, "new")
    if server is None:
        raise RuntimeError("the new binary did not start on the old store")
    status = server.status()
    u.require("/readyz: ready at the old head", status.get("status") == "ready" and status.get("head") == u.old.head
              and status.get("applied") == u.old.head, status)
    now = documents_of(server.port, WATCHED)
    u.require("every document as the old binary served it; deleted ones still 404", now == u.old.documents,
              {k: (u.old.documents[k] and u.old.documents[k].get("name"), v and v.get("name")) for k, v in now.items() if v != u.old.documents[k]})
    through_collection = {}
    for doc_id in WATCHED:
        response = get(server.port, f"/collections/cities/documents/{doc_id}")
        through_collection[doc_id] = json.loads(response.body) if response.status == 200 else (None if response.status == 404 else response.status)
    # The collection's shape of a city: its attributes flattened, the rank as `population`.
    def as_city(document):
        return document and {"id": document["id"], "name": document["name"], "alternateNames": document["alternateNames"],
                             "population": document["rank"], "countryCode": document.get("attributes", {}).get("countryCode")}

    def collection_city(document):
        return document and {k: document.get(k) for k in ("id", "name", "alternateNames", "population", "countryCode")}

    differ = [k for k in WATCHED if collection_city(through_collection[k]) != as_city(u.old.documents[k])]
    u.require("and the same cities through /collections/cities/documents/{id}", not differ,
              {k: (through_collection[k], u.old.documents[k]) for k in differ[:2]})
    hits = json.loads(get(server.port, "/search?q=upgrade%20five").body)["hits"]
    u.require("an old write is searchable", hits and hits[0]["id"] == "up-5", [h["id"] for h in hits[:3]])
    listed = json.loads(get(server.port, "/collections").body)["collections"]
    cities = next((c for c in listed if c["name"] == "cities"), None)
    u.require("GET /collections lists cities with the old document count", cities is not None and cities["documents"] == u.old.count,
              (u.old.count, cities and cities["documents"], [c["name"] for c in listed]))
    u.require("signalbox_documents is the old count", server.metric("signalbox_documents") == u.old.count)


def resume_across_the_upgrade(u, after_restart=False):
    u.report.section(f"{u.label}: Last-Event-ID across the upgrade" + (" (after a second start)" if after_restart else ""))
    head = u.server.status().get("head")
    # Only a SQLite store of the release before collections lacks a change log of its own.
    sqlite = u.label == "SQLite" and not u.old.has_collections
    resumable = SQLITE_RESUMABLE_FROM if sqlite else 0
    expected = u.expected_replay(resumable)
    reader = u.resumed(resumable, until=lambda r: len(u.replayed(r)) >= head - resumable)
    got = u.replayed(reader)
    u.require(f"a resume from old id {resumable} replays exactly the old events after it", got[:len(expected)] == expected,
              {"expected": [x[:2] for x in expected], "got": [x[:2] for x in got]})
    u.require("then the later ones, in order, each once", [x[0] for x in got] == list(range(resumable + 1, head + 1)), [x[0] for x in got])
    reader = u.resumed(resumable, "/events?collection=cities", until=lambda r: len(u.replayed(r)) >= len(expected))
    got = u.replayed(reader)
    u.require("the same on /events?collection=cities", got[:len(expected)] == expected, [x[:2] for x in got])
    middle = u.old.head - 3
    reader = u.resumed(middle, until=lambda r: len(u.replayed(r)) >= head - middle)
    u.require(f"a resume from old id {middle} replays the old events after it", u.replayed(reader)[:3] == u.expected_replay(middle),
              [x[:2] for x in u.replayed(reader)])
    if sqlite:
        reader = u.resumed(resumable - 1, until=lambda r: r.count("reset") >= 1)
        u.require(f"a resume from old id {resumable - 1} (its next change is no longer stored) gets a reset, no replay",
                  reader.count("reset") == 1 and not u.replayed(reader), [(e.id, e.event) for e in reader.events])


def ids_continue(u):
    u.report.section(f"{u.label}: new writes continue the old ids")
    server = u.server
    live = SSEReader(server.port, "/events", last_event_id=str(u.old.head), stop=threading.Event())
    live.start()
    try:
        answer = request(server.port, "PUT", "/documents/up-7", body=city("Upgrade Seven", 11), key=server.key)
        u.require("the next write's id is the old head + 1", answer.status == 204 and answer.headers.get("signalbox-seq") == str(u.old.head + 1),
                  (answer.status, answer.headers.get("signalbox-seq")))
        schema = {"public": True, "fields": [{"name": "title", "type": "string", "search": True}]}
        created = request(server.port, "PUT", "/collections/books", body=schema, key=server.key)
        book = request(server.port, "PUT", "/collections/books/documents/b1", body={"title": "After the upgrade"}, key=server.key)
        u.require("a collection created after the upgrade takes the next ids",
                  created.status == 201 and created.headers.get("signalbox-seq") == str(u.old.head + 2)
                  and book.status == 204 and book.headers.get("signalbox-seq") == str(u.old.head + 3),
                  (created.status, created.headers.get("signalbox-seq"), book.status, book.headers.get("signalbox-seq")))
        lines = "\n".join(json.dumps({"id": f"b{n}", "title": f"Imported {n}"}) for n in (2, 3, 4)) + "\n{\"title\": 5}"
        imported = request(server.port, "POST", "/collections/books/documents", body=lines,
                           headers={"Content-Type": "application/x-ndjson"}, key=server.key)
        u.require("an import's Signalbox-Seq is its last change (three documents, a bad line after them)",
                  imported.status == 200 and imported.headers.get("signalbox-seq") == str(u.old.head + 6), (imported.status, imported.headers, imported.body[:200]))
        wait_until(lambda: len([e for e in live.events if e.event]) >= 6 or live.ended is not None, EVENT_SECONDS)
    finally:
        end(live)
    seen = [(int(e.id), e.event, json.loads(e.data).get("id")) for e in live.events if e.event]
    head = u.old.head
    u.require("a client resuming at the old head gets them, in order, the import's last at its Signalbox-Seq",
              seen == [(head + 1, "document.upserted", "up-7"), (head + 2, "collection.created", None), (head + 3, "document.upserted", "b1"),
                       (head + 4, "document.upserted", "b2"), (head + 5, "document.upserted", "b3"), (head + 6, "document.upserted", "b4")], seen)


def second_start(u):
    u.report.section(f"{u.label}: the upgraded store, opened again")
    documents = documents_of(u.server.port, WATCHED + ["up-7"])
    u.require("SIGTERM exits 0", u.server.stop() == 0)
    u.server.cleanup()
    server = u.start(u.new_binary, "new-again")
    if server is None:
        raise RuntimeError("the new binary did not start again on the upgraded store")
    status = server.status()
    u.require("ready at the same head", status.get("head") == u.old.head + 6, status)
    u.require("every document is still there", documents_of(server.port, WATCHED + ["up-7"]) == documents)
    book = get(server.port, "/collections/books/documents/b1")
    u.require("and the collection made after the upgrade", book.status == 200 and json.loads(book.body)["title"] == "After the upgrade", book.status)


def resume_after_the_second_start(u):
    resume_across_the_upgrade(u, after_restart=True)


def clean_exit(u):
    u.server.stop_and_require_clean_exit(u.report)


CHECKS = [old_binary_writes, new_binary_serves_every_document, resume_across_the_upgrade, ids_continue, second_start,
          resume_after_the_second_start, clean_exit]


def run(report, new_binary, old_binary, store, label, workdir):
    upgrade = Upgrade(report, new_binary, old_binary, store, label, workdir)
    try:
        for check in CHECKS:
            before = len(report.failures)
            # A check that starts a server may wait READY_SECONDS for it on a busy machine.
            run_checks(report, [check], upgrade, seconds=READY_SECONDS + 200)
            if check is old_binary_writes:
                if len(report.failures) > before:
                    report.say(f"{label}: the old binary did not write its store as planned; the rest of this part is skipped")
                    return
            elif check is not CHECKS[-1] and (upgrade.server is None or not upgrade.server.alive()):
                report.say(f"{label}: the new binary is not running; the rest of this part is skipped")
                return
    finally:
        if upgrade.server is not None:
            if upgrade.server.alive() and report.failures:
                sys.stdout.write(upgrade.server.log_tail(30))
            upgrade.server.cleanup()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", help="the signalbox binary under test")
    parser.add_argument("--old-binary", help="a signalbox binary built from commit 1dd7cca (the release before collections), "
                        "or from a release with collections (2cd0d80)")
    parser.add_argument("--no-postgres", action="store_true", help="the SQLite part only")
    args = parser.parse_args()
    if not args.old_binary:
        print("e2e upgrade: skipped — no --old-binary given (a signalbox built from commit 1dd7cca: "
              "git worktree add DIR 1dd7cca && swift build --package-path DIR --product signalbox)")
        return 0
    report = Report(f"store upgrade from {os.path.basename(args.old_binary)} to {os.path.basename(args.binary)}", details_on_pass=False)
    with tempfile.TemporaryDirectory(prefix="signalbox-e2e-upgrade-") as work:
        sqlite_dir = os.path.join(work, "sqlite")
        os.makedirs(sqlite_dir)
        run(report, args.binary, args.old_binary, os.path.join(sqlite_dir, "store.sqlite"), "SQLite", sqlite_dir)
        if args.no_postgres:
            report.say("PostgreSQL: skipped (--no-postgres)")
        else:
            pg_dir, pg_work = os.path.join(work, "pg"), os.path.join(work, "pg-servers")
            os.makedirs(pg_work)
            started = subprocess.run([PG_SCRATCH, "start", pg_dir], capture_output=True, text=True)
            if started.returncode == 3:
                report.say("PostgreSQL: skipped — not installed (scripts/pg-scratch exits 3)")
            elif report.require("scripts/pg-scratch starts a throwaway PostgreSQL", started.returncode == 0, started.stderr[-2000:]):
                try:
                    run(report, args.binary, args.old_binary, started.stdout.strip(), "PostgreSQL", pg_work)
                finally:
                    subprocess.run([PG_SCRATCH, "stop", pg_dir], capture_output=True)
    print(report.tally("e2e upgrade"))
    report.finish()


if __name__ == "__main__":
    sys.exit(main())
