"""An import during the storm (issue 25's cluster check): a collection created, then DOCUMENTS documents
POSTed as NDJSON (`POST /collections/{c}/documents`) to a replica the storm does not kill, while the
writers and the kills go on. An import cut off (a database restart under it) is sent again: its
documents are upserts, so a second try only updates what the first one committed.

Afterwards every imported document must be on every replica (the collection's search paged through:
every id, none more), and every SSE client must have got an event for each, in the file's order."""
import json
import threading
import time

from cluster import report
from harness import API_KEY, request

COLLECTION = "imported"
DOCUMENTS = 10_000
# Public: the test's SSE clients and readers carry no key (collections are private by default).
SCHEMA = {"id": "id", "public": True, "fields": [{"name": "title", "type": "string", "search": True}, {"name": "n", "type": "number"}],
          "rank": "n"}
# The collection search's page and deepest offset (search.maxLimit's default, CollectionQuery.Limits.maxOffset).
PAGE = 250
MAX_OFFSET = 10_000


def document_id(n):
    return f"imp-{n:05d}"


def ndjson():
    lines = (json.dumps({"id": document_id(n), "title": f"Imported town {n}", "n": n}) for n in range(DOCUMENTS))
    return "\n".join(lines).encode()


class Importer(threading.Thread):
    """Creates the collection and imports into it on `replica` once, again until an answer counts every line."""

    def __init__(self, replica):
        super().__init__(daemon=True)
        self.replica = replica
        self.tries, self.answers = 0, []  # (status, created, updated, failed) of each try
        self.seconds = None  # the try that counted every line, until its answer
        self.last_seq = None

    def call(self, method, path, body, content_type):
        return request(self.replica.port, method, path, body=body, key=API_KEY, timeout=120,
                       headers={"Content-Type": content_type})

    def run(self):
        body = ndjson()
        deadline = time.monotonic() + 120
        created = False
        while time.monotonic() < deadline:
            try:
                if not created:
                    answer = self.call("PUT", f"/collections/{COLLECTION}", json.dumps(SCHEMA), "application/json")
                    created = answer.status in (200, 201)
                    if not created:
                        time.sleep(0.2)
                        continue
                self.tries += 1
                started = time.monotonic()
                answer = self.call("POST", f"/collections/{COLLECTION}/documents", body, "application/x-ndjson")
            except OSError as error:
                self.answers.append((repr(error), 0, 0, 0))
                time.sleep(0.2)
                continue
            result = json.loads(answer.body) if answer.status == 200 else {}
            counts = (answer.status, result.get("created", 0), result.get("updated", 0), result.get("failed", 0))
            self.answers.append(counts)
            if answer.status == 200 and counts[1] + counts[2] == DOCUMENTS and counts[3] == 0:
                self.seconds = time.monotonic() - started
                self.last_seq = int(answer.headers.get("signalbox-seq", "0"))
                return
            time.sleep(0.2)


def ids_on(replica):
    """The ids of the collection's documents on `replica`, paged through its search (None: unreadable)."""
    found = []
    for offset in range(0, MAX_OFFSET, PAGE):
        answer = request(replica.port, "GET", f"/collections/{COLLECTION}/search?q=&limit={PAGE}&offset={offset}", timeout=30)
        if answer.status != 200:
            return None
        hits = json.loads(answer.body)["hits"]
        found += [hit["id"] for hit in hits]
        if len(hits) < PAGE:
            break
    return found


def require_import(importer, replicas, clients):
    """The import counted every line; every document is on every replica; every client got each, in order."""
    report.say(f"import of {DOCUMENTS:,} documents into {COLLECTION}: {importer.tries} tries, answers "
               f"(status, created, updated, failed) {importer.answers}"
               + (f"; the last took {importer.seconds:.2f} s ({DOCUMENTS / importer.seconds:,.0f} documents/s)"
                  if importer.seconds else ""))
    report.require("the import was answered 200 counting every line, none failed", importer.seconds is not None)
    expected = [document_id(n) for n in range(DOCUMENTS)]
    wrong = []
    for replica in replicas:
        ids = ids_on(replica)
        if ids is None or sorted(ids) != expected:
            wrong.append(f"{replica.name}: {'unreadable' if ids is None else f'{len(ids)} ids, {len(set(expected) - set(ids))} missing'}")
    report.require(f"every imported document is on every replica ({len(replicas)} × {DOCUMENTS:,})", not wrong, "; ".join(wrong))
    bad = []
    for client in clients:
        seen, first_order = set(), []
        for _, event, doc_id in client.collection_events.get(COLLECTION, []):
            if event == "document.upserted" and doc_id not in seen:
                seen.add(doc_id)
                first_order.append(doc_id)
        if first_order != expected:
            bad.append(f"client {client.number}: {len(seen)} of {DOCUMENTS} documents"
                       + ("" if len(seen) < DOCUMENTS else ", out of order"))
    report.require(f"every imported document reached all {len(clients)} SSE clients, in the file's order", not bad,
                   "; ".join(bad[:5]))
