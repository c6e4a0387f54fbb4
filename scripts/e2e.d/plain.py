#!/usr/bin/env python3
"""End-to-end checks of a running signalbox binary with real clients.

usage: python3 scripts/e2e.d/plain.py PATH_TO_SIGNALBOX   (scripts/e2e runs it)
Starts the binary on a free port with a fresh store, then checks every
endpoint with curl and httpx, /events with an SSE client (httpx-sse),
coalescing, disposal of dropped SSE clients, live configuration by SIGHUP,
a clean SIGTERM exit with a stream open, and a restart on the same store.
Each check is a function of CHECKS, run in that order.
"""
import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

import httpx
import httpx_sse
import jsonschema
import yaml

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/
from harness import Report, Server, ServerFailed, SSEReader, curl, run_checks, wait_until  # noqa: E402

DOC = {"name": "Zyxwopolis", "alternateNames": ["Zyx"], "rank": 42, "attributes": {"countryCode": "ZZ"}}


class E2E:
    """What the checks share: the server, the report, the served OpenAPI document, and what one check
    leaves for a later one (the id of the first event)."""

    def __init__(self, server, report):
        self.server, self.report, self.base = server, report, server.base
        self.require = report.require
        self.auth = ["-H", f"Authorization: Bearer {server.key}"]
        self.first_event_id = 0
        self.deleted = False  # e2e-1's DELETE was answered 204: the resume has an event to find
        self._spec = None

    @property
    def spec(self):
        if self._spec is None:
            self._spec = yaml.safe_load(httpx.get(f"{self.base}/openapi.yaml").text)
        return self._spec

    def conforms(self, name, value):
        schema = {"$ref": f"#/components/schemas/{name}", "components": self.spec["components"]}
        try:
            jsonschema.validate(value, schema)
            return True
        except jsonschema.ValidationError as error:
            print(f"       schema {name}: {error.message}")
            return False

    def put(self, doc_id, document, *headers):
        return curl("-X", "PUT", *headers, "-H", "Content-Type: application/json", "--data", document,
                    f"{self.base}/documents/{doc_id}")

    def metric(self, name):
        return self.server.metric(name) or 0.0

    def follow(self, headers=None, count=1, connected=None, positions=None):
        """A real SSE client (httpx-sse) on /events: the first `count` events; the ids of id-only
        blocks (they set Last-Event-ID and carry no event) go to `positions`."""
        with httpx.Client(timeout=15) as client:
            with httpx_sse.connect_sse(client, "GET", f"{self.base}/events", headers=headers or {}) as source:
                if connected:
                    connected.set()
                received = []
                for event in source.iter_sse():
                    if not event.data and event.event == "message":
                        if positions is not None:
                            positions.append(event.id)
                        continue
                    received.append(event)
                    if len(received) >= count:
                        return received
        return []


def readable_paths_answer_as_documented(e):
    e.report.section("openapi")
    for path, operations in e.spec["paths"].items():
        url = e.base + path.replace("{id}", "3448439") + ("?q=lisb" if path.startswith("/search") else "")
        for method, operation in operations.items():
            if method != "get":
                continue  # writes are checked below; here every readable path must answer as documented
            args = ["--max-time", "2"] if "event-stream" in json.dumps(operation) else []
            try:
                status, headers, _ = curl(*args, url)
            except subprocess.CalledProcessError as error:  # a stream cut by --max-time
                status = 200 if error.returncode == 28 else -1
            e.require(f"GET {path} answers a documented status", str(status) in operation["responses"], f"({status})")


def operations(e):
    e.report.section("operations")
    status, headers, body = curl(f"{e.base}/healthz")
    e.require("GET /healthz 200", status == 200 and json.loads(body)["status"] == "ok")
    status, headers, body = curl(f"{e.base}/readyz")
    e.require("GET /readyz 200", status == 200 and e.conforms("Status", json.loads(body)))
    status, headers, body = curl(f"{e.base}/openapi.yaml")
    e.require("GET /openapi.yaml 200 yaml", status == 200 and "yaml" in headers.get("content-type", "") and "openapi: 3.1" in body)
    status, headers, body = curl(f"{e.base}/metrics")
    e.require("GET /metrics is Prometheus text", status == 200 and "http_requests_total" in body)
    status, headers, body = curl(f"{e.base}/nope")
    e.require("unknown path 404 problem", status == 404 and headers.get("content-type", "").startswith("application/problem+json")
              and json.loads(body)["status"] == 404)
    status, headers, body = curl("-X", "POST", f"{e.base}/healthz")
    e.require("wrong method 405 with Allow", status == 405 and "GET" in headers.get("allow", ""))


def search(e):
    e.report.section("search")
    base = e.base
    status, headers, body = curl(f"{base}/search?q=" + urllib.parse.quote("sao pa"))
    result = json.loads(body)
    e.require("GET /search?q=sao pa 200 conforms", status == 200 and e.conforms("SearchResponse", result))
    e.require("sao pa finds São Paulo first", result["hits"] and result["hits"][0]["name"] == "São Paulo", result["hits"][:1])
    hit = result["hits"][0]
    e.require("highlight covers the matched part", hit["highlight"] and hit["highlight"][0][0] == 0)
    etag = headers.get("etag")
    status, headers, body = curl("-H", f"If-None-Match: {etag}", f"{base}/search?q=" + urllib.parse.quote("sao pa"))
    e.require("If-None-Match gives 304", status == 304 and body == "")
    status, _, body = curl(f"{base}/search?q=paris&country=FR&limit=3")
    result = json.loads(body)
    e.require("country filter and limit", status == 200 and len(result["hits"]) <= 3
              and all(h["attributes"]["countryCode"] == "FR" for h in result["hits"]))
    status, _, body = curl(f"{base}/search?q=amsterdma")
    e.require("typo amsterdma finds Amsterdam", status == 200 and json.loads(body)["hits"][0]["name"] == "Amsterdam")
    status, headers, body = curl(f"{base}/search")
    e.require("missing q is a 400 problem", status == 400 and headers.get("content-type", "").startswith("application/problem+json"))
    status, _, _ = curl(f"{base}/search?q=x&limit=1000")
    e.require("limit beyond 100 is 400", status == 400)
    status, _, _ = curl(f"{base}/search?q=x&country=France")
    e.require("a malformed country code is 400", status == 400)
    status, _, _ = curl(f"{base}/search?q=x&country=%C3%9F")
    e.require("a non-ASCII country code is 400 (ß uppercases to SS)", status == 400)
    # curl sends the UTF-8 bytes as they are (the README's own example); a Latin-1 byte is not UTF-8.
    status, _, body = curl(f"{base}/search?q=москва")
    e.require("raw UTF-8 in the request target: q=москва finds Moscow", status == 200 and json.loads(body)["hits"][0]["name"] == "Moscow")
    status, _, body = curl("--path-as-is", f"{base}/search?q=caf\xe9".encode("latin-1").decode("utf-8", "surrogateescape"))
    e.require("invalid UTF-8 in the request target is a 400 problem", status == 400 and "not valid UTF-8" in body)
    status, _, _ = curl(f"{base}/search?q=paris&country=fr,,us,")
    e.require("country codes in either case, empty items ignored", status == 200)
    status, headers, body = curl("--compressed", "-H", "Accept-Encoding: gzip", f"{base}/search?q=a&limit=100")
    e.require("large search answer is gzip-compressed", status == 200 and headers.get("content-encoding") == "gzip"
              and len(json.loads(body)["hits"]) == 100)


def documents_and_refused_writes(e):
    e.report.section("documents")
    status, _, body = curl(f"{e.base}/documents/3448439")
    e.require("GET /documents/3448439 is São Paulo", status == 200 and json.loads(body)["name"] == "São Paulo"
              and e.conforms("Document", json.loads(body)))
    status, headers, body = curl(f"{e.base}/documents/no-such-id")
    e.require("GET unknown document 404 problem", status == 404 and headers.get("content-type", "").startswith("application/problem+json"))
    status, _, _ = e.put("e2e-1", json.dumps(DOC))
    e.require("PUT without key 401", status == 401)
    status, _, _ = e.put("e2e-1", json.dumps(DOC), "-H", "Authorization: Bearer wrong")
    e.require("PUT with a wrong key 401", status == 401)
    status, _, body = e.put("e2e-1", "{nope", *e.auth)
    e.require("PUT malformed JSON 400", status == 400 and json.loads(body)["status"] == 400)
    status, _, _ = e.put("e2e-1", '{"name": 5}', *e.auth)
    e.require("PUT wrong types 422", status == 422)
    status, _, _ = e.put("e2e-1", '{"id": "other", "name": "x"}', *e.auth)
    e.require("PUT id mismatch 422", status == 422)
    status, _, _ = curl("-X", "PUT", *e.auth, "-H", "Content-Type: text/plain", "--data", json.dumps(DOC), f"{e.base}/documents/e2e-1")
    e.require("PUT non-JSON type 415", status == 415)


def write_reaches_an_sse_client(e):
    """/events: a real SSE client sees the write (then `resume_with_last_event_id` resumes after it)."""
    events, positions, connected = [], [], threading.Event()
    # A daemon thread: one still waiting for an event that never came does not hold up the exit.
    live = threading.Thread(target=lambda: events.extend(e.follow(count=1, connected=connected, positions=positions)),
                            daemon=True)
    live.start()
    connected.wait(10)
    time.sleep(0.2)  # the subscription is made after the response head is written
    status, _, _ = e.put("e2e-1", json.dumps(DOC), *e.auth)
    e.require("PUT with the key 204", status == 204)
    live.join(timeout=15)
    e.require("SSE client receives document.upserted", events and events[0].event == "document.upserted"
              and json.loads(events[0].data)["id"] == "e2e-1", events)
    e.first_event_id = int(events[0].id) if events else 0
    e.require("a new /events client is first told the current event id", bool(positions) and positions[0].isdigit(), positions)


def write_is_visible_then_deleted(e):
    status, _, body = curl(f"{e.base}/search?q=zyxwop")
    e.require("the write is visible to the next search", status == 200 and json.loads(body)["hits"][0]["id"] == "e2e-1")
    status, _, body = curl(f"{e.base}/documents/e2e-1")
    e.require("GET the written document", status == 200 and json.loads(body)["name"] == "Zyxwopolis")
    status, _, _ = curl("-X", "DELETE", *e.auth, f"{e.base}/documents/e2e-1")
    e.deleted = e.require("DELETE 204", status == 204)
    status, _, _ = curl("-X", "DELETE", *e.auth, f"{e.base}/documents/e2e-1")
    e.require("DELETE unknown 404", status == 404)
    status, _, _ = curl(f"{e.base}/documents/e2e-1")
    e.require("deleted document 404", status == 404)


def resume_with_last_event_id(e):
    # Without the delete there is no event to resume to: the client would wait for ever.
    resumed = e.follow(headers={"Last-Event-ID": str(e.first_event_id)}, count=1) if e.deleted else []
    e.require("Last-Event-ID resume gets the missed delete", resumed and resumed[0].event == "document.deleted"
              and int(resumed[0].id) > e.first_event_id, resumed)
    reset = e.follow(headers={"Last-Event-ID": "999999999"}, count=1)
    e.require("unknown Last-Event-ID gets reset", reset and reset[0].event == "reset", reset)


def live_query(e):
    e.report.section("live query")
    updates = []
    with httpx.Client(timeout=15) as client:
        with httpx_sse.connect_sse(client, "GET", f"{e.base}/search/live?q=quuxville") as source:
            iterator = source.iter_sse()
            updates.append(json.loads(next(iterator).data))
            e.put("e2e-2", json.dumps({"name": "Quuxville", "rank": 7}), *e.auth)
            updates.append(json.loads(next(iterator).data))
    e.require("live query starts with the current result", updates[0]["total"] == 0, updates[:1])
    e.require("live query pushes the new result", len(updates) > 1 and updates[1]["hits"][0]["id"] == "e2e-2", updates[1:])


def identical_searches_coalesce(e):
    e.report.section("coalescing")
    before = e.metric("signalbox_search_computations_total")
    url = f"{e.base}/search?q=" + urllib.parse.quote("coalesce test lisb")
    with concurrent.futures.ThreadPoolExecutor(50) as pool:
        statuses = list(pool.map(lambda _: httpx.get(url, timeout=10).status_code, range(200)))
    after = e.metric("signalbox_search_computations_total")
    e.require("200 concurrent identical searches all 200", statuses.count(200) == 200)
    e.require("…and computed once", after - before == 1, f"(computations {after - before})")


def dropped_sse_client_is_disposed(e):
    e.report.section("dropped SSE client")
    clients_before = e.metric("http_sse_clients")
    stream = SSEReader(e.server.port)  # connected, its head read; never read further
    e.require("SSE client gauge rises", wait_until(lambda: e.metric("http_sse_clients") == clients_before + 1))
    stream.close()
    e.require("…and returns when the client goes away", wait_until(lambda: e.metric("http_sse_clients") == clients_before))


def sighup_reloads_the_configuration(e):
    """SIGHUP applies reloadable settings at once and refuses an invalid file."""
    e.report.section("live configuration")
    server = e.server

    def applied():
        return sum("configuration applied" in l for l in server.log_lines())

    before = applied()
    server.configure({"http": {"maxConnections": 2}})
    server.send_signal(signal.SIGHUP)
    e.require("SIGHUP applies the new file", wait_until(lambda: applied() >= before + 1))
    held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(2)]
    try:
        time.sleep(0.2)
        status, _, body = curl(f"{e.base}/healthz")
        e.require("a reloaded maxConnections takes effect (503 beyond it)", status == 503, f"(status {status})")
    finally:
        for sock in held:
            sock.close()
    server.configure({"log": {"format": "xml"}})
    server.send_signal(signal.SIGHUP)
    e.require("an invalid file is refused with a log line",
              wait_until(lambda: any("reload refused" in l and "log.format" in l for l in server.log_lines())))
    e.require("…and the server keeps serving", wait_until(lambda: healthy(e.base)))
    server.configure({"http": {"maxConnections": 10000}})
    server.send_signal(signal.SIGHUP)
    e.require("SIGHUP restores the limit", wait_until(lambda: applied() >= before + 2) and wait_until(lambda: healthy(e.base)))


def sigterm_with_an_sse_client_exits_0(e):
    """SIGTERM with an SSE client connected: drains and exits 0."""
    with httpx.Client(timeout=10) as client:
        with httpx_sse.connect_sse(client, "GET", f"{e.base}/events") as source:
            e.server.send_signal(signal.SIGTERM)
            try:
                for _ in source.iter_sse():
                    pass
            except httpx.HTTPError:
                pass
    code = e.server.wait(timeout=20)
    e.require("SIGTERM with an SSE client connected ends the server with exit code 0", code == 0, f"(exit {code})")


def restart_keeps_the_writes(e):
    e.report.section("restart")
    if not e.require("restarts on the same store", started(e.server)):
        return
    status, _, body = curl(f"{e.base}/documents/e2e-2")
    e.require("a write answered 204 survives the restart", status == 200 and json.loads(body)["name"] == "Quuxville")
    status, _, _ = curl(f"{e.base}/documents/e2e-1")
    e.require("a delete answered 204 survives the restart", status == 404)
    status, _, body = curl(f"{e.base}/search?q=quuxv")
    e.require("the index has the stored write", status == 200 and json.loads(body)["hits"][0]["id"] == "e2e-2")
    e.require("second SIGTERM exit 0", e.server.stop(timeout=20) == 0)


CHECKS = [
    readable_paths_answer_as_documented, operations, search, documents_and_refused_writes,
    write_reaches_an_sse_client, write_is_visible_then_deleted, resume_with_last_event_id, live_query,
    identical_searches_coalesce, dropped_sse_client_is_disposed, sighup_reloads_the_configuration,
    sigterm_with_an_sse_client_exits_0, restart_keeps_the_writes,
]


def healthy(base):
    try:
        return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def started(server, timeout=60):
    try:
        server.start(timeout=timeout)
        return True
    except ServerFailed:
        return False  # the log's tail is printed at the end


def main(binary):
    report = Report(details_on_pass=False)
    with Server(binary, config={"http": {"maxConnections": 10000}}, env={"SIGNALBOX_SSE_HEARTBEAT_INTERVAL": "1"},
                log_level=None, prefix="signalbox-e2e-") as server:
        if report.require("server becomes ready", started(server)):
            run_checks(report, CHECKS, E2E(server, report))
        if report.failures:
            sys.stdout.write(server.log_tail(40))
    print(report.tally("e2e"))
    return report


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1]).failures else 0)
