#!/usr/bin/env python3
"""Where one `/events` fan-out spends its time: the server's system calls, timed, per event.

Usage: sse-fanout-timeline.py BINARY|nchan [--clients 1000] [--events 10] [--pin 0:1] [--gap 0.5] [--keep]

Starts BINARY (or nginx + nchan) as `sse-fanout-vs-nchan.py` does (fresh store, defaults, pinned
with `--pin`), connects N of its event-stream clients, publishes one unmeasured event, then
records with `perf record` (CLOCK_MONOTONIC, the clock this client reads) while it publishes E
more: the server's `recvfrom`/`read`, `sendto`/`writev`/`write`, `pwrite64` and
`fsync`/`fdatasync` calls, and, with `--pin`, every context switch on the server's CPU (who ran
there, the server or others). Nothing in the server is changed or switched on.

For each event it prints, in ms from the moment the client sent the publish:
  put read      the server's read that returned the publish request
  durable       the last fsync/fdatasync (or WAL pwrite64) before the first event write
  1st write / last write   the first and the last write of the event to a client
  204 sent      the write of the publish's answer (told from the events' by its descriptor)
  1st read / last read     the first and the last client that read the event
and, with `--pin`, for the publish (request read -> first event write) and the fan-out (first ->
last event write): how long the server ran on its CPU, how long other processes ran there, how
long it was idle, and how many times a server thread was switched in (a hand-off between the
server's threads, or a return after preemption); and, of each thread that wrote the event,
between its own first and last write, how long it waited for the CPU and how long it slept (a
lock or a futex: one loop writes a worker's clients, so it should never sleep). Medians over the
events close each table.
Needs `perf` (root, or a perf_event_paranoid that allows tracepoints system-wide).
"""
import argparse
import asyncio
import collections
import gc
import importlib.util
import os
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("fanout", os.path.join(HERE, "sse-fanout-vs-nchan.py"))
fanout = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fanout)

EVENTS = ("syscalls:sys_enter_recvfrom,syscalls:sys_exit_recvfrom,syscalls:sys_enter_read,syscalls:sys_exit_read,"
          "syscalls:sys_enter_sendto,syscalls:sys_enter_writev,syscalls:sys_enter_write,"
          "syscalls:sys_enter_pwrite64,syscalls:sys_enter_fsync,syscalls:sys_enter_fdatasync,"
          "syscalls:sys_exit_fsync,syscalls:sys_exit_fdatasync")
SCHED = "sched:sched_switch"
LINE = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<pid>-?\d+)/(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<time>\d+\.\d+):\s+"
                  r"(?P<group>syscalls|sched):(?P<event>\w+):\s*(?P<args>.*)$")


def parse(script_output, pid):
    """Perf script lines as (time in s, tid, event name, args dict): the server's system calls, and every
    switch on the traced CPU (whoever it was)."""
    rows = []
    for line in script_output.splitlines():
        match = LINE.match(line)
        if not match:
            continue
        if match["group"] == "sched":
            fields = dict(re.findall(r"(\w+)=(\S+)", match["args"]))
            rows.append((float(match["time"]), int(match["tid"]), match["event"],
                         {"prev": int(fields["prev_pid"]), "next": int(fields["next_pid"]), "next_comm": fields["next_comm"],
                          "prev_state": fields.get("prev_state", "")}))
            continue
        if int(match["pid"]) != pid:
            continue
        if match["event"].startswith("sys_exit"):
            # An exit carries only the return value, as `0x…` (a negative errno in two's complement).
            value = int(match["args"].strip() or "0", 16)
            args = {"ret": value - (1 << 64) if value >= 1 << 63 else value}
        else:
            args = {key: int(value, 16) for key, value in re.findall(r"(\w+): (0x[0-9a-f]+)", match["args"])}
        rows.append((float(match["time"]), int(match["tid"]), match["event"], args))
    return rows


def off_cpu_ms(rows, writers):
    """Of each thread that wrote the event, between its own first and last write of it: how long
    it waited for the CPU (preempted, runnable) and how long it slept (not runnable: a lock, a
    futex, I/O), in ms, summed over the threads. One loop writes a worker's clients, so a
    sleep inside it is a wait for something held elsewhere."""
    preempted = asleep = 0.0
    for tid, (first, last) in writers.items():
        out_since, out_state = None, None
        for when, _, event, args in rows:
            if event != "sched_switch" or when <= first:
                continue
            if when >= last:
                break
            if args["prev"] == tid:
                out_since, out_state = when, args["prev_state"][:1]
            elif args["next"] == tid and out_since is not None:
                if out_state == "R":
                    preempted += when - out_since
                else:
                    asleep += when - out_since
                out_since = None
    return preempted * 1000, asleep * 1000


def cpu_share(rows, start, end, server_tids):
    """Of the traced CPU between `start` and `end` (s): ms the server ran, ms others ran, ms idle, and
    how many times a server thread was switched in (each a wakeup or a return from preemption)."""
    running, since = None, start
    spent = {"server": 0.0, "others": 0.0, "idle": 0.0}
    switches_in = 0
    for when, _, event, args in rows:
        if event != "sched_switch":
            continue
        if when <= start:
            running = args["next"]
            continue
        if when >= end:
            break
        if running is not None:
            kind = "idle" if running == 0 else "server" if running in server_tids else "others"
            spent[kind] += when - since
        since, running = when, args["next"]
        if running in server_tids:
            switches_in += 1
    if running is not None:
        kind = "idle" if running == 0 else "server" if running in server_tids else "others"
        spent[kind] += end - since
    return {key: value * 1000 for key, value in spent.items()}, switches_in


def timeline(rows, sent, request_lengths, log_fds=()):
    """Per published event: the server-side times (absolute, s) of each step."""
    open_recv = {}  # tid -> fd of the recvfrom in progress
    steps = []
    current = None
    durable = None
    for when, tid, event, args in rows:
        if event in ("sys_enter_recvfrom", "sys_enter_read"):
            open_recv[tid] = args.get("fd")
        elif event in ("sys_exit_recvfrom", "sys_exit_read"):
            fd = open_recv.pop(tid, None)
            if args.get("ret") in request_lengths:
                current = {"put read": when, "put fd": fd, "writes": [], "answer": None, "durable": None}
                steps.append(current)
                durable = None
        elif event in ("sys_exit_fsync", "sys_exit_fdatasync", "sys_enter_pwrite64"):
            durable = when
        elif event in ("sys_enter_sendto", "sys_enter_writev", "sys_enter_write") and current is not None:
            if event == "sys_enter_write" and args.get("fd") in log_fds:
                continue
            if args.get("fd") == current["put fd"]:
                current["answer"] = current["answer"] or when
            else:
                if not current["writes"]:
                    current["durable"] = durable
                current["writes"].append(when)
                span = current.setdefault("writers", {}).setdefault(tid, [when, when])
                span[1] = when
    return steps


def open_files(pid):
    """The process's descriptors that are files, not sockets (its logs: their writes are not the event's)."""
    fds = set()
    for name in os.listdir(f"/proc/{pid}/fd"):
        try:
            if not os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                fds.add(int(name))
        except OSError:
            pass
    return fds


async def main(args):
    fanout.raise_open_file_limit(65536)
    if args.pin:
        server_cpus, client_cpus = args.pin.split(":")
        fanout.PIN_PREFIX = ["taskset", "-c", server_cpus]
        os.sched_setaffinity(0, {int(cpu) for cpu in client_cpus.split(",")})
    server = fanout.Nchan(args.nginx, args.nchan_module) if args.binary == "nchan" else fanout.Signalbox(os.path.abspath(args.binary))
    directory = tempfile.mkdtemp(prefix="fanout-timeline-")
    port = fanout.free_port()
    server.start(directory, port)
    perf = None
    try:
        await fanout.wait_ready(port, server.ready_request, "the server")
        clients = [fanout.Client() for _ in range(args.clients)]
        tasks = await fanout.connect_all(
            args.clients, lambda index, connected: clients[index].run(port, server.events_path, connected, args.events + 1), 180)
        await asyncio.sleep(1.0)
        # Event 0 warms the server up, untraced.
        await fanout.http(port, server.publish_request(0))
        await asyncio.sleep(args.gap)
        data = os.path.join(directory, "perf.data")
        pid = server.measured_pid()
        # Pinned: everything on the server's CPU, so the switches show who else ran there.
        where = ["-a", "-C", fanout.PIN_PREFIX[-1], "-e", SCHED] if args.pin else ["-p", str(pid)]
        perf = subprocess.Popen(["perf", "record", "-q", "-k", "CLOCK_MONOTONIC", "-e", EVENTS] + where + ["-o", data],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await asyncio.sleep(1.0)  # perf attaches
        gc.collect()
        gc.disable()
        sent, lengths = {}, set()
        for n in range(1, args.events + 1):
            request = server.publish_request(n)
            lengths.add(len(request))
            sent[n] = time.monotonic()
            response = await fanout.http(port, request)
            assert response[9:10] == b"2", response[:200]
            await asyncio.sleep(args.gap)
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
        gc.enable()
        perf.send_signal(signal.SIGINT)
        perf.wait(timeout=60)
        script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,tid,cpu,time,event,trace"], capture_output=True,
                                text=True).stdout
        rows = parse(script, pid)
        server_tids = {int(tid) for tid in os.listdir(f"/proc/{pid}/task")}
        steps = timeline(rows, sent, lengths, log_fds=open_files(pid))
        if len(steps) != args.events:
            print(f"found {len(steps)} PUTs in the trace, expected {args.events}")
        columns = collections.defaultdict(list)
        print(f"{args.clients} clients; ms from the client's PUT; load average {fanout.loadavg()}")
        print(f"{'event':>5} {'put read':>9} {'durable':>8} {'1st write':>9} {'last write':>10} {'204 sent':>8} {'1st read':>8} {'last read':>9} {'writes':>6}")
        for n, step in zip(range(1, args.events + 1), steps):
            t0 = sent[n]
            reads = [client.received[n] for client in clients if n in client.received]
            row = {
                "put read": step["put read"] - t0,
                "durable": (step["durable"] - t0) if step["durable"] else float("nan"),
                "1st write": (step["writes"][0] - t0) if step["writes"] else float("nan"),
                "last write": (step["writes"][-1] - t0) if step["writes"] else float("nan"),
                "204 sent": (step["answer"] - t0) if step["answer"] else float("nan"),
                "1st read": min(reads) - t0,
                "last read": max(reads) - t0,
            }
            for key, value in row.items():
                columns[key].append(value)
            print(f"{n:>5} " + " ".join(f"{row[key] * 1000:>{width}.1f}" for key, width in
                                        (("put read", 9), ("durable", 8), ("1st write", 9), ("last write", 10), ("204 sent", 8),
                                         ("1st read", 8), ("last read", 9))) + f" {len(step['writes']):>6}")
        print("median " + " ".join(f"{statistics.median(v) * 1000:>8.1f}" for v in columns.values()))
        if args.pin:
            print()
            print(f"the server's CPU {fanout.PIN_PREFIX[-1]}, ms: the server ran / others ran / idle, and server switch-ins")
            print(f"{'event':>5} | {'publish (PUT read -> 1st write)':>33} | {'fan-out (1st -> last write)':>33} | the writing "
                  "threads, each between its own first and last write: ms preempted, ms asleep (a lock: a fan-out waits for nothing)")
            shares = collections.defaultdict(list)
            for n, step in zip(range(1, args.events + 1), steps):
                if not step["writes"]:
                    continue
                cells = []
                for name, start, end in (("publish", step["put read"], step["writes"][0]), ("fan-out", step["writes"][0], step["writes"][-1])):
                    spent, switches = cpu_share(rows, start, end, server_tids)
                    for key, value in list(spent.items()) + [("switches", switches)]:
                        shares[(name, key)].append(value)
                    cells.append(f"{spent['server']:6.2f} {spent['others']:6.2f} {spent['idle']:6.2f} {switches:>4} sw")
                    if name == "fan-out":
                        preempted, asleep = off_cpu_ms(rows, step.get("writers", {}))
                        shares[("fan-out", "asleep")].append(asleep)
                        cells[-1] += f" | {preempted:7.2f} {asleep:6.2f}"
                print(f"{n:>5} | {cells[0]:>33} | {cells[1]:>33}")
            print("median | " + " | ".join(
                f"{statistics.median(shares[(name, 'server')]):6.2f} {statistics.median(shares[(name, 'others')]):6.2f} "
                f"{statistics.median(shares[(name, 'idle')]):6.2f} {statistics.median(shares[(name, 'switches')]):>4} sw"
                for name in ("publish", "fan-out"))
                + f" | asleep: median {statistics.median(shares[('fan-out', 'asleep')]):.2f} ms, max {max(shares[('fan-out', 'asleep')]):.2f}")
    finally:
        if perf and perf.poll() is None:
            perf.send_signal(signal.SIGINT)
            perf.wait(timeout=60)
        server.stop()
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)
        else:
            print(f"kept {directory}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", help="a signalbox executable, or `nchan` for nginx + nchan as sse-fanout-vs-nchan.py runs it")
    parser.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    parser.add_argument("--nchan-module", default="/usr/lib/nginx/modules/ngx_nchan_module.so")
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--events", type=int, default=10)
    parser.add_argument("--gap", type=float, default=0.5)
    parser.add_argument("--pin", default=None)
    parser.add_argument("--keep", action="store_true", help="keep the directory with perf.data and the server's log")
    asyncio.run(main(parser.parse_args()))
