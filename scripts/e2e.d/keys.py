"""End-to-end checks of keys (issue 29) over real sockets: private collections, stored keys scoped to
actions and collections, expiry, deletion, and tenant tokens on search, document reads, live search and
/events (a document moving in and out of the tenant's filter while a stream is open, Last-Event-ID
resumes that never replay another tenant's change).

usage: python3 scripts/e2e.d/keys.py PATH_TO_SIGNALBOX   (scripts/e2e runs it after collections.py)
Starts the binary with an admin key and keys.masterSecret on a small data set (no embedded cities to
load), then runs each function of CHECKS in order; a later check may use what an earlier one made.
Tokens are signed here with the standard library alone, as the README shows.
"""
import base64
import hashlib
import hmac
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/
from harness import Replica, Report, Server, ServerFailed, SSEReader, request, run_checks, wait_until  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MASTER_SECRET = "e2e master secret, 32 bytes long"
SCHEMA = {"id": "sku", "fields": [{"name": "title", "type": "string", "search": True},
                                  {"name": "tenant", "type": "number"}]}


def sign(key, claims):
    """A tenant token: HS256 over header.claims with the key's secret (five lines of the standard library)."""
    encode = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()  # noqa: E731
    header = encode(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = encode(json.dumps(claims).encode())
    signature = hmac.new(key.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{encode(signature)}"


class KeysE2E:
    def __init__(self, server, report):
        self.server, self.report, self.require = server, report, report.require
        self.keys = {}  # name → (id, key)
        self.tenant_sequence = {}  # tenant → the event id a resume starts after

    @property
    def port(self):
        return self.server.port

    def call(self, method, path, body=None, credential="admin"):
        key = self.server.key if credential == "admin" else credential
        response = request(self.port, method, path, body=body, key=key, timeout=60)
        try:
            parsed = json.loads(response.body) if response.body else None
        except ValueError:
            parsed = None
        return response.status, parsed, response.body

    def status(self, method, path, credential="admin", body=None):
        return self.call(method, path, body, credential)[0]

    def make_key(self, name, actions, collections=("shop",), expires_at=None):
        body = {"name": name, "actions": list(actions), "collections": list(collections)}
        if expires_at:
            body["expiresAt"] = expires_at
        status, made, raw = self.call("POST", "/keys", body)
        self.require(f"POST /keys makes {name}: 201 with id and key", status == 201 and made and made.get("key"), raw[:200])
        self.keys[name] = (made["id"], made["key"])
        return made["id"], made["key"]

    def put(self, sku, tenant, title="shoe"):
        status = self.status("PUT", f"/collections/shop/documents/{sku}", body={"title": title, "tenant": tenant})
        self.require(f"PUT {sku} (tenant {tenant})", status == 204, status)


def setup(e):
    e.report.section("a private collection")
    e.require("PUT /collections/shop", e.status("PUT", "/collections/shop", body=SCHEMA) == 201)
    e.require("PUT /collections/other", e.status("PUT", "/collections/other", body=SCHEMA) == 201)
    for sku, tenant in [("a1", 1), ("a2", 1), ("b1", 2)]:
        e.put(sku, tenant)


def boundaries(e):
    e.report.section("each action and collection boundary")
    for path in ["/collections/shop/search?q=shoe", "/collections/shop/documents/a1", "/collections/shop",
                 "/collections/shop/search/live?q=shoe", "/events?collection=shop"]:
        if "live" in path or "events" in path:
            reader = SSEReader(e.port, path)
            reader.close()
            status = reader.status
        else:
            status = e.status("GET", path, credential=None)
        e.require(f"no key: GET {path.split('?')[0]} is 401", status == 401, status)
    e.require("no key: a public collection (the data set's cities) is searched", e.status("GET", "/collections/cities/search?q=a", None) == 200)
    listed = e.call("GET", "/collections", credential=None)[1]
    e.require("no key: GET /collections lists the public collections only",
              [c["name"] for c in listed["collections"]] == ["cities"], listed)
    key_ids = {}
    for name, actions in [("search", ["search"]), ("read", ["documents.read"]), ("write", ["documents.write"]),
                          ("schemas", ["collections.write"]), ("events", ["events"]), ("manage", ["keys.manage"])]:
        key_ids[name] = e.make_key(name, actions)[1]
    requests = [  # (action, method, path, body)
        ("search", "GET", "/collections/shop/search?q=shoe", None),
        ("read", "GET", "/collections/shop/documents/a1", None),
        ("write", "PUT", "/collections/shop/documents/w1", {"title": "w", "tenant": 9}),
        ("schemas", "PUT", "/collections/shop", SCHEMA),
        ("manage", "GET", "/keys", None),
    ]
    for action, method, path, body in requests:
        for name, key in key_ids.items():
            status = e.status(method, path, key, body)
            wanted = (200, 204) if name == action else (403,)
            if name == action and method == "PUT" and "documents" not in path:
                wanted = (200,)
            e.require(f"{name} key: {method} {path.split('?')[0]} is {'/'.join(map(str, wanted))}", status in wanted, status)
    for name, key in key_ids.items():
        reader = SSEReader(e.port, f"/events?collection=shop&token={key}")
        reader.close()
        e.require(f"{name} key: /events?collection=shop is {200 if name == 'events' else 403}",
                  reader.status == (200 if name == "events" else 403), reader.status)
    e.require("search key: another collection is 403", e.status("GET", "/collections/other/search?q=a", key_ids["search"]) == 403)
    star = e.make_key("star", ["search"], ["*"])[1]
    e.require("a key for collections [\"*\"] reaches other", e.status("GET", "/collections/other/search?q=a", star) == 200)
    e.require("a made-up key is 401", e.status("GET", "/collections/shop/search?q=a", "sbk_" + "0" * 24 + "_" + "A" * 43) == 401)
    status, listed, raw = e.call("GET", "/keys")
    e.require("GET /keys lists every key without a secret",
              status == 200 and len(listed["keys"]) == 7 and all("key" not in k for k in listed["keys"])
              and not any(key.encode() in raw for key in key_ids.values()), raw[:200])
    e.require("an expiresAt in the past is a 400 problem",
              e.status("POST", "/keys", body={"actions": ["search"], "collections": ["shop"], "expiresAt": "2001-01-01T00:00:00Z"}) == 400)


def expiry_and_deletion(e):
    e.report.section("expiry and deletion")
    soon = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3))
    _, key = e.make_key("short", ["search"], expires_at=soon)
    e.require("a key before its expiry searches", e.status("GET", "/collections/shop/search?q=shoe", key) == 200)
    refused = wait_until(lambda: e.status("GET", "/collections/shop/search?q=shoe", key) == 401, timeout=10)
    e.require("the same key after its expiry is 401", refused)
    key_id, key = e.make_key("doomed", ["search", "events"])
    reader = SSEReader(e.port, f"/events?token={key}")
    reader.close()
    e.require("a key works before its deletion", e.status("GET", "/collections/shop/search?q=shoe", key) == 200 and reader.status == 200)
    e.require("DELETE /keys/{id} is 204", e.status("DELETE", f"/keys/{key_id}") == 204)
    e.require("the deleted key is refused at once: search 401", e.status("GET", "/collections/shop/search?q=shoe", key) == 401)
    reader = SSEReader(e.port, f"/events?token={key}")
    reader.close()
    e.require("the deleted key is refused at once: /events 401", reader.status == 401, reader.status)


def tenant_search_and_documents(e):
    e.report.section("tenant tokens: search and documents")
    key_id, key = e.make_key("tenants", ["search", "documents.read", "events"])
    e.tokens = {t: sign(key, {"apiKeyId": key_id, "searchRules": {"shop": {"filter": f"tenant = {t}"}}, "exp": int(time.time()) + 3600})
                for t in (1, 2)}

    def skus(token, **parameters):
        query = urllib.parse.urlencode({"q": "shoe", **parameters})
        status, body, _ = e.call("GET", f"/collections/shop/search?{query}", credential=token)
        return status, sorted(h["id"] for h in (body or {}).get("hits", []))

    e.require("tenant 1 searches its rows only", skus(e.tokens[1]) == (200, ["a1", "a2"]), skus(e.tokens[1]))
    e.require("tenant 2 searches its rows only", skus(e.tokens[2]) == (200, ["b1"]), skus(e.tokens[2]))
    e.require("a request's OR does not widen the rule", skus(e.tokens[1], filter="tenant = 2 OR tenant = 1") == (200, ["a1", "a2"]))
    e.require("tenant 1 reads its document", e.status("GET", "/collections/shop/documents/a1", e.tokens[1]) == 200)
    e.require("tenant 1 gets 404 for tenant 2's document", e.status("GET", "/collections/shop/documents/b1", e.tokens[1]) == 404)
    e.require("a token is 403 on a collection without a rule", e.status("GET", "/collections/other/search?q=a", e.tokens[1]) == 403)
    e.require("a token may not write: 403", e.status("PUT", "/collections/shop/documents/a1", e.tokens[1], {"title": "x", "tenant": 1}) == 403)
    expired = sign(key, {"apiKeyId": key_id, "searchRules": {"shop": None}, "exp": int(time.time()) - 5})
    e.require("an expired token is 401", e.status("GET", "/collections/shop/search?q=shoe", expired) == 401)
    forged = sign("not-the-key", {"apiKeyId": key_id, "searchRules": {"shop": None}})
    e.require("a token with a bad signature is 401", e.status("GET", "/collections/shop/search?q=shoe", forged) == 401)


def tenant_streams(e):
    e.report.section("tenant tokens: /events and live search while documents move")
    stop = threading.Event()
    events = {t: SSEReader(e.port, f"/events?token={e.tokens[t]}", stop=stop) for t in (1, 2)}
    live = SSEReader(e.port, "/collections/shop/search/live?" + urllib.parse.urlencode({"q": "", "token": e.tokens[1]}), stop=stop)
    for reader in [*events.values(), live]:
        reader.start()
    try:
        e.require("the streams answer 200", all(r.status == 200 for r in [*events.values(), live]))
        wait_until(lambda: live.count("result") >= 1, 30)
        first = json.loads(live.events[-1].data)
        e.require("live search: tenant 1's rows", first.get("total") == 2, first)
        for t in (1, 2):
            wait_until(lambda: events[t].last_id is not None, 10)
            e.tenant_sequence[t] = events[t].last_id
        e.put("m1", 2)      # tenant 2's
        e.put("m1", 1)      # moves into tenant 1's filter
        e.put("m1", 2)      # and out again
        e.put("a9", 1)      # a marker for tenant 1
        e.put("b9", 2)      # a marker for tenant 2
        wait_until(lambda: any('"a9"' in x.data for x in events[1].events) and any('"b9"' in x.data for x in events[2].events), 30)
        seen = {t: [(x.event, json.loads(x.data)["id"]) for x in events[t].events if x.event] for t in (1, 2)}
        e.require("tenant 1 sees m1 come in, leave as document.deleted, then its marker",
                  seen[1] == [("document.upserted", "m1"), ("document.deleted", "m1"), ("document.upserted", "a9")], seen[1])
        e.require("tenant 2 sees m1 as written, leave, come back, then its marker",
                  seen[2] == [("document.upserted", "m1"), ("document.deleted", "m1"), ("document.upserted", "m1"), ("document.upserted", "b9")],
                  seen[2])
        leaks = [x.data for x in events[1].events if '"tenant":2' in x.data] + [x.data for x in events[2].events if '"tenant":1' in x.data]
        e.require("no upsert of one tenant's document ever reaches the other", not leaks, leaks)
        wait_until(lambda: json.loads(live.events[-1].data).get("total") == 3 and live.count("result") >= 3, 30)
        results = [json.loads(x.data) for x in live.events if x.event == "result"]
        totals = [r["total"] for r in results]
        foreign = [h for r in results for h in r.get("hits", []) if h.get("document", {}).get("tenant") != 1]
        # Results may coalesce changes that come close together: the order of totals is not required.
        e.require("live search: m1 and the marker come in (total 3 at the end), no result ever holds tenant 2's rows",
                  totals[-1] == 3 and not foreign, (totals, foreign[:2]))
    finally:
        stop.set()
        for reader in [*events.values(), live]:
            reader.join(10)


def resumes(e):
    e.report.section("tenant tokens: Last-Event-ID resumes")
    for t, other in ((1, 2), (2, 1)):
        reader = SSEReader(e.port, f"/events?token={e.tokens[t]}", last_event_id=e.tenant_sequence[t], stop=threading.Event())
        reader.start()
        try:
            marker = '"a9"' if t == 1 else '"b9"'
            wait_until(lambda: any(marker in x.data for x in reader.events) or reader.ended, 30)
            replay = [(x.event, json.loads(x.data)) for x in reader.events if x.event]
            wrong = [d for kind, d in replay if kind == "document.upserted" and d["document"]["tenant"] != t]
            e.require(f"tenant {t}'s resume replays its view only (never tenant {other}'s rows)",
                      replay and not wrong and any(marker.strip('"') == d["id"] for _, d in replay), replay)
        finally:
            reader.stop.set()
            reader.join(10)


def secrets_stay_out_of_the_log(e):
    e.report.section("the log")
    log = e.server.log_text()
    leaked = [name for name, (_, key) in e.keys.items() if key in log] + [t for t, token in e.tokens.items() if token in log]
    e.require("no key and no token in the log (token= values dropped)", not leaked and "token=REDACTED" in log, leaked)


CHECKS = [setup, boundaries, expiry_and_deletion, tenant_search_and_documents, tenant_streams, resumes, secrets_stay_out_of_the_log]


def deletion_on_another_replica(binary, data, report):
    """Two replicas of one PostgreSQL store (scripts/pg-scratch): a key made on one works on the other;
    deleted on the first, the second refuses it within a second."""
    report.section("a key deleted on one replica, refused on another (PostgreSQL)")
    work = tempfile.mkdtemp(prefix="signalbox-e2e-keys-pg-")
    started = subprocess.run([f"{ROOT}/scripts/pg-scratch", "start", os.path.join(work, "pg")], capture_output=True, text=True)
    if started.returncode != 0:
        report.say(f"skipped: PostgreSQL does not start ({started.stderr.strip()[:200]})")
        return
    url = started.stdout.strip().splitlines()[-1]
    settings = {"keys.masterSecret": MASTER_SECRET, "data": data}
    replicas = [Replica(binary, url, work, name, settings=settings, log_level="info") for name in ("a", "b")]
    try:
        for replica in replicas:
            replica.start()
        a, b = replicas
        request(a.port, "PUT", "/collections/shop", body=SCHEMA, key=a.key)
        made = json.loads(request(a.port, "POST", "/keys", key=a.key,
                                  body={"name": "replicated", "actions": ["search"], "collections": ["shop"]}).body)
        key = made["key"]
        search = lambda replica: request(replica.port, "GET", "/collections/shop/search?q=a", key=key).status  # noqa: E731
        report.require("a key made on replica a works on replica b", wait_until(lambda: search(b) == 200, 10), search(b))
        deleted = request(a.port, "DELETE", f"/keys/{made['id']}", key=a.key)
        answered = time.monotonic()
        refused = wait_until(lambda: search(b) == 401, 5, interval=0.02)
        took = time.monotonic() - answered
        report.require("replica b refuses the key deleted on replica a within a second",
                       deleted.status == 204 and refused and took < 1.0, f"{took * 1000:.0f} ms after the 204")
        report.say(f"replica b refused the deleted key {took * 1000:.0f} ms after replica a answered the DELETE")
        for replica in replicas:
            replica.stop_and_require_clean_exit(report)
    except ServerFailed as failure:
        report.require("the replicas start", False, str(failure)[-400:])
    finally:
        for replica in replicas:
            if replica.process is not None:
                replica.cleanup()
        subprocess.run([f"{ROOT}/scripts/pg-scratch", "stop", os.path.join(work, "pg")], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


def main(binary):
    report = Report("keys and tenant tokens (issue 29)", details_on_pass=False)
    data = tempfile.NamedTemporaryFile("w", suffix=".ndjson", delete=False)
    for n in range(50):
        data.write(json.dumps({"id": f"c{n}", "name": f"Town {n} a", "rank": n}) + "\n")
    data.close()
    with Server(binary, settings={"keys.masterSecret": MASTER_SECRET, "data": data.name}, log_level="info",
                prefix="signalbox-e2e-keys-") as server:
        try:
            server.start()
        except ServerFailed as failure:
            report.require("the server starts", False, str(failure)[-400:])
            report.finish()
        run_checks(report, CHECKS, KeysE2E(server, report))
        if server.alive():
            server.stop_and_require_clean_exit(report)
        if report.failures:
            sys.stdout.write(server.log_tail(40))
    deletion_on_another_replica(binary, data.name, report)
    os.unlink(data.name)
    report.finish()


if __name__ == "__main__":
    main(sys.argv[1])
