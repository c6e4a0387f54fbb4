"""What the parts of scripts/cluster-test share: the scratch PostgreSQL (with a standby for the failover
part), replicas, writers and reconnecting SSE clients that record what they were told, and the checks
every part ends with (every 204 on every replica, every change to every client once, a log without gap).
Written against scripts/harness.py."""
import json
import os
import random
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from harness import Replica, Report, Request, SSEReader, Writer  # noqa: E402

# A replica's start to /readyz 200 (it loads the embedded cities and catches up with the log); a debug
# build on a machine busy with other builds needs more (CLUSTER_TEST_READY_SECONDS).
READY_SECONDS = float(os.environ.get("CLUSTER_TEST_READY_SECONDS", "120"))
HISTORY = os.environ.get("CLUSTER_TEST_HISTORY", "100000")
# How long the end of a part waits for every replica and client to reach the head.
CONVERGE_SECONDS = 30
report = Report()


class Postgres:
    """A scratch PostgreSQL server (scripts/pg-scratch) in `work`/`name`; with `primary`, a streaming
    standby of that server instead."""

    def __init__(self, work, name="pg", primary=None):
        self.dir = os.path.join(work, name)
        command = ["start", self.dir] if primary is None else ["standby", self.dir, primary.dir]
        result = subprocess.run([f"{ROOT}/scripts/pg-scratch", *command], capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"cluster-test: cannot start PostgreSQL: {result.stderr.strip()}")
        self.url = result.stdout.strip().splitlines()[-1]
        self.host = self.url.split("@", 1)[1].split("/", 1)[0]

    def scratch(self, command):
        subprocess.run([f"{ROOT}/scripts/pg-scratch", command, self.dir], check=True, capture_output=True)

    def restart_immediate(self):
        self.scratch("restart")

    def kill9(self):
        self.scratch("kill")

    def promote(self):
        self.scratch("promote")

    def sql(self, statement):
        return subprocess.run(["psql", self.url.split("?")[0], "-qAtc", statement], capture_output=True, text=True,
                              check=True).stdout.strip()

    def head(self):
        return int(self.sql("SELECT head FROM signalbox_meta"))

    def stop(self):
        subprocess.run([f"{ROOT}/scripts/pg-scratch", "stop", self.dir], capture_output=True)


# The replicas' log level (CLUSTER_TEST_LOG_LEVEL=info to see reconnects and checks in the logs kept on failure).
LOG_LEVEL = os.environ.get("CLUSTER_TEST_LOG_LEVEL", "warning")


def new_replica(binary, store, work, name, settings=None):
    return Replica(binary, store, work, name, history=HISTORY, ready_timeout=READY_SECONDS, settings=settings,
                   log_level=LOG_LEVEL)


class ClusterWriter(Writer):
    """Writes new documents (and deletes some of its own) to the replicas in turn, a new connection
    each; records every answer: the acknowledged ones by the sequence number they were given."""

    def __init__(self, number, replicas, stop, pause=0.0):
        super().__init__(None, stop=stop, fresh_connections=True, pause=pause)
        self.number, self.replicas = number, replicas
        self.acked = {}  # seq -> (method, id)
        self.unknown = 0
        self.uncertain = set()  # ids whose last write may or may not have landed (cut off, or 503)
        self.refused = {}
        self.mine = []

    def port_for(self, n):
        return self.replicas[(self.number + n - 1) % len(self.replicas)].port

    def next_request(self, n):
        if self.mine and n % 5 == 0:
            return Request(n, "DELETE", f"/documents/{self.mine.pop(random.randrange(len(self.mine)))}", None)
        return Request(n, "PUT", f"/documents/ct-{self.number}-{n}",
                       {"name": f"Clustertown {self.number} {n}", "attributes": {"writer": self.number}})

    def answered(self, answer):
        method, doc_id = answer.request.method, answer.request.path.rsplit("/", 1)[1]
        if answer.status == 204:
            self.acked[int(answer.headers["signalbox-seq"])] = (method, doc_id)
            if method == "PUT":
                self.mine.append(doc_id)
        else:
            self.refused[answer.status] = self.refused.get(answer.status, 0) + 1
            if answer.status == 503:  # not acknowledged; a commit cut off by its timeout may still land
                self.uncertain.add(doc_id)
                time.sleep(0.05)

    def failed(self, request, error):
        self.unknown += 1  # the replica died under us: the write may or may not have landed
        self.uncertain.add(request.path.rsplit("/", 1)[1])
        time.sleep(0.05)
        return True


class EventClient(threading.Thread):
    """An SSE client that reconnects to the next replica with Last-Event-ID when its stream breaks,
    or (`hop_to`) moves to another replica when told."""

    def __init__(self, number, replicas, done):
        super().__init__(daemon=True)
        self.number, self.replicas, self.done = number, replicas, done
        self.events = []  # (seq, event, doc id)
        self.collection_events = {}  # collection other than cities → [(seq, event, doc id)]
        self.first_position = None
        self.last_id = None
        self.reconnects = 0
        self.resets = 0
        self.refusals = 0  # answers other than 200 (a replica refusing a resume it cannot serve yet: 503)
        self.connected = threading.Event()
        self.stream = None
        self.target = None  # a replica to move to, set by hop_to
        self.hops = []  # (replica name, seconds from the hop order to the 200 there)

    def run(self):
        attempt = 0
        while not self.done.is_set():
            target, ordered = self.target or (None, None)
            replica = target or self.replicas[(self.number + attempt) % len(self.replicas)]
            attempt += 1
            try:
                stream = SSEReader(replica.port, last_event_id=self.last_id, stop=self.done, on_event=self.dispatch,
                                   silence=None, connect_timeout=2)
                self.stream = stream
                if self.target is not None and self.target[0] is not replica:
                    stream.close()  # told to hop while connecting elsewhere
                    continue
                if stream.status == 200:
                    self.connected.set()
                    if target is not None:
                        self.hops.append((replica.name, time.monotonic() - ordered))
                        self.target = None
                else:
                    self.refusals += 1
                stream.run()
            except OSError:
                pass
            if not self.done.is_set():
                self.reconnects += 1
                if self.target is None:
                    time.sleep(0.1)
                else:
                    time.sleep(0.01)  # hopping: try the new replica again soon

    def hop_to(self, replica):
        """Leaves the current stream and resumes (Last-Event-ID) on `replica` as soon as it answers."""
        self.target = (replica, time.monotonic())
        if self.stream is not None:
            self.stream.close()

    def dispatch(self, event):
        if event.id is None:
            return
        seq = int(event.id)
        if event.event == "reset":
            self.resets += 1
        elif event.event is not None:
            data = json.loads(event.data or "{}")
            self.events.append((seq, event.event, data.get("id")))
            if data.get("collection", "cities") != "cities":
                self.collection_events.setdefault(data["collection"], []).append((seq, event.event, data.get("id")))
        elif self.first_position is None and not self.events:
            self.first_position = seq  # an id-only block: where this client starts
        self.last_id = seq


def start_writers(count, replicas, stop, first=0, pause=0.0):
    writers = [ClusterWriter(first + i, replicas, stop, pause=pause) for i in range(count)]
    for writer in writers:
        writer.start()
    return writers


def start_clients(count, replicas, done, first=0):
    clients = [EventClient(first + i, replicas, done) for i in range(count)]
    for client in clients:
        client.start()
    for client in clients:
        client.connected.wait(10)
    return clients


def acknowledged(writers):
    """Every writer's acknowledged changes (seq → (method, id)), and what the others were told."""
    acked, refused = {}, {}
    for writer in writers:
        acked.update(writer.acked)
        for status, count in writer.refused.items():
            refused[status] = refused.get(status, 0) + count
    return acked, refused, sum(w.unknown for w in writers)


def converge(replicas, clients, head, done):
    """Waits until every replica has applied `head` and every client has seen it, then ends the clients."""
    deadline = time.monotonic() + CONVERGE_SECONDS
    while time.monotonic() < deadline and any(r.status().get("applied") != head for r in replicas):
        time.sleep(0.1)
    deadline = time.monotonic() + CONVERGE_SECONDS
    while time.monotonic() < deadline and any((c.last_id or 0) < head for c in clients):
        time.sleep(0.1)
    done.set()
    for client in clients:
        client.join(10)


def require_writes_on_every_replica(replicas, writers, acked, head):
    """Every 204 is on every replica: the latest acknowledged write of each id decides."""
    uncertain = set().union(*(w.uncertain for w in writers))
    latest = {}
    for seq in sorted(acked):
        method, doc_id = acked[seq]
        if doc_id not in uncertain:  # a later write of the id whose outcome nobody was told may have landed
            latest[doc_id] = method
    wrong = 0
    for replica in replicas:
        for doc_id, method in latest.items():
            status = replica.lookup(f"/documents/{doc_id}")
            wrong += status != (200 if method == "PUT" else 404)
    report.require("every acknowledged write is on every replica", wrong == 0 and len(latest) > 0,
                   f"{wrong} of {len(latest) * len(replicas)} lookups differ "
                   f"({len(uncertain)} ids with an unacknowledged last write left out)")
    report.require("every replica applied the head", all(r.status().get("applied") == head for r in replicas),
                   str([r.status().get("applied") for r in replicas]))


def require_changes_reached_every_client(clients, acked, head):
    """Every SSE client got every change after where it started, once, with consecutive ids, no reset."""
    bad = []
    for client in clients:
        seqs = [seq for seq, _, _ in client.events]
        start = client.first_position if client.first_position is not None else (seqs[0] - 1 if seqs else head)
        expected = list(range(start + 1, head + 1))
        if seqs != expected:
            missing = len(set(expected) - set(seqs))
            dupes = len(seqs) - len(set(seqs))
            bad.append(f"client {client.number}: {len(seqs)} events, {missing} missing, {dupes} twice")
        mismatched = sum(1 for seq, kind, doc_id in client.events
                         if seq in acked and (acked[seq][1] != doc_id or
                                              (kind == "document.deleted") != (acked[seq][0] == "DELETE")))
        if mismatched:
            bad.append(f"client {client.number}: {mismatched} events name another change than the 204 did")
        if client.resets:
            bad.append(f"client {client.number}: {client.resets} resets")
    reconnects = sum(c.reconnects for c in clients)
    report.require(f"every acknowledged change reached all {len(clients)} SSE clients exactly once, ids consecutive, "
                   f"no reset ({reconnects} reconnects)", not bad, "; ".join(bad[:5]))


def require_change_log_without_gap(pg, acked, head):
    """The change log has no gap, and holds every acknowledged sequence number."""
    count, low, high = (int(x) for x in pg.sql("SELECT count(*), min(seq), max(seq) FROM signalbox_change").split("|"))
    report.require("the change log has no gap", high == head and high - low + 1 == count, f"{count} rows {low}..{high}, head {head}")
    report.require("no acknowledged sequence number is missing from the log",
                   all(low <= seq <= high for seq in acked) and set(acked) <= set(range(low, high + 1)))
