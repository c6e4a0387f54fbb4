#!/usr/bin/env python3
"""End-to-end checks of a running signalbox binary with real clients.

usage: python3 scripts/e2e.d/plain.py PATH_TO_SIGNALBOX   (scripts/e2e runs it)
Starts the binary on a free port with a fresh store, then checks every
endpoint with curl and httpx, /events with an SSE client (httpx-sse),
coalescing, disposal of dropped SSE clients, and a clean SIGTERM exit.
"""
import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import httpx
import httpx_sse
import jsonschema
import yaml

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/
from prometheus_text import metric_sum  # noqa: E402

BINARY = sys.argv[1]
KEY = "e2e-secret-key"
passed = 0
failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
        print(f"  ok   {name}")
    else:
        failed += 1
        print(f"  FAIL {name} {detail}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def curl(*args):
    """Runs curl; returns (status, headers, body)."""
    out = subprocess.run(
        ["curl", "-sS", "-D", "-", "--max-time", "10", *args], capture_output=True, check=True
    ).stdout.decode("utf-8", "replace")
    head, _, body = out.partition("\r\n\r\n")
    while head.startswith("HTTP/1.1 100"):
        head, _, body = body.partition("\r\n\r\n")
    lines = head.split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


def metric(base, name, labels=None):
    return metric_sum(httpx.get(f"{base}/metrics").text, name, labels) or 0.0


def wait_until(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def start_server(port, store, config):
    env = dict(os.environ, SIGNALBOX_API_KEY=KEY, SIGNALBOX_STORE=store, SIGNALBOX_SSE_HEARTBEAT_INTERVAL="1")
    server = subprocess.Popen(
        [BINARY, "--host", "127.0.0.1", "--port", str(port), "--config", config], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    server.log = []
    threading.Thread(target=lambda: [server.log.append(l.decode("utf-8", "replace")) for l in server.stdout],
                     daemon=True).start()
    return server


def main():
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    workdir = tempfile.mkdtemp(prefix="signalbox-e2e-")
    store = os.path.join(workdir, "store.sqlite")
    config = os.path.join(workdir, "signalbox.json")
    write_config(config, {"http": {"maxConnections": 10000}})
    server = start_server(port, store, config)
    try:
        ready = wait_until(lambda: _get_ok(f"{base}/readyz"), timeout=60)
        check("server becomes ready", ready)
        if not ready:
            return
        run_checks(base)
        check_reload(base, server, config)
        # SIGTERM with an SSE client connected: drains and exits 0.
        with httpx.Client(timeout=10) as client:
            with httpx_sse.connect_sse(client, "GET", f"{base}/events") as source:
                server.send_signal(signal.SIGTERM)
                try:
                    for _ in source.iter_sse():
                        pass
                except httpx.HTTPError:
                    pass
        code = server.wait(timeout=20)
        check("SIGTERM with an SSE client connected ends the server with exit code 0", code == 0, f"(exit {code})")

        print("restart")
        server = start_server(port, store, config)
        check("restarts on the same store", wait_until(lambda: _get_ok(f"{base}/readyz"), timeout=60))
        status, _, body = curl(f"{base}/documents/e2e-2")
        check("a write answered 204 survives the restart", status == 200 and json.loads(body)["name"] == "Quuxville")
        status, _, _ = curl(f"{base}/documents/e2e-1")
        check("a delete answered 204 survives the restart", status == 404)
        status, _, body = curl(f"{base}/search?q=quuxv")
        check("the index has the stored write", status == 200 and json.loads(body)["hits"][0]["id"] == "e2e-2")
        server.send_signal(signal.SIGTERM)
        check("second SIGTERM exit 0", server.wait(timeout=20) == 0)
    finally:
        if server.poll() is None:
            server.kill()
        if failed:
            sys.stdout.write("".join(server.log[-40:]))
    print(f"e2e: {passed} passed, {failed} failed")


def write_config(path, settings):
    with open(path, "w") as f:
        json.dump(settings, f)


def check_reload(base, server, config):
    """SIGHUP applies reloadable settings at once and refuses an invalid file."""
    print("live configuration")
    port = int(base.rsplit(":", 1)[1])

    def reloaded(count):
        return wait_until(lambda: sum("configuration applied" in l for l in server.log) >= count)

    applied = sum("configuration applied" in l for l in server.log)
    write_config(config, {"http": {"maxConnections": 2}})
    server.send_signal(signal.SIGHUP)
    check("SIGHUP applies the new file", reloaded(applied + 1))
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
    try:
        time.sleep(0.2)
        status, _, body = curl(f"{base}/healthz")
        check("a reloaded maxConnections takes effect (503 beyond it)", status == 503, f"(status {status})")
    finally:
        for sock in held:
            sock.close()
    write_config(config, {"log": {"format": "xml"}})
    server.send_signal(signal.SIGHUP)
    check("an invalid file is refused with a log line",
          wait_until(lambda: any("reload refused" in l and "log.format" in l for l in server.log)))
    check("…and the server keeps serving", wait_until(lambda: _get_ok(f"{base}/healthz")))
    write_config(config, {"http": {"maxConnections": 10000}})
    server.send_signal(signal.SIGHUP)
    check("SIGHUP restores the limit", reloaded(applied + 2) and wait_until(lambda: _get_ok(f"{base}/healthz")))


def _get_ok(url):
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def run_checks(base):
    spec = yaml.safe_load(httpx.get(f"{base}/openapi.yaml").text)

    def conforms(name, value):
        schema = {"$ref": f"#/components/schemas/{name}", "components": spec["components"]}
        try:
            jsonschema.validate(value, schema)
            return True
        except jsonschema.ValidationError as error:
            print(f"       schema {name}: {error.message}")
            return False

    auth = ["-H", f"Authorization: Bearer {KEY}"]

    print("openapi")
    for path, operations in spec["paths"].items():
        url = base + path.replace("{id}", "3448439") + ("?q=lisb" if path.startswith("/search") else "")
        for method, operation in operations.items():
            if method not in ("get", "put", "delete") or method != "get":
                continue  # writes are checked below; here every readable path must answer as documented
            args = ["--max-time", "2"] if "event-stream" in json.dumps(operation) else []
            try:
                status, headers, _ = curl(*args, url)
            except subprocess.CalledProcessError as error:  # a stream cut by --max-time
                status = 200 if error.returncode == 28 else -1
            check(f"GET {path} answers a documented status", str(status) in operation["responses"], f"({status})")

    print("operations")
    status, headers, body = curl(f"{base}/healthz")
    check("GET /healthz 200", status == 200 and json.loads(body)["status"] == "ok")
    status, headers, body = curl(f"{base}/readyz")
    check("GET /readyz 200", status == 200 and conforms("Status", json.loads(body)))
    status, headers, body = curl(f"{base}/openapi.yaml")
    check("GET /openapi.yaml 200 yaml", status == 200 and "yaml" in headers.get("content-type", "") and "openapi: 3.1" in body)
    status, headers, body = curl(f"{base}/metrics")
    check("GET /metrics is Prometheus text", status == 200 and "http_requests_total" in body)
    status, headers, body = curl(f"{base}/nope")
    check("unknown path 404 problem", status == 404 and headers.get("content-type", "").startswith("application/problem+json")
          and json.loads(body)["status"] == 404)
    status, headers, body = curl("-X", "POST", f"{base}/healthz")
    check("wrong method 405 with Allow", status == 405 and "GET" in headers.get("allow", ""))

    print("search")
    status, headers, body = curl(f"{base}/search?q=" + urllib.parse.quote("sao pa"))
    result = json.loads(body)
    check("GET /search?q=sao pa 200 conforms", status == 200 and conforms("SearchResponse", result))
    check("sao pa finds São Paulo first", result["hits"] and result["hits"][0]["name"] == "São Paulo", result["hits"][:1])
    hit = result["hits"][0]
    check("highlight covers the matched part", hit["highlight"] and hit["highlight"][0][0] == 0)
    etag = headers.get("etag")
    status, headers, body = curl("-H", f"If-None-Match: {etag}", f"{base}/search?q=" + urllib.parse.quote("sao pa"))
    check("If-None-Match gives 304", status == 304 and body == "")
    status, _, body = curl(f"{base}/search?q=paris&country=FR&limit=3")
    result = json.loads(body)
    check("country filter and limit", status == 200 and len(result["hits"]) <= 3
          and all(h["attributes"]["countryCode"] == "FR" for h in result["hits"]))
    status, _, body = curl(f"{base}/search?q=amsterdma")
    check("typo amsterdma finds Amsterdam", status == 200 and json.loads(body)["hits"][0]["name"] == "Amsterdam")
    status, headers, body = curl(f"{base}/search")
    check("missing q is a 400 problem", status == 400 and headers.get("content-type", "").startswith("application/problem+json"))
    status, _, _ = curl(f"{base}/search?q=x&limit=1000")
    check("limit beyond 100 is 400", status == 400)
    status, _, _ = curl(f"{base}/search?q=x&country=France")
    check("a malformed country code is 400", status == 400)
    status, _, _ = curl(f"{base}/search?q=x&country=%C3%9F")
    check("a non-ASCII country code is 400 (ß uppercases to SS)", status == 400)
    # curl sends the UTF-8 bytes as they are (the README's own example); a Latin-1 byte is not UTF-8.
    status, _, body = curl(f"{base}/search?q=москва")
    check("raw UTF-8 in the request target: q=москва finds Moscow", status == 200 and json.loads(body)["hits"][0]["name"] == "Moscow")
    status, _, body = curl("--path-as-is", f"{base}/search?q=caf\xe9".encode("latin-1").decode("utf-8", "surrogateescape"))
    check("invalid UTF-8 in the request target is a 400 problem", status == 400 and "not valid UTF-8" in body)
    status, _, _ = curl(f"{base}/search?q=paris&country=fr,,us,")
    check("country codes in either case, empty items ignored", status == 200)
    status, headers, body = curl("--compressed", "-H", "Accept-Encoding: gzip", f"{base}/search?q=a&limit=100")
    check("large search answer is gzip-compressed", status == 200 and headers.get("content-encoding") == "gzip"
          and len(json.loads(body)["hits"]) == 100)

    print("documents")
    status, _, body = curl(f"{base}/documents/3448439")
    check("GET /documents/3448439 is São Paulo", status == 200 and json.loads(body)["name"] == "São Paulo"
          and conforms("Document", json.loads(body)))
    status, headers, body = curl(f"{base}/documents/no-such-id")
    check("GET unknown document 404 problem", status == 404 and headers.get("content-type", "").startswith("application/problem+json"))
    doc = {"name": "Zyxwopolis", "alternateNames": ["Zyx"], "rank": 42, "attributes": {"countryCode": "ZZ"}}
    status, _, _ = curl("-X", "PUT", "-H", "Content-Type: application/json", "--data", json.dumps(doc), f"{base}/documents/e2e-1")
    check("PUT without key 401", status == 401)
    status, _, _ = curl("-X", "PUT", "-H", "Authorization: Bearer wrong", "-H", "Content-Type: application/json",
                        "--data", json.dumps(doc), f"{base}/documents/e2e-1")
    check("PUT with a wrong key 401", status == 401)
    status, _, body = curl("-X", "PUT", *auth, "-H", "Content-Type: application/json", "--data", "{nope", f"{base}/documents/e2e-1")
    check("PUT malformed JSON 400", status == 400 and json.loads(body)["status"] == 400)
    status, _, _ = curl("-X", "PUT", *auth, "-H", "Content-Type: application/json", "--data", '{"name": 5}', f"{base}/documents/e2e-1")
    check("PUT wrong types 422", status == 422)
    status, _, _ = curl("-X", "PUT", *auth, "-H", "Content-Type: application/json", "--data", '{"id": "other", "name": "x"}',
                        f"{base}/documents/e2e-1")
    check("PUT id mismatch 422", status == 422)
    status, _, _ = curl("-X", "PUT", *auth, "-H", "Content-Type: text/plain", "--data", json.dumps(doc), f"{base}/documents/e2e-1")
    check("PUT non-JSON type 415", status == 415)

    # /events: a real SSE client sees the write, then resumes with Last-Event-ID.
    events = []
    positions = []
    connected = threading.Event()

    def follow(headers=None, count=1):
        with httpx.Client(timeout=15) as client:
            with httpx_sse.connect_sse(client, "GET", f"{base}/events", headers=headers or {}) as source:
                connected.set()
                received = []
                for event in source.iter_sse():
                    if not event.data and event.event == "message":
                        positions.append(event.id)  # an id-only block: sets Last-Event-ID, no event
                        continue
                    received.append(event)
                    if len(received) >= count:
                        return received
        return []

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        live = pool.submit(lambda: events.extend(follow(count=1)))
        connected.wait(10)
        time.sleep(0.2)  # the subscription is made after the response head is written
        status, _, _ = curl("-X", "PUT", *auth, "-H", "Content-Type: application/json", "--data", json.dumps(doc),
                            f"{base}/documents/e2e-1")
        check("PUT with the key 204", status == 204)
        live.result(timeout=15)
    check("SSE client receives document.upserted", events and events[0].event == "document.upserted"
          and json.loads(events[0].data)["id"] == "e2e-1", events)
    first_id = int(events[0].id) if events else 0
    check("a new /events client is first told the current event id", bool(positions) and positions[0].isdigit(), positions)

    status, _, body = curl(f"{base}/search?q=zyxwop")
    check("the write is visible to the next search", status == 200 and json.loads(body)["hits"][0]["id"] == "e2e-1")
    status, _, body = curl(f"{base}/documents/e2e-1")
    check("GET the written document", status == 200 and json.loads(body)["name"] == "Zyxwopolis")
    status, _, _ = curl("-X", "DELETE", *auth, f"{base}/documents/e2e-1")
    check("DELETE 204", status == 204)
    status, _, _ = curl("-X", "DELETE", *auth, f"{base}/documents/e2e-1")
    check("DELETE unknown 404", status == 404)
    status, _, _ = curl(f"{base}/documents/e2e-1")
    check("deleted document 404", status == 404)

    resumed = follow(headers={"Last-Event-ID": str(first_id)}, count=1)
    check("Last-Event-ID resume gets the missed delete", resumed and resumed[0].event == "document.deleted"
          and int(resumed[0].id) > first_id, resumed)
    reset = follow(headers={"Last-Event-ID": "999999999"}, count=1)
    check("unknown Last-Event-ID gets reset", reset and reset[0].event == "reset", reset)

    print("live query")
    updates = []
    with httpx.Client(timeout=15) as client:
        with httpx_sse.connect_sse(client, "GET", f"{base}/search/live?q=quuxville") as source:
            iterator = source.iter_sse()
            first = next(iterator)
            updates.append(json.loads(first.data))
            doc2 = {"name": "Quuxville", "rank": 7}
            curl("-X", "PUT", *auth, "-H", "Content-Type: application/json", "--data", json.dumps(doc2), f"{base}/documents/e2e-2")
            second = next(iterator)
            updates.append(json.loads(second.data))
    check("live query starts with the current result", updates[0]["total"] == 0, updates[:1])
    check("live query pushes the new result", len(updates) > 1 and updates[1]["hits"][0]["id"] == "e2e-2", updates[1:])

    print("coalescing")
    before = metric(base, "signalbox_search_computations_total")
    url = f"{base}/search?q=" + urllib.parse.quote("coalesce test lisb")
    with concurrent.futures.ThreadPoolExecutor(50) as pool:
        statuses = list(pool.map(lambda _: httpx.get(url, timeout=10).status_code, range(200)))
    after = metric(base, "signalbox_search_computations_total")
    check("200 concurrent identical searches all 200", statuses.count(200) == 200)
    check("…and computed once", after - before == 1, f"(computations {after - before})")

    print("dropped SSE client")
    clients_before = metric(base, "http_sse_clients")
    sock = socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1])))
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
    sock.recv(1024)
    check("SSE client gauge rises", wait_until(lambda: metric(base, "http_sse_clients") == clients_before + 1))
    sock.close()
    check("…and returns when the client goes away", wait_until(lambda: metric(base, "http_sse_clients") == clients_before))


if __name__ == "__main__":
    main()
    sys.exit(1 if failed else 0)
