#!/usr/bin/env python3
"""Part 3, soak: mixed load for a while; nothing fails, memory levels off, no descriptor leaks.

Load, all at once (server pinned to CPU 0, the clients to CPU 1 when there are two):
  - wrk on GET /search, 16 connections, over a few thousand keystroke queries taken from the
    served data (every prefix of names found by two-letter queries), typos and country filters;
  - 1,000 SSE clients on GET /events (Python asyncio), each connecting, reading for 0.5–5 s,
    dropping the connection and connecting again, some resuming with Last-Event-ID;
  - an authenticated writer: a PUT every 0.25 s and a DELETE every tenth, so events flow.
Short mode runs 40 s, long mode 300 s. Requirements: wrk has no non-2xx answer and no socket
error; every SSE connection is answered 200 and ended only by its client; every write is 204;
resident memory (VmRSS, sampled each second) grows less than 10% from the end of the warm-up
(the first 30% of the run) to the end; once the clients leave, open connections and
descriptors return to their baseline.
"""
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(__file__))
from common import Server, arguments  # noqa: E402
from harness import Report, Writer, get, median, put_document, raise_fd_limit  # noqa: E402

SSE_CLIENTS = 1000
MAX_GROWTH = 0.10


def queries(port):
    """Keystroke queries from the served data, some typos, some with country filters."""
    rng = random.Random(5)
    names = set()
    for pair in ["sa", "pa", "be", "ma", "ca", "ch", "ko", "ne", "lo", "to", "ba", "ha", "ta", "ka", "ra", "mo", "bo",
                 "da", "la", "go", "al", "an", "ar", "br", "de", "el", "gr", "ku", "li", "na", "os", "po", "sh", "st",
                 "tr", "va", "wa", "xi", "yo", "za", "мо", "са", "北", "東"]:
        status, _, body = get(port, "/search?q=" + urllib.parse.quote(pair) + "&limit=100")
        if status == 200:
            names.update(hit["name"] for hit in json.loads(body)["hits"])
    texts = sorted({name[:n] for name in names for n in range(2, len(name) + 1)})
    rng.shuffle(texts)
    texts = texts[:3000]
    typos = []
    for text in texts[:300]:
        if len(text) > 4:
            i = rng.randrange(len(text) - 1)
            typos.append(text[:i] + text[i + 1] + text[i] + text[i + 2:])
    paths = [f"/search?q={urllib.parse.quote(t)}" for t in texts + typos]
    paths += [f"/search?q={urllib.parse.quote(t)}&country={c}&limit=5"
              for t, c in zip(texts[300:500], ["FR", "US", "DE,AT", "BR", "IN,CN"] * 40)]
    return paths


def lua(paths):
    quoted = ",".join('"' + p.replace("\\", "\\\\").replace('"', '\\"') + '"' for p in paths)
    return (f"paths = {{{quoted}}}\ncounter = 0\n"
            "request = function() counter = counter + 1; return wrk.format('GET', paths[(counter % #paths) + 1]) end\n")


class SSEStats:
    def __init__(self):
        self.sessions = 0
        self.events = 0
        self.failures = []
        self.long_sessions = 0
        self.long_sessions_with_events = 0


async def sse_client(port, deadline, stats, rng, last_id):
    await asyncio.sleep(rng.uniform(0, 3))
    while time.monotonic() < deadline:
        stay = rng.uniform(0.5, 5.0)
        headers = "GET /events HTTP/1.1\r\nHost: soak\r\nAccept: text/event-stream\r\n"
        if last_id[0] and rng.random() < 0.2:
            headers += f"Last-Event-ID: {max(0, last_id[0] - rng.randrange(5))}\r\n"
        writer = None
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
            writer.write((headers + "\r\n").encode())
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            if not head.startswith(b"HTTP/1.1 200"):
                stats.failures.append(head.split(b"\r\n")[0].decode(errors="replace"))
                continue
            stats.sessions += 1
            started = time.monotonic()
            events = 0
            end = min(started + stay, deadline)
            while True:
                remaining = end - time.monotonic()
                if remaining <= 0:
                    break
                try:
                    chunk = await asyncio.wait_for(reader.read(65536), remaining)
                except asyncio.TimeoutError:
                    break
                if not chunk:
                    stats.failures.append("the server ended a stream")
                    break
                for line in chunk.split(b"\n"):
                    if line.startswith(b"event: document."):
                        events += 1
                    elif line.startswith(b"id: "):
                        try:
                            last_id[0] = max(last_id[0], int(line[4:].strip()))
                        except ValueError:
                            pass
            stats.events += events
            if stay >= 2.0:
                stats.long_sessions += 1
                stats.long_sessions_with_events += events > 0
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as error:
            stats.failures.append(repr(error))
        finally:
            if writer is not None:
                writer.transport.abort()  # drop, as a client that goes away does


def run_sse(port, seconds, stats):
    async def main():
        deadline = time.monotonic() + seconds
        rng = random.Random(3)
        last_id = [0]
        await asyncio.gather(*(sse_client(port, deadline, stats, random.Random(rng.random()), last_id)
                               for _ in range(SSE_CLIENTS)))
    asyncio.run(main())


def main():
    args = arguments(__doc__)
    report = Report(f"soak ({args.mode})")
    limit = raise_fd_limit()
    seconds = 40 if args.mode == "short" else 300
    two_cpus = len(os.sched_getaffinity(0)) >= 2
    if two_cpus:
        os.sched_setaffinity(0, {1})  # wrk and the clients (children inherit it)
    server = Server(args.binary, cpus="0" if two_cpus else None).start()
    try:
        paths = queries(server.port)
        script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
        script.write(lua(paths))
        script.close()
        # One write first, so the store's WAL files are open in the baseline.
        put_document(server.port, "soak-0", {"name": "Soakville"})
        baseline = server.baseline()
        report.figure(f"{len(paths)} distinct search paths; {SSE_CLIENTS} SSE clients; open-file limit {limit}; "
                      f"server on CPU {'0, clients on CPU 1' if two_cpus else 'any'}; baseline {baseline[0]} connection(s), "
                      f"{baseline[1]} descriptors, RSS {server.rss_kib() / 1024:.1f} MiB")

        wrk_command = ["wrk", "-t1", "-c16", f"-d{seconds}s", "--timeout", "5s", "--latency", "-s", script.name, server.base]
        wrk = subprocess.Popen(wrk_command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        # A PUT every 0.25 s and, every tenth write, a DELETE of the document the PUT before it wrote.
        writes = Writer(server.port, prefix="soak", ids=50, title="Soakville", country="NL", delete_every=10, pause=0.25)
        writes.start()
        stats = SSEStats()
        sse = threading.Thread(target=run_sse, args=(server.port, seconds, stats), daemon=True)
        sse.start()

        samples = []  # (seconds since start, RSS KiB, descriptors, open connections, SSE clients)
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            time.sleep(1)
            try:
                samples.append((time.monotonic() - started, server.rss_kib(), server.fd_count(),
                                server.metric("http_open_connections") or 0, server.metric("http_sse_clients") or 0))
            except OSError:
                pass
        output, _ = wrk.communicate(timeout=60)
        writes.stop.set()
        sse.join(timeout=30)
        writes.join(timeout=15)

        lines = output.splitlines()
        requests = next((l.strip() for l in lines if "requests in" in l), "?")
        rate = next((l.split()[-1] for l in lines if l.startswith("Requests/sec")), "?")
        p50 = next((l.split()[-1] for l in lines if l.strip().startswith("50%")), "?")
        p99 = next((l.split()[-1] for l in lines if l.strip().startswith("99%")), "?")
        latency = next((" ".join(l.split()[1:4]) for l in lines if l.strip().startswith("Latency ")), "?")
        non2xx = int(next((l.split()[-1] for l in lines if "Non-2xx" in l), "0"))
        errors = next((l.strip() for l in lines if "Socket errors" in l), "Socket errors: none")
        report.figure(f"$ {' '.join(wrk_command[:-3])} -s queries.lua URL: {requests}, {rate} req/s, latency avg/stdev/max {latency}, p50 {p50}, p99 {p99}; "
                      f"non-2xx {non2xx}; {errors}")
        report.require("wrk: no non-2xx answer and no socket error", non2xx == 0 and errors == "Socket errors: none",
                       f"{non2xx} non-2xx; {errors}")
        peak_sse = max((s[4] for s in samples), default=0)
        report.figure(f"SSE: {stats.sessions} sessions (peak {peak_sse:.0f} streams at once), {stats.events} events delivered, "
                      f"{stats.long_sessions_with_events}/{stats.long_sessions} sessions of 2 s or more saw an event; "
                      f"{len(stats.failures)} failures")
        report.require("SSE: every connection answered 200 and ended only by its client", not stats.failures,
                       "; ".join(sorted(set(stats.failures))[:5]))
        report.require("SSE: events reach the clients (≥ 90% of sessions of 2 s or more see one)",
                       stats.long_sessions > 0 and stats.long_sessions_with_events >= 0.9 * stats.long_sessions)
        report.figure(f"writes: {writes.statuses}")
        report.require("every write is answered 204", set(writes.statuses) == {204},
                       f"{writes.statuses}" + (f"; {writes.failures[:3]}" if writes.failures else ""))

        warm = [s for s in samples if seconds * 0.3 - 3 <= s[0] <= seconds * 0.3]
        last = samples[-3:]
        rss_warm = median([s[1] for s in warm])
        rss_end = median([s[1] for s in last])
        growth = rss_end / rss_warm - 1
        report.figure(f"RSS: {samples[0][1] / 1024:.1f} MiB at 1 s, {rss_warm / 1024:.1f} MiB after warm-up ({seconds * 0.3:.0f} s), "
                      f"{rss_end / 1024:.1f} MiB at the end, peak {max(s[1] for s in samples) / 1024:.1f} MiB; growth {growth * 100:+.1f}%")
        report.figure("RSS MiB every ~10%: " + " ".join(f"{s[1] / 1024:.0f}" for s in samples[:: max(1, len(samples) // 10)]))
        report.require(f"resident memory grows less than {MAX_GROWTH * 100:.0f}% after warm-up", growth < MAX_GROWTH,
                       f"{growth * 100:+.1f}%")

        waited, counts = server.wait_for_connections(baseline, timeout=15)
        report.require("after the load, open connections and descriptors return to the baseline (no leak)", waited is not None,
                       f"{counts[0]} connections, {counts[1]} descriptors (baseline {baseline[0]}, {baseline[1]})"
                       + (f", after {waited:.1f} s" if waited is not None else ""))
        sse_left = server.metric("http_sse_clients") or 0
        report.require("no SSE client is still counted", sse_left == 0, f"http_sse_clients {sse_left:.0f}")
        report.require("the service is still up", server.alive())
        os.unlink(script.name)
    finally:
        server.stop_and_require_clean_exit(report)
    report.finish()


if __name__ == "__main__":
    main()
