"""The write figures of the README (issue 27, part 4), in one run: writes/s of the cluster with 64
concurrent writers against single-node SQLite, and the cross-replica latency (a PUT on one replica
until its event arrives on another's /events), each with 3 and with 5 replicas.

The writers are wrk connections (keep-alive), each PUTting new documents back to back, spread evenly
over the replicas (one wrk process per replica); writes/s counts the 2xx answers only."""
import json
import os
import re
import resource
import select
import socket
import subprocess
import time

from cluster import ROOT, new_replica, report
from harness import API_KEY, load_average, median, percentile

WRITERS = 64
ROUND_SECONDS = 5
ROUNDS = 2
LATENCY_WRITES = 300
LUA = os.path.join(ROOT, "scripts", "cluster-test.d", "put.lua")


def wrk_writes(targets, seconds, label):
    """Writes/s of WRITERS wrk connections spread over `targets`, and the 2xx count."""
    processes = []
    for number, target in enumerate(targets):
        connections = WRITERS // len(targets) + (1 if number < WRITERS % len(targets) else 0)
        processes.append(subprocess.Popen(
            ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "-s", LUA,
             f"http://127.0.0.1:{target.port}", "--", f"{label}-{number}", API_KEY],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    good = 0
    for process in processes:
        out, _ = process.communicate()
        requests = re.search(r"(\d+) requests in", out)
        bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
        if not requests:
            raise RuntimeError(f"wrk: {out}")
        good += int(requests.group(1)) - (int(bad.group(1)) if bad else 0)
        if bad or errors:
            report.say(f"   wrk against {label}: {out.strip().splitlines()[-4:]}")
    return good / seconds


def cross_replica_latency(replicas):
    """PUT on replica 0 (a new connection each, as a browser's write) until the event arrives on
    replica 1's /events, one write at a time; 204 and event times in ms. One thread and select():
    a Python thread per socket measured the interpreter's thread switches (5 ms each) instead."""
    stream = socket.create_connection(("127.0.0.1", replicas[1].port), timeout=10)
    stream.sendall(b"GET /events HTTP/1.1\r\nHost: figures\r\nAccept: text/event-stream\r\n\r\n")
    received = b""
    while b"\r\n\r\n" not in received:
        received += stream.recv(65536)
    answered, arrived, refused = [], [], {}
    for n in range(LATENCY_WRITES):
        body = json.dumps({"name": f"Latency {n}"}).encode()
        sent = time.monotonic()
        with socket.create_connection(("127.0.0.1", replicas[0].port), timeout=10) as write:
            write.sendall(f"PUT /documents/lat-{len(replicas)}-{n} HTTP/1.1\r\nHost: figures\r\n"
                          f"Authorization: Bearer {API_KEY}\r\nContent-Type: application/json\r\n"
                          f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
            answer = b""
            while chunk := write.recv(65536):
                answer += chunk
        acknowledged = time.monotonic()
        head = answer.split(b"\r\n\r\n", 1)[0].decode(errors="replace").split("\r\n")
        status = int(head[0].split()[1])
        if status != 204:
            refused[status] = refused.get(status, 0) + 1
            continue
        seq = next(line.split(":", 1)[1].strip() for line in head if line.lower().startswith("signalbox-seq:"))
        wanted = f"id: {seq}\n".encode()
        deadline = sent + 5
        while wanted not in received and time.monotonic() < deadline:
            ready, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
            if ready:
                received += stream.recv(65536)
        if wanted not in received:
            arrived.append(float("inf"))
            continue
        arrived.append((time.monotonic() - sent) * 1000)
        answered.append((acknowledged - sent) * 1000)
        received = received[received.index(wanted) + len(wanted):]
    stream.close()
    if refused:
        report.say(f"   latency writes not answered 204 (left out): {refused}")
    return answered, arrived


def commit_groups(servers):
    """(commit groups, upserts they carried, CPU seconds) summed over `servers` (GroupCommit's counters)."""
    return (sum(server.metric("signalbox_commit_groups_total") or 0 for server in servers),
            sum(server.metric("signalbox_commit_group_writes_total") or 0 for server in servers),
            sum(server.cpu_seconds() for server in servers))


def postgres_cpu_seconds(pg):
    """User plus system CPU of the PostgreSQL server so far: the postmaster (with its children that
    have exited) and every live child process (backends, WAL writer, checkpointer)."""
    def times(pid, children=False):
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return sum(int(v) for v in fields[11:15 if children else 13])
    with open(os.path.join(pg.dir, "data", "postmaster.pid")) as f:
        postmaster = int(f.readline())
    total = times(postmaster, children=True)
    for child in subprocess.run(["ps", "-o", "pid=", "--ppid", str(postmaster)], capture_output=True, text=True).stdout.split():
        try:
            total += times(int(child))
        except OSError:
            pass  # exited meanwhile: counted in the postmaster's children then
    return total / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    """User plus system CPU of this process's reaped children (the wrk processes once waited for)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(binary, work, pg):
    """Rounds alternate between the 3-replica cluster, single-node SQLite and the 5-replica cluster."""
    report.section(f"-- write figures: {WRITERS} writers, {ROUNDS} alternating rounds of {ROUND_SECONDS} s "
                   f"(load average {load_average()})")
    # Each cluster on a database of its own: a replica applies every change of its database.
    clusters = {}
    for n in (3, 5):
        pg.sql(f"CREATE DATABASE figures{n}")
        url = pg.url.replace("/signalbox?", f"/figures{n}?")
        clusters[n] = [new_replica(binary, url, work, f"tp{n}-{i}").start() for i in range(n)]
    sqlite = new_replica(binary, os.path.join(work, "single.sqlite"), work, "sqlite").start()
    rates = {"3 replicas": [], "5 replicas": [], "SQLite": []}
    try:
        # Latency first, on replicas as they start (the index's recent-changes part small), as before issue 27.
        for n, replicas in clusters.items():
            answered, arrived = cross_replica_latency(replicas)
            report.say(f"cross-replica latency, {n} replicas (PUT on one → its event on another, {LATENCY_WRITES} writes "
                       f"one at a time): p50 {percentile(arrived, 50):.2f} ms, p99 {percentile(arrived, 99):.2f} ms; "
                       f"the PUT's 204 p50 {percentile(answered, 50):.2f} ms, p99 {percentile(answered, 99):.2f} ms "
                       f"(load average {load_average()})")
        groups = {"3 replicas": clusters[3], "5 replicas": clusters[5], "SQLite": [sqlite]}
        before = {name: commit_groups(servers) for name, servers in groups.items()}
        postgres_cpu = {name: 0.0 for name in groups}  # PostgreSQL's CPU in each cluster's rounds
        wrk_cpu = {name: 0.0 for name in groups}  # the load generator's CPU (wrk, reaped children) in those rounds
        for round_number in range(ROUNDS):
            for n, replicas in clusters.items():
                started, wrk_started = postgres_cpu_seconds(pg), children_cpu_seconds()
                rates[f"{n} replicas"].append(wrk_writes(replicas, ROUND_SECONDS, f"r{round_number}-c{n}"))
                postgres_cpu[f"{n} replicas"] += postgres_cpu_seconds(pg) - started
                wrk_cpu[f"{n} replicas"] += children_cpu_seconds() - wrk_started
            wrk_started = children_cpu_seconds()
            rates["SQLite"].append(wrk_writes([sqlite], ROUND_SECONDS, f"r{round_number}-s"))
            wrk_cpu["SQLite"] += children_cpu_seconds() - wrk_started
        sqlite_rate = median(rates["SQLite"])
        for name in ("3 replicas", "5 replicas"):
            rate = median(rates[name])
            report.say(f"writes/s, {WRITERS} writers: cluster of {name} {rate:,.0f} (rounds {[round(r) for r in rates[name]]}), "
                       f"single-node SQLite {sqlite_rate:,.0f} (rounds {[round(r) for r in rates['SQLite']]}): "
                       f"{rate / sqlite_rate:.2f}× (load average {load_average()})")
        for name, servers in groups.items():
            (groups_before, writes_before, cpu_before), (groups_after, writes_after, cpu_after) = before[name], commit_groups(servers)
            committed = writes_after - writes_before
            report.say(f"   {name}: {committed:,.0f} upserts in {groups_after - groups_before:,.0f} commit groups "
                       f"({committed / max(groups_after - groups_before, 1):.1f} a group); server CPU "
                       f"{(cpu_after - cpu_before) * 1e6 / max(committed, 1):,.0f} µs per write (all its servers, "
                       f"{(cpu_after - cpu_before) * 1e6 / max(committed, 1) / len(servers):,.0f} each)"
                       + (f", PostgreSQL {postgres_cpu[name] * 1e6 / max(committed, 1):,.0f} µs per write"
                          if name != "SQLite" else "")
                       + f", wrk {wrk_cpu[name] * 1e6 / max(committed, 1):,.0f} µs per write; in all "
                         f"{(cpu_after - cpu_before + postgres_cpu[name] + wrk_cpu[name]) / (ROUNDS * ROUND_SECONDS):.2f} "
                         f"of the machine's {os.cpu_count()} cores")
    finally:
        sqlite.stop(timeout=15)
        for replicas in clusters.values():
            for replica in replicas:
                replica.stop(timeout=15)
