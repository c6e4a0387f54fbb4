#!/usr/bin/env python3
"""Part 9, per-client limits and key rotation.

One server with `http.maxConnectionsPerClient` 8, `writes.ratePerSecond` 20 with `writes.burst`
10, `live.maxQueries` 4, and its write keys in a keys file:

- connections: one address holds 8; the 9th and later get 429 with Retry-After at once while
  the 8 keep being served; closing some frees their slots.
- writes: one key sending as fast as answered gets 204s at ~20/s after its burst, the rest 429
  with Retry-After; a second key's writes meanwhile all succeed (a bucket per key).
- live queries: 4 distinct `/search/live` streams open, a 5th distinct query gets 503 with
  Retry-After, a second stream of an open query is accepted, and the open streams go on
  receiving results; closing one admits a new query.
- key rotation: the file holds the old key; a new key is added and SIGHUP sent: both write;
  the old key is removed and SIGHUP sent: the old one gets 401, the new one 204; no restart,
  open streams untouched; neither key appears in the server's log.
Short and long modes are the same (about 15 s).
"""
import os
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import Server, arguments  # noqa: E402
from harness import Report, SSEReader, Writer, connect, get, put_document  # noqa: E402

PER_CLIENT = 8
RATE, BURST = 20, 10
LIVE = 4
OLD_KEY, NEW_KEY, OTHER_KEY = "rotate-old-3f9a1c", "rotate-new-77d2e0", "second-client-5b1e"


def put(port, key, doc_id, connection=None):
    return put_document(port, doc_id, {"name": f"Limits {doc_id}", "attributes": {"countryCode": "FR"}}, key=key,
                        connection=connection)


def head_of(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def live_stream(port, query):
    """A /search/live client, its response head read (status known)."""
    return SSEReader(port, f"/search/live?q={query}")


def connections_part(report, server):
    held = []
    for _ in range(PER_CLIENT):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: prove\r\n\r\n")
        head_of(s)
        held.append(s)
    refused = []
    for _ in range(20):
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            head = head_of(s).decode(errors="replace").lower()
        refused.append((head.split("\r\n")[0], "retry-after: 1" in head, (time.monotonic() - started) * 1000))
    served = 0
    for s in held:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: prove\r\n\r\n")
        served += head_of(s).startswith(b"HTTP/1.1 200")
    report.figure(f"{PER_CLIENT} connections held from 127.0.0.1, 20 more: statuses {sorted(set(r[0] for r in refused))}, "
                  f"max {max(r[2] for r in refused):.1f} ms; held connections served {served}/{PER_CLIENT}")
    report.require("beyond http.maxConnectionsPerClient: 429 with Retry-After, the held ones still served",
                   all(" 429 " in r[0] and r[1] for r in refused) and served == PER_CLIENT)
    for s in held[:2]:
        s.close()
    time.sleep(0.3)
    status = get(server.port, "/healthz")[0]
    report.require("closing connections frees their slots", status == 200, f"{status}")
    for s in held[2:]:
        s.close()


def bucket_allows(sent):
    """How many of `sent` a token bucket of BURST refilled RATE a second lets through, at the send times.

    Not simply BURST + RATE x elapsed: a bucket that is full while a slow write is answered refills
    nothing, so slow 204s (a loaded machine) make the server rightly accept fewer."""
    tokens, last, allowed = float(BURST), sent[0][0] if sent else 0.0, 0
    for when, _ in sent:
        tokens = min(float(BURST), tokens + (when - last) * RATE)
        last = when
        if tokens >= 1:
            tokens -= 1
            allowed += 1
    return allowed


def writes_part(report, server):
    statuses, retry_after = {}, set()
    # Another key at 5/s: inside its own bucket.
    helper = Writer(server.port, prefix="limits-other", ids=5, title="Limits other", key=OTHER_KEY, pause=0.2)
    helper.start()
    connection = connect(server.port)
    started = time.monotonic()
    sent = []  # (when the request was sent, its status)
    while time.monotonic() - started < 3:
        when = time.monotonic()
        status, headers, _ = put(server.port, NEW_KEY, f"limits-{len(sent) % 20}", connection)
        sent.append((when, status))
        statuses[status] = statuses.get(status, 0) + 1
        if status == 429:
            retry_after.add(headers.get("retry-after"))
    elapsed = time.monotonic() - started
    helper.stop.set()
    helper.join()
    other = helper.statuses
    connection.close()
    accepted = statuses.get(204, 0)
    expected = bucket_allows(sent)
    report.figure(f"one key writing as fast as answered for {elapsed:.1f} s: {dict(sorted(statuses.items()))} "
                  f"(a bucket of {BURST} refilled {RATE}/s allows {expected} of these requests, at most "
                  f"{BURST + RATE * elapsed:.0f}); Retry-After {sorted(retry_after)}; another key at 5/s meanwhile: {other}")
    report.require("a key beyond writes.ratePerSecond/burst gets 429 with Retry-After, within the bucket 204",
                   set(statuses) <= {204, 429} and 429 in statuses and None not in retry_after
                   and expected - 3 <= accepted <= expected + 3)
    report.require("another key's writes are not limited by the first key's bucket", set(other) == {204}, f"{other}")


def live_part(report, server):
    streams = [live_stream(server.port, q) for q in ["paris", "berlin", "rome", "madrid"]]
    for s in streams:
        s.start()
    extra = live_stream(server.port, "lisbon")
    extra_head = extra.head
    extra.close()
    same = live_stream(server.port, "paris")
    same.start()
    before = [s.count("result") for s in streams]
    put(server.port, NEW_KEY, "limits-live", None)  # nothing matches: no result event needed
    time.sleep(0.5)
    report.figure(f"{LIVE} distinct live queries open: a 5th distinct query got {extra.status} "
                  f"(Retry-After {'retry-after' in extra_head}); a second stream of an open query got {same.status}; "
                  f"results received by the open streams {[s.count('result') for s in streams]}")
    report.require("a new distinct live query beyond live.maxQueries gets 503 with Retry-After",
                   extra.status == 503 and "retry-after" in extra_head)
    report.require("a stream of an already streamed query is accepted", same.status == 200)
    report.require("the open streams go on (each received its result, none ended)",
                   all(s.status == 200 and s.count("result") >= 1 and s.ended is None for s in streams), f"{before}")
    streams[0].close()
    same.close()
    time.sleep(0.3)
    again = live_stream(server.port, "lisbon")
    report.require("closing a query's streams admits a new query", again.status == 200, f"{again.status}")
    for s in streams[1:] + [again]:
        s.close()
    return streams


def rotation_part(report, server, keys_file):
    def write_keys(*keys):
        with open(keys_file, "w") as f:
            f.write("# write keys, one a line\n" + "".join(k + "\n" for k in keys))

    stream = live_stream(server.port, "oslo")
    stream.start()
    steps = []
    write_keys(OLD_KEY, NEW_KEY, OTHER_KEY)
    server.send_signal(signal.SIGHUP)
    time.sleep(1)
    steps.append(("old and new", put(server.port, OLD_KEY, "rot-1")[0], put(server.port, NEW_KEY, "rot-2")[0]))
    write_keys(NEW_KEY, OTHER_KEY)
    server.send_signal(signal.SIGHUP)
    started = time.monotonic()
    old_status = None
    while time.monotonic() - started < 5:
        old_status = put(server.port, OLD_KEY, "rot-3")[0]
        if old_status == 401:
            break
        time.sleep(0.05)
    took = time.monotonic() - started
    steps.append(("new only", old_status, put(server.port, NEW_KEY, "rot-4")[0]))
    report.figure(f"key rotation by SIGHUP (old, new key statuses): {steps}; the removed key refused {took:.2f} s after SIGHUP")
    report.require("after adding a key both write; after removing the old one it gets 401 and the new one writes",
                   steps == [("old and new", 204, 204), ("new only", 401, 204)])
    report.require("no restart: the same process, its open stream untouched", server.alive() and stream.ended is None)
    stream.close()
    log = server.log_text()
    report.require("no key appears in the server's log", not any(k in log for k in (OLD_KEY, NEW_KEY, OTHER_KEY)))


def main():
    args = arguments(__doc__)
    report = Report(f"per-client limits and key rotation ({args.mode})")
    server = Server(args.binary, settings={
        "http.maxConnectionsPerClient": PER_CLIENT, "writes.ratePerSecond": RATE, "writes.burst": BURST,
        "live.maxQueries": LIVE, "sse.heartbeatInterval": 1})
    keys_file = os.path.join(server.workdir, "keys")
    with open(keys_file, "w") as f:
        f.write(f"{OLD_KEY}\n{NEW_KEY}\n{OTHER_KEY}\n")
    server.env.update({"SIGNALBOX_API_KEYS_FILE": keys_file, "SIGNALBOX_LOG_LEVEL": "debug"})
    try:
        server.start()
        connections_part(report, server)
        writes_part(report, server)
        live_part(report, server)
        rotation_part(report, server, keys_file)
    finally:
        server.stop_and_require_clean_exit(report)
    report.finish()


if __name__ == "__main__":
    main()
