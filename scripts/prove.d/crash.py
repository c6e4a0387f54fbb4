#!/usr/bin/env python3
"""Part 4, crash safety: `kill -9` during a storm of writes loses no acknowledged write.

Several writers (threads, one keep-alive connection each) send authenticated PUTs and DELETEs
as fast as they are answered; each writer owns its own document ids, so the writes to one id are
sequential and the expected state is exact. At a random moment the server is killed with
SIGKILL. Then: SQLite's `PRAGMA integrity_check` on the store answers ok, the server restarts on
the same store, and for every id the document is what its last write answered 204 left
(the body it stored, or absent after a delete), or what the one write in flight at the kill
(sent, never answered) would leave. Short mode: 2 rounds; long mode: 10, on one store.
"""
import json
import os
import random
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import Server, arguments  # noqa: E402
from harness import Report, Request, Writer, get  # noqa: E402

WRITERS = 6
IDS_PER_WRITER = 20


class CrashWriter(Writer):
    """Writes its own ids as fast as answered, so the expected state of each is exact."""

    def __init__(self, port, index, state, seed):
        super().__init__(port)
        self.index, self.random = index, random.Random(seed)
        self.state = state  # id -> expected name (None: absent); shared across rounds
        self.in_flight = None  # (id, name or None) sent but not answered
        self.acknowledged = 0
        self.refused = []

    def next_request(self, n):
        key = f"crash-{self.index}-{self.random.randrange(IDS_PER_WRITER)}"
        delete = self.state.get(key) is not None and self.random.random() < 0.25
        name = None if delete else f"Crash writer {self.index} write {n} {self.random.random():.6f}"
        self.in_flight = (key, name)
        if delete:
            return Request(n, "DELETE", f"/documents/{key}", None)
        return Request(n, "PUT", f"/documents/{key}", {"name": name, "alternateNames": [f"w{self.index}n{n}"], "rank": n,
                                                       "attributes": {"countryCode": "FR", "writer": self.index}})

    def answered(self, answer):
        if answer.status == 204:
            self.state[self.in_flight[0]] = self.in_flight[1]
            self.acknowledged += 1
        else:
            self.refused.append(answer.status)
        self.in_flight = None

    def failed(self, request, error):
        return False  # the server is gone: this write stays in flight


def integrity(store):
    connection = sqlite3.connect(store)
    try:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()


def main():
    args = arguments(__doc__)
    report = Report(f"crash safety ({args.mode})")
    rounds = 2 if args.mode == "short" else 10
    rng = random.Random(11)
    server = Server(args.binary)
    state = {}
    total_acknowledged = 0
    try:
        for round in range(1, rounds + 1):
            server.start()
            writers = [CrashWriter(server.port, i, state, rng.random()) for i in range(WRITERS)]
            for writer in writers:
                writer.start()
            delay = rng.uniform(1.0, 3.0)
            time.sleep(delay)
            server.kill9()
            for writer in writers:
                writer.stop.set()
                writer.join(timeout=15)
            acknowledged = sum(w.acknowledged for w in writers)
            total_acknowledged += acknowledged
            in_flight = {w.in_flight[0]: w.in_flight[1] for w in writers if w.in_flight}
            refused = [s for w in writers for s in w.refused]
            check = integrity(server.store)

            server.start()
            wrong = []
            for key, expected in state.items():
                status, _, body = get(server.port, f"/documents/{key}")
                actual = json.loads(body)["name"] if status == 200 else None
                if status not in (200, 404):
                    wrong.append(f"{key}: status {status}")
                elif actual != expected and not (key in in_flight and actual == in_flight[key]):
                    wrong.append(f"{key}: expected {expected!r}, found {actual!r}")
                elif key in in_flight:
                    # The write in flight at the kill may or may not have committed; what the
                    # store holds now is what later rounds must expect (a committed DELETE
                    # would otherwise be expected present, and deleted again: a 404).
                    state[key] = actual
            present = sum(1 for v in state.values() if v is not None)
            report.figure(f"round {round}: {WRITERS} writers, SIGKILL after {delay:.2f} s; {acknowledged} writes answered 204 "
                          f"({acknowledged / delay:.0f}/s), {len(in_flight)} in flight; {len(state)} ids checked "
                          f"({present} present, {len(state) - present} deleted); integrity_check: {check}")
            report.require(f"round {round}: no write refused", not refused, f"statuses {sorted(set(refused))}")
            report.require(f"round {round}: SQLite integrity_check is ok", check == "ok", check)
            report.require(f"round {round}: every acknowledged write (or delete) holds after the restart", not wrong,
                           "; ".join(wrong[:5]))
            # The writes reach the index as well as the store: a stored name is found by search.
            sample = next((name for name in state.values() if name), None)
            if sample:
                status, _, body = get(server.port, "/search?q=" + "+".join(sample.split()[:5]).replace(" ", "+") + "&limit=100")
                names = [hit["name"] for hit in json.loads(body)["hits"]] if status == 200 else []
                report.require(f"round {round}: a restored document is found by search", sample in names, sample)
            server.kill9() if round < rounds else None
        report.figure(f"{total_acknowledged} acknowledged writes over {rounds} kills")
    finally:
        server.stop_and_require_clean_exit(report, "the last restart ends with SIGTERM and exit code 0")
    report.finish()


if __name__ == "__main__":
    main()
