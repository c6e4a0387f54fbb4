"""What only the robustness suite's parts share (scripts/prove): their arguments, the server under test
with the suite's defaults, and the normal client that measures latency. The rest is in scripts/harness.py.

Each part is a script `scripts/prove.d/<part>.py BINARY --mode short|long` that prints its
figures and exits 1 when a requirement fails. The server is the release binary, started on a
port of PROVE_PORTS (e.g. "18200-18299") when set, else one the kernel picks, with a fresh store.
"""
import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/, for the parts too
import harness  # noqa: E402


def arguments(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("binary")
    parser.add_argument("--mode", choices=["short", "long"], default="short")
    return parser.parse_args()


class Server(harness.Server):
    """harness.Server with the suite's environment: a port of PROVE_PORTS, a crashed server's log kept
    in PROVE_KEEP_LOGS, and PROVE_SANITIZER for a sanitizer build (scripts/prove-sanitizers)."""

    def __init__(self, binary, **options):
        super().__init__(binary, ports=os.environ.get("PROVE_PORTS"), keep_logs=os.environ.get("PROVE_KEEP_LOGS"),
                         sanitized=bool(os.environ.get("PROVE_SANITIZER")), prefix="signalbox-prove-", **options)


class Probe(threading.Thread):
    """A normal client: one search at a time on a new connection each, `rate` per second.

    A new connection per request is what a new visitor needs; an attack on the connection budget
    shows up here first. Records each latency (ms) and each failure (exception or non-200).
    """

    PATHS = ["/search?q=sao%20pa", "/search?q=amsterdma", "/search?q=paris&country=FR", "/healthz", "/search?q=berl"]

    def __init__(self, port, rate=20.0, timeout=10.0):
        super().__init__(daemon=True)
        self.port, self.interval, self.timeout = port, 1.0 / rate, timeout
        self.latencies, self.failures, self.times = [], [], []
        self.running = threading.Event()
        self.stopped = threading.Event()

    def run(self):
        n = 0
        while not self.stopped.is_set():
            if self.running.is_set():
                path = self.PATHS[n % len(self.PATHS)]
                n += 1
                started = time.monotonic()
                try:
                    status = harness.get(self.port, path, timeout=self.timeout).status
                    if status == 200:
                        self.latencies.append((time.monotonic() - started) * 1000)
                        self.times.append(started)
                    else:
                        self.failures.append(f"{path}: {status}")
                except OSError as error:
                    self.failures.append(f"{path}: {error!r}")
            self.stopped.wait(self.interval)

    def measure(self, seconds):
        """Probes for `seconds`; returns (latencies, failures) of that window."""
        self.latencies, self.failures, self.times = [], [], []
        self.running.set()
        time.sleep(seconds)
        self.running.clear()
        time.sleep(self.interval)
        return list(self.latencies), list(self.failures)

    def latencies_between(self, windows):
        """Latencies of the last window measured whose requests started inside one of `windows` ((start, end) pairs)."""
        return [l for l, t in zip(self.latencies, self.times) if any(a <= t <= b for a, b in windows)]

    def stop(self):
        self.stopped.set()


def describe_latencies(latencies):
    if not latencies:
        return "no answers"
    return (f"{len(latencies)} answers, p50 {harness.percentile(latencies, 50):.1f} ms, "
            f"p99 {harness.percentile(latencies, 99):.1f} ms, max {max(latencies):.1f} ms")
