"""Shared pieces of the robustness suite (scripts/prove): the server under test, probes, figures.

Each part is a script `scripts/prove.d/<part>.py BINARY --mode short|long` that prints its
figures and exits 1 when a requirement fails. The server is the release binary, started on a
port of PROVE_PORTS (e.g. "18200-18299") when set, else one the kernel picks, with a fresh store.
"""
import argparse
import http.client
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/
from prometheus_text import metric_sum  # noqa: E402

API_KEY = "prove-secret-key"


def arguments(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("binary")
    parser.add_argument("--mode", choices=["short", "long"], default="short")
    return parser.parse_args()


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def free_port():
    ports = os.environ.get("PROVE_PORTS")
    if ports:
        low, high = (int(p) for p in ports.split("-"))
        candidates = range(low, high + 1)
    else:
        candidates = [0]
    for candidate in candidates:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            return s.getsockname()[1]
    raise RuntimeError(f"no free port in {ports}")


def raise_fd_limit(wanted=65536):
    """Raises this process's open-file limit (the children inherit it); returns the new soft limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(wanted, hard) if hard != resource.RLIM_INFINITY else wanted
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Report:
    """Collects requirement outcomes; `finish()` prints the verdict and exits."""

    def __init__(self, part):
        self.part = part
        self.failures = []
        print(f"== {part} (load average {load_average()})", flush=True)

    def figure(self, text):
        print(f"   {text}", flush=True)

    def require(self, name, condition, detail=""):
        print(f"   {'ok  ' if condition else 'FAIL'} {name}{(' — ' + detail) if detail else ''}", flush=True)
        if not condition:
            self.failures.append(name)
        return condition

    def finish(self):
        verdict = "passed" if not self.failures else f"FAILED ({len(self.failures)}: {'; '.join(self.failures)})"
        print(f"== {self.part}: {verdict} (load average {load_average()})", flush=True)
        sys.exit(1 if self.failures else 0)


class Server:
    """The release binary on a port of its own, with a store in a fresh directory."""

    def __init__(self, binary, settings=None, store=None, cpus=None, extra_env=None, fd_limit=None):
        self.binary = binary
        self.fd_limit = fd_limit
        self.settings = settings or {}
        self.workdir = tempfile.mkdtemp(prefix="signalbox-prove-")
        self.store = store or os.path.join(self.workdir, "store.sqlite")
        self.cpus = cpus
        self.extra_env = extra_env or {}
        self.port = None
        self.process = None
        self.log_path = os.path.join(self.workdir, "server.log")

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self):
        return self.process.pid

    def start(self, timeout=90):
        if os.environ.get("PROVE_SANITIZER"):
            timeout = max(timeout, 300)  # a sanitized debug server loads the cities slowly on a busy machine
        self.port = self.port or free_port()
        env = dict(os.environ, SIGNALBOX_API_KEY=API_KEY, SIGNALBOX_STORE=self.store, SIGNALBOX_LOG_LEVEL="warning")
        env.update(self.extra_env)
        command = [self.binary, "--host", "127.0.0.1", "--port", str(self.port)]
        for key, value in self.settings.items():
            command += ["--set", f"{key}={value}"]
        if self.cpus is not None:
            command = ["taskset", "-c", self.cpus] + command
        log = open(self.log_path, "ab")
        def limit_descriptors():
            if self.fd_limit:
                import resource
                resource.setrlimit(resource.RLIMIT_NOFILE, (self.fd_limit, self.fd_limit))
        self.process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=limit_descriptors)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                if get(self.port, "/readyz", timeout=2)[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        self.process.kill()  # never leave a server behind
        self.process.wait()
        raise RuntimeError("server did not become ready")

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout=30):
        """SIGTERM, then SIGKILL if it does not exit; returns the exit code."""
        if not self.alive():
            return self.process.returncode if self.process else None
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def kill9(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def cleanup(self):
        if self.alive():
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def crash_report(self, lines=150):
        """The crashed thread's part of the log (the runtime's fatal error and backtrace), else its tail.
        Also kept in PROVE_KEEP_LOGS (a directory) when set, as the work folder is removed."""
        try:
            with open(self.log_path, errors="replace") as f:
                text = f.readlines()
        except OSError:
            return ""
        keep = os.environ.get("PROVE_KEEP_LOGS")
        if keep:
            os.makedirs(keep, exist_ok=True)
            shutil.copy(self.log_path, os.path.join(keep, f"server-{self.pid}.log"))
        start = next((i for i, l in enumerate(text) if "Fatal error" in l or "Backtracing from" in l
                      or "crashed:" in l or "ERROR: AddressSanitizer" in l), None)
        if start is None:
            return "".join(text[-lines:])
        return "".join(text[max(0, start - 5):start + lines])

    def sanitizer_reports(self):
        """The sanitizer reports in the log (a server built with -sanitize=address or =thread), or ""."""
        try:
            with open(self.log_path, errors="replace") as f:
                lines = f.readlines()
        except OSError:
            return ""
        starts = [i for i, l in enumerate(lines) if "ERROR: AddressSanitizer" in l or "WARNING: ThreadSanitizer" in l
                  or "ERROR: LeakSanitizer" in l or "runtime error:" in l]
        return "".join("".join(lines[i:i + 40]) for i in starts[:3])

    def rss_kib(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def cpu_seconds(self):
        """User plus system CPU time used so far."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def fd_count(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def metric(self, name, labels=None):
        """Sum of a Prometheus metric's samples (those with `labels`, when given); None when it has none."""
        _, _, body = get(self.port, "/metrics")
        return metric_sum(body.decode(), name, labels)

    def stop_and_require_clean_exit(self, report, requirement="SIGTERM then ends it with exit code 0"):
        """The end of every part: SIGTERM, exit code 0 required, the server's files removed."""
        code = self.stop()
        # A crash's own words (the runtime's backtrace) are in the log, which cleanup removes.
        report.require(requirement, code == 0, f"exit {code}" + ("" if code == 0 else f"; server log:\n{self.crash_report()}"))
        reports = self.sanitizer_reports()
        if reports or os.environ.get("PROVE_SANITIZER"):
            report.require("no sanitizer report in the server's log", not reports, reports[:4000])
        self.cleanup()

    def connections(self):
        """(http_open_connections counting the /metrics request itself, open descriptors)."""
        return int(self.metric("http_open_connections") or 0), self.fd_count()

    def baseline(self):
        """The connection counts at rest: the least of a few readings (a client that just closed
        may not have been noticed yet)."""
        readings = []
        for _ in range(6):
            readings.append(self.connections())
            time.sleep(0.1)
        return min(c for c, _ in readings), min(f for _, f in readings)

    def wait_for_connections(self, baseline, timeout):
        """Waits until both counts are back at `baseline` (at most `slack` descriptors more); returns (seconds, counts)."""
        started = time.monotonic()
        counts = self.connections()
        while time.monotonic() - started < timeout:
            counts = self.connections()
            if counts[0] <= baseline[0] and counts[1] <= baseline[1]:
                return time.monotonic() - started, counts
            time.sleep(0.25)
        return None, counts


def get(port, path, headers=None, timeout=10, method="GET", body=None):
    """One request on a new connection: (status, headers, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(p / 100 * len(ordered) + 0.5)) - 1))]


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
                    status, _, _ = get(self.port, path, timeout=self.timeout)
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
    return (f"{len(latencies)} answers, p50 {percentile(latencies, 50):.1f} ms, p99 {percentile(latencies, 99):.1f} ms, "
            f"max {max(latencies):.1f} ms")


def median(values):
    return statistics.median(values) if values else float("nan")
