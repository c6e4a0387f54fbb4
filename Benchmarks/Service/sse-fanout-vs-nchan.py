#!/usr/bin/env python3
"""SSE fan-out, Signalbox against nginx + nchan: one event to N clients, publish -> delivery.

Usage: sse-fanout-vs-nchan.py BINARY [--clients 1000,5000,10000] [--rounds 3] [--events 10] [--pin 0:1]
                               [--baseline OLDER_BINARY[=LABEL] ...]

For every client count and round it runs both servers one after the other
(the order alternates by round), each fresh:

- `signalbox` (BINARY, a release build) with its default settings; only the
  API key, a fresh store and `http.maxConnections` 20,000 (the default
  10,000 would refuse the publisher at 10,000 clients) are set.
- nginx + nchan (Debian's `nginx-light` and `libnginx-mod-nchan`), one
  worker, `worker_connections 20000`, a config written to a temporary
  directory, run in the foreground on a loopback port.

- with `--baseline` (once or more), an older `signalbox` binary the same way, as another
  server in the same rounds (the order rotates by round, so with three servers each goes
  first once in three rounds), for before/after figures that share the machine's state.

The client is the same for all: one single-threaded asyncio process opens N
raw `text/event-stream` connections, then publishes E events, each from a new
connection (Signalbox: `PUT /documents/fanout-<n>`; nchan: `POST /pub` with
the same JSON body), waiting `--gap` seconds between them. For every
(client, event) it records the time from sending the publish request to
reading the event, and (the kernel's receive timestamp, SO_TIMESTAMPNS) to the event's arrival at
the client's socket: the first is what a client sees, the second the servers' part alone, since a
single client process that reads thousands of sockets falls behind the servers (at 5,000 clients
it was still reading one event when the next came). A read that takes several events at once (a
client more than a gap behind) stamps them all with the last one's arrival (TCP reports the last
segment's time): late, never early. On loopback the arrival is stamped in the server's `send`. One unmeasured event goes first (it warms both servers),
and one unmeasured run of each server goes first at each client count (it
warms the client: its first run at a size spent about 1.7x the CPU per read,
which counted against whichever server went first). The client collects no garbage while
events are timed, and closes its connections only after the last event has
reached every client; both pauses were the client's, not the servers'.
With `--pin SERVER:CLIENT` (CPU lists, e.g. `0:1`) both servers run under
`taskset -c SERVER` and the client process is moved to CPU(s) CLIENT, as
`sse-fanout.py --server-cpu` does: the client then never takes the
server's CPU, whichever server it is.

It prints, per client count, p50/p99 of those delays over all rounds for
both servers and the ratio, the machine's stall shares while events were timed (Linux PSI:
some task waiting for a CPU, for I/O, all of them for I/O), the slowest and the first client per event and when the publish was answered
(medians over events), and, of the
Signalbox process and of the nginx worker, resident memory per client (VmRSS
with N clients minus VmRSS before) and CPU time per delivery (user + system
during the measured events).
"""
import argparse
import asyncio
import gc
import os
import pwd
import re
import resource
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import tempfile
import time

KEY = "bench-key"
PIN_PREFIX = []  # ["taskset", "-c", CPUS] with --pin
EVENT_NUMBER = re.compile(rb"Fanout (\d+)")


def raise_open_file_limit(wanted):
    """Both servers and this client hold one descriptor per connection; children inherit the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, wanted))
            return
        except (ValueError, OSError):
            wanted = hard
    if soft == resource.RLIM_INFINITY or soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """User + system CPU time the process has used (all threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_pids(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def http(port, request):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    data = await reader.read(65536)
    writer.close()
    return data


async def wait_ready(port, request, name):
    """Asks `request` every 0.1 s until the server answers 200; an error after 60 s."""
    for _ in range(600):
        try:
            if b" 200 " in await http(port, request):
                return
        except OSError:
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError(f"{name} did not become ready")


async def connect_all(count, start, timeout):
    """Starts `count` event-stream clients, `start(index, connected)` making each one's coroutine
    (which calls `connected()` once its response head is read), and returns their tasks once every
    one is connected."""
    ready = asyncio.Event()
    connected_count = 0

    def connected():
        nonlocal connected_count
        connected_count += 1
        if connected_count == count:
            ready.set()

    tasks = []
    for index in range(count):
        tasks.append(asyncio.create_task(start(index, connected)))
        if index % 200 == 199:
            await asyncio.sleep(0.05)  # stay within the listen backlog
    await asyncio.wait_for(ready.wait(), timeout)
    return tasks


# Linux's SO_TIMESTAMPNS (= SCM_TIMESTAMPNS; Python does not name it): the kernel stamps each
# received segment with the time it reached the socket (CLOCK_REALTIME, a 64-bit timespec).
SO_TIMESTAMPNS = 35


class Client:
    """One event-stream connection; records when each numbered event arrived at its socket (the
    kernel's receive time) and when this process read it.

    A raw non-blocking socket read in a reader callback, not an asyncio stream: the callback takes
    the kernel's timestamp with the bytes (`recvmsg`), and it costs the client less per read than a
    stream and a task, so the client falls behind the servers later."""

    def __init__(self):
        self.received = {}  # event number -> monotonic time this process read it
        self.arrived = {}  # event number -> CLOCK_REALTIME the kernel received it
        self.sock = None

    async def run(self, port, path, connected, wanted):
        loop = asyncio.get_running_loop()
        sock = self.sock = socket.socket()
        sock.setblocking(False)
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        await loop.sock_connect(sock, ("127.0.0.1", port))
        await loop.sock_sendall(sock, f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".encode())
        done = loop.create_future()
        state = {"buffer": b"", "head": False}

        def finish():
            loop.remove_reader(sock)
            if not done.done():
                done.set_result(None)

        def readable():
            try:
                data, ancillary, _, _ = sock.recvmsg(65536, 64)
            except BlockingIOError:
                return
            except OSError:
                finish()
                return
            now = time.monotonic()
            if not data:
                finish()
                return
            arrived = None
            for level, kind, value in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= 16:
                    seconds, nanoseconds = struct.unpack("qq", value[:16])
                    arrived = seconds + nanoseconds / 1e9
            buffer = state["buffer"] + data
            if not state["head"]:
                if b"\r\n\r\n" not in buffer:
                    state["buffer"] = buffer
                    return
                buffer = buffer.split(b"\r\n\r\n", 1)[1]
                state["head"] = True
                connected()
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                match = EVENT_NUMBER.search(block)
                if match:
                    number = int(match.group(1))
                    self.received.setdefault(number, now)
                    if arrived is not None:
                        self.arrived.setdefault(number, arrived)
            state["buffer"] = buffer
            if len(self.received) >= wanted:
                finish()

        loop.add_reader(sock, readable)
        await done
        # Not closed here: closing while other clients still read the last event would
        # slow their reads and charge the last event with the client's teardown.

    def close(self):
        if self.sock is not None:
            asyncio.get_running_loop().remove_reader(self.sock)
            self.sock.close()


class Signalbox:
    events_path = "/events"

    def __init__(self, binary, name="signalbox"):
        self.binary = binary
        self.name = name

    def start(self, directory, port):
        env = dict(os.environ, SIGNALBOX_API_KEY=KEY, SIGNALBOX_STORE=os.path.join(directory, "store.sqlite"),
                   SIGNALBOX_HTTP_MAX_CONNECTIONS="20000")
        for name in ("SIGNALBOX_LOG_LEVEL", "SIGNALBOX_CONFIG"):
            env.pop(name, None)
        self.log = open(os.path.join(directory, "signalbox.log"), "wb")
        self.process = subprocess.Popen(PIN_PREFIX + [self.binary, "--host", "127.0.0.1", "--port", str(port)], env=env,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        self.ready_request = b"GET /readyz HTTP/1.1\r\nHost: b\r\n\r\n"

    def measured_pid(self):
        return self.process.pid

    def publish_request(self, n):
        body = f'{{"name": "Fanout {n}", "rank": {n}}}'.encode()
        return (f"PUT /documents/fanout-{n} HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer {KEY}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=60)
        self.log.close()


class Nchan:
    name = "nchan"
    events_path = "/sub"

    def __init__(self, nginx, module):
        self.nginx = nginx
        self.module = module

    def start(self, directory, port):
        user = ""
        if os.geteuid() == 0:
            # The worker would otherwise switch to nobody and lose the temp directory.
            name = pwd.getpwuid(0).pw_name
            user = f"user {name};"
        config = f"""
{user}
load_module {self.module};
worker_processes 1;
worker_rlimit_nofile 40000;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 20000; }}
http {{
    access_log {directory}/access.log;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location = /ready {{ return 200 "ready\\n"; }}
        location = /sub {{ nchan_subscriber eventsource; nchan_channel_id fanout; }}
        location = /pub {{ nchan_publisher; nchan_channel_id fanout; }}
    }}
}}
"""
        path = os.path.join(directory, "nginx.conf")
        with open(path, "w") as f:
            f.write(config)
        self.process = subprocess.Popen(PIN_PREFIX + [self.nginx, "-p", directory, "-c", path, "-e", f"{directory}/error.log",
                                         "-g", "daemon off;"])
        self.ready_request = b"GET /ready HTTP/1.1\r\nHost: b\r\n\r\n"

    def measured_pid(self):
        workers = child_pids(self.process.pid)
        assert len(workers) == 1, f"expected one nginx worker, found {workers}"
        return workers[0]

    def publish_request(self, n):
        body = f'{{"name": "Fanout {n}", "rank": {n}}}'.encode()
        return (f"POST /pub HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode() + body

    def stop(self):
        self.process.send_signal(signal.SIGQUIT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


async def run_once(server, clients_wanted, events, gap):
    directory = tempfile.mkdtemp(prefix=f"fanout-{server.name}-")
    port = free_port()
    server.start(directory, port)
    try:
        await wait_ready(port, server.ready_request, server.name)
        await asyncio.sleep(0.5)
        pid = server.measured_pid()
        rss_before = rss_kib(pid)

        clients = [Client() for _ in range(clients_wanted)]
        tasks = await connect_all(
            clients_wanted, lambda index, connected: clients[index].run(port, server.events_path, connected, events + 1), 180)
        await asyncio.sleep(1.0)
        rss_after = rss_kib(pid)

        # The client's own pauses are not the servers': no cyclic garbage collection while
        # the events are timed (a full collection over 10,000 tasks' objects took tens of ms).
        gc.collect()
        gc.disable()
        sent, sent_real, answered = {}, {}, {}
        cpu_start = None
        for n in range(events + 1):
            if n == 1:
                cpu_start = cpu_seconds(pid)  # event 0 warms up and is not measured
                pressure_start, wall_start = pressure_totals(), time.monotonic()
            start, start_real = time.monotonic(), time.time()
            response = await http(port, server.publish_request(n))
            answered[n] = time.monotonic()
            assert response[9:10] == b"2", response[:200]
            sent[n] = start
            sent_real[n] = start_real
            await asyncio.sleep(gap)
        try:
            await asyncio.wait_for(asyncio.gather(*tasks), 60)
        except asyncio.TimeoutError:
            for task in tasks:
                task.cancel()
        cpu_used = cpu_seconds(pid) - cpu_start
        # Share of the measured time some task (anyone's) waited for a CPU or for I/O: a round that
        # stalled on the machine shows here, whichever server it was.
        wall = time.monotonic() - wall_start
        pressure = {kind: (total - pressure_start.get(kind, total)) / 1e6 / wall for kind, total in pressure_totals().items()}
        gc.enable()
        for client in clients:
            client.close()

        delays, slowest, firsts, acks, arrivals = [], [], [], [], []
        for n in range(1, events + 1):
            arrivals.extend(client.arrived[n] - sent_real[n] for client in clients if n in client.arrived)
            times = [client.received[n] - sent[n] for client in clients if n in client.received]
            delays.extend(times)
            acks.append(answered[n] - sent[n])
            if times:
                slowest.append(max(times))
                firsts.append(min(times))
        missing = sum(1 for client in clients for n in range(1, events + 1) if n not in client.received)
        return {"cpu_us_per_delivery": cpu_used * 1e6 / max(1, len(delays)), "delays": delays, "slowest": slowest, "missing": missing,
                "firsts": firsts, "acks": acks, "arrivals": arrivals, "pressure": pressure,
                "kib_per_client": (rss_after - rss_before) / clients_wanted}
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] * 1000


def ratio(ours, theirs):
    """`ours / theirs` as `1.23x`; n/a when theirs is 0 (CPU time in clock ticks: a short run may count none)."""
    return f"{ours / theirs:.2f}x" if theirs else "n/a"


def pressure_totals():
    """The machine's pressure stall totals (µs; Linux PSI): how long some task waited for a CPU, and
    some or all waited for I/O. Absent (zeros) where the kernel does not provide them."""
    totals = {}
    for resource_name in ("cpu", "io"):
        try:
            with open(f"/proc/pressure/{resource_name}") as f:
                for line in f:
                    kind, _, rest = line.partition(" ")
                    totals[f"{resource_name} {kind}"] = int(rest.rsplit("total=", 1)[1])
        except (OSError, ValueError, IndexError):
            pass
    return totals


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


async def main(args):
    global PIN_PREFIX
    raise_open_file_limit(65536)
    if args.pin:
        server_cpus, client_cpus = args.pin.split(":")
        PIN_PREFIX = ["taskset", "-c", server_cpus]
        os.sched_setaffinity(0, {int(cpu) for cpu in client_cpus.split(",")})
        print(f"pinned: servers on CPU {server_cpus}, client on CPU {client_cpus}")
    servers = [Signalbox(os.path.abspath(args.binary)), Nchan(args.nginx, args.nchan_module)]
    servers = [server for server in servers if server.name in args.servers.split(",")]
    baselines = []
    for index, spec in enumerate(args.baseline or []):
        binary, _, label = spec.partition("=")
        baselines.append(Signalbox(os.path.abspath(binary), name=label or f"baseline{index + 1}"))
    servers[1:1] = baselines
    sizes = [int(n) for n in args.clients.split(",")]
    summary = []
    for size in sizes:
        results = {server.name: [] for server in servers}
        if args.warmup:
            # The first runs at a size are slower on the client's side (its memory grows: about
            # 1.7x its CPU per read at 5,000 clients), which would count against whichever server
            # goes first. One unmeasured run of each server, in round 1's order.
            for server in servers:
                warm = await run_once(server, size, 2, args.gap)
                print(f"{size:>6} clients, warm-up, {server.name:>9}: p50 {pct(warm['delays'], 0.5):6.1f} ms (not counted)", flush=True)
        for round_index in range(args.rounds):
            # Two servers alternate; three rotate, so each goes first (and last) once in three rounds.
            if len(servers) == 2:
                order = servers if round_index % 2 == 0 else list(reversed(servers))
            else:
                shift = round_index % len(servers)
                order = servers[shift:] + servers[:shift]
            for server in order:
                before = loadavg()
                result = await run_once(server, size, args.events, args.gap)
                results[server.name].append(result)
                print(f"{size:>6} clients, round {round_index + 1}, {server.name:>9}: "
                      f"p50 {pct(result['delays'], 0.5):6.1f} ms, p99 {pct(result['delays'], 0.99):6.1f} ms, "
                      f"arrival p50 {pct(result['arrivals'], 0.5):6.1f} ms, p99 {pct(result['arrivals'], 0.99):6.1f} ms, "
                      f"slowest client median {statistics.median(result['slowest']) * 1000:6.1f} ms, "
                      f"first client median {statistics.median(result['firsts']) * 1000:6.1f} ms (slowest event's "
                      f"{max(result['firsts']) * 1000:6.1f}), "
                      f"publish answered median {statistics.median(result['acks']) * 1000:6.1f} ms, "
                      f"{result['kib_per_client']:5.2f} KiB/client, server CPU {result['cpu_us_per_delivery']:5.1f} us/delivery, "
                      f"missing {result['missing']}, "
                      f"stalled (PSI) cpu {result['pressure'].get('cpu some', 0):.0%} io {result['pressure'].get('io some', 0):.0%}"
                      f"/{result['pressure'].get('io full', 0):.0%} full, "
                      f"load {before}", flush=True)
        row = {"clients": size}
        for name, runs in results.items():
            delays = [d for run in runs for d in run["delays"]]
            arrivals = [d for run in runs for d in run["arrivals"]]
            row[name] = {
                "p50": pct(delays, 0.5), "p99": pct(delays, 0.99),
                "arrival p50": pct(arrivals, 0.5), "arrival p99": pct(arrivals, 0.99),
                "round_p99": [pct(run["delays"], 0.99) for run in runs],
                "kib": statistics.median(run["kib_per_client"] for run in runs),
                "missing": sum(run["missing"] for run in runs),
                "cpu": statistics.median(run["cpu_us_per_delivery"] for run in runs),
            }
        summary.append(row)

    print()
    print(f"{args.rounds} rounds x {args.events} events per client count; load average now {loadavg()}")
    print(f"{'clients':>7} | {'signalbox p50':>13} {'p99':>7} {'KiB/cl':>6} | {'nchan p50':>9} {'p99':>7} {'KiB/cl':>6} | "
          f"{'p99 ratio':>9} {'p50 ratio':>9}")
    for row in summary:
        if "signalbox" not in row or "nchan" not in row:
            print(row)
            continue
        ours, peer = row["signalbox"], row["nchan"]
        print(f"{row['clients']:>7} | {ours['p50']:>10.1f} ms {ours['p99']:>7.1f} {ours['kib']:>6.2f} | "
              f"{peer['p50']:>6.1f} ms {peer['p99']:>7.1f} {peer['kib']:>6.2f} | "
              f"{ours['p99'] / peer['p99']:>8.2f}x {ours['p50'] / peer['p50']:>8.2f}x"
              + (f"   missing: {ours['missing']} / {peer['missing']}" if ours["missing"] or peer["missing"] else ""))
        print(f"{'':>7}   arrival at the client's socket (kernel timestamp): signalbox p50 {ours['arrival p50']:.1f} ms, "
              f"p99 {ours['arrival p99']:.1f} ms; nchan p50 {peer['arrival p50']:.1f} ms, p99 {peer['arrival p99']:.1f} ms; "
              f"p99 ratio {ratio(ours['arrival p99'], peer['arrival p99'])}, p50 ratio {ratio(ours['arrival p50'], peer['arrival p50'])}")
        print(f"{'':>7}   server CPU per delivery (median of rounds): signalbox {ours['cpu']:.1f} us, nchan {peer['cpu']:.1f} us "
              f"({ratio(ours['cpu'], peer['cpu'])})")
        kb = ours["kib"] * 1.024
        print(f"{'':>7}   issue 16: p99 at most nchan's: {'yes' if ours['p99'] <= peer['p99'] else 'NO'}; "
              f"resident memory per client {kb:.2f} kB, at most 7.5 kB: {'yes' if kb <= 7.5 else 'NO'}")
        print(f"{'':>7}   per-round p99 signalbox {', '.join(f'{v:.1f}' for v in ours['round_p99'])}; "
              f"nchan {', '.join(f'{v:.1f}' for v in peer['round_p99'])}")
        for baseline in baselines:
            base = row[baseline.name]
            print(f"{'':>7}   {baseline.name} ({baseline.binary}): p50 {base['p50']:.1f} ms, p99 {base['p99']:.1f} ms "
                  f"(per round {', '.join(f'{v:.1f}' for v in base['round_p99'])}), {base['cpu']:.1f} us CPU per delivery, "
                  f"{base['kib']:.2f} KiB/client; p99 against nchan {base['p99'] / peer['p99']:.2f}x")
            print(f"{'':>7}   {baseline.name} arrival p50 {base['arrival p50']:.1f} ms, p99 {base['arrival p99']:.1f} ms "
                  f"(against nchan {ratio(base['arrival p99'], peer['arrival p99'])}); signalbox / {baseline.name} arrival: "
                  f"p99 {ratio(ours['arrival p99'], base['arrival p99'])}, p50 {ratio(ours['arrival p50'], base['arrival p50'])}")
            print(f"{'':>7}   signalbox / {baseline.name}: p99 {ours['p99'] / base['p99']:.2f}x, p50 {ours['p50'] / base['p50']:.2f}x, "
                  f"CPU per delivery {ratio(ours['cpu'], base['cpu'])}, memory per client {ratio(ours['kib'], base['kib'])}"
                  + (f"   missing: {base['missing']}" if base["missing"] else ""))
    print("ratio = signalbox / nchan (below 1: Signalbox faster); KiB/cl = resident KiB per client (VmRSS, as sse-fanout.py prints it)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", help="the signalbox executable (release build)")
    parser.add_argument("--clients", default="1000,5000,10000", help="comma-separated client counts")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--events", type=int, default=10, help="measured events per round")
    parser.add_argument("--gap", type=float, default=0.5, help="seconds between publishes")
    parser.add_argument("--no-warmup", dest="warmup", action="store_false",
                        help="skip the unmeasured run that warms the client up at each client count")
    parser.add_argument("--pin", default=None, help="SERVER:CLIENT CPU lists, e.g. 0:1 (taskset for the servers)")
    parser.add_argument("--servers", default="signalbox,nchan", help="which servers to run (for debugging one)")
    parser.add_argument("--baseline", action="append",
                        help="BINARY[=LABEL]: an older signalbox executable, run as another server in the same rounds (repeatable)")
    parser.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    parser.add_argument("--nchan-module", default="/usr/lib/nginx/modules/ngx_nchan_module.so")
    asyncio.run(main(parser.parse_args()))
