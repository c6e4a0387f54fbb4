#!/usr/bin/env python3
"""SSE fan-out: N concurrent /events clients, then writes; how long one event takes to reach them all.

Usage: sse-fanout.py BINARY [--clients 5000] [--events 20]
Starts BINARY on a free loopback port with a fresh store, connects N raw
asyncio clients to /events, and for each of E writes (PUT) records, per client,
the time from sending the PUT to receiving its event. Prints p50/p99/max of
those delays, the time until the last client had each event, and the server's
resident memory per connected client (VmRSS before and after connecting).
"""
import argparse
import asyncio
import importlib.util
import os
import statistics
import subprocess
import tempfile
import time

# The harness's helpers (starting, readiness, connecting the clients): sse-fanout-vs-nchan.py.
HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("fanout", os.path.join(HERE, "sse-fanout-vs-nchan.py"))
fanout = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fanout)
rss_kib, free_port, http = fanout.rss_kib, fanout.free_port, fanout.http

KEY = "bench-key"


class Client:
    def __init__(self):
        self.received = {}  # event number (its document's "Fanout N") -> monotonic time

    async def run(self, port, connected, total_events):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
        await writer.drain()
        await reader.readuntil(b"\r\n\r\n")
        connected()
        buffer = b""
        while len(self.received) < total_events:
            chunk = await reader.read(65536)
            if not chunk:
                break
            now = time.monotonic()
            buffer += chunk
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                # By the document's number, not the event id: the stream opens with a bare `id: 0`.
                match = fanout.EVENT_NUMBER.search(block)
                if match:
                    self.received.setdefault(int(match.group(1)), now)
        writer.close()


async def main(args):
    port = free_port()
    store = os.path.join(tempfile.mkdtemp(prefix="signalbox-fanout-"), "store.sqlite")
    env = dict(os.environ, SIGNALBOX_API_KEY=KEY, SIGNALBOX_STORE=store, SIGNALBOX_LOG_LEVEL="warning")
    command = [args.binary, "--host", "127.0.0.1", "--port", str(port)]
    if args.server_cpu is not None:
        command = ["taskset", "-c", args.server_cpu] + command
    server = subprocess.Popen(command, env=env)
    try:
        await fanout.wait_ready(port, b"GET /readyz HTTP/1.1\r\nHost: b\r\n\r\n", "signalbox")
        await asyncio.sleep(0.5)
        rss_before = rss_kib(server.pid)

        clients = [Client() for _ in range(args.clients)]
        tasks = await fanout.connect_all(args.clients, lambda index, connected: clients[index].run(port, connected, args.events), 120)
        await asyncio.sleep(1.0)
        rss_after = rss_kib(server.pid)

        sent = {}
        for n in range(args.events):
            body = f'{{"name": "Fanout {n}", "rank": {n}}}'.encode()
            request = (f"PUT /documents/fanout-{n} HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer {KEY}\r\n"
                       f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
            start = time.monotonic()
            response = await http(port, request)
            assert b" 204 " in response, response[:200]
            sent[n] = start
            await asyncio.sleep(0.3)
        await asyncio.wait_for(asyncio.gather(*tasks), 60)

        delays, spreads = [], []
        for n in range(args.events):
            times = [client.received[n] - sent[n] for client in clients if n in client.received]
            delays.extend(times)
            spreads.append(max(times))
        delays.sort()
        missing = sum(args.events - len(client.received) for client in clients)

        def pct(values, p):
            return values[min(len(values) - 1, int(len(values) * p))] * 1000

        print(f"clients: {args.clients}, events: {args.events}, deliveries: {len(delays)}, missing: {missing}")
        print(f"delay PUT sent -> event at client: p50 {pct(delays, 0.5):.1f} ms, p99 {pct(delays, 0.99):.1f} ms, max {delays[-1]*1000:.1f} ms")
        print(f"time until the last client had the event: median {statistics.median(spreads)*1000:.1f} ms, worst {max(spreads)*1000:.1f} ms")
        print(f"server RSS: {rss_before/1024:.1f} MiB idle, {rss_after/1024:.1f} MiB with {args.clients} clients: "
              f"{(rss_after - rss_before) / args.clients:.1f} KiB per client")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--clients", type=int, default=5000)
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--server-cpu", default=None, help="taskset CPU list for the server, e.g. 0")
    asyncio.run(main(parser.parse_args()))
