"""What the test scripts share (scripts/prove.d, scripts/e2e.d, scripts/cluster-test): the server under
test on a free port, replicas of a cluster, authorized requests, one raw-socket SSE reader, request and
writer threads, figures (percentile, load average) and the ok/FAIL report.

Imported, not run: a script puts scripts/ on its path (`sys.path.insert(0, SCRIPTS)`) and imports
`harness`. Every server binds 127.0.0.1; nothing here talks to another address.
"""
import collections
import http.client
import json
import os
import resource
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from prometheus_text import metric_sum  # noqa: E402

API_KEY = "harness-secret-key"
# How long a server may take from its start to answering /readyz 200 (it loads the embedded cities).
READY_TIMEOUT = 90
# Between two /readyz polls while a server starts.
READY_POLL = 0.05
# SIGTERM to exit: longer than the server's default grace period.
STOP_TIMEOUT = 30
# One check of `run_checks` at the most: longer than any takes on a loaded machine (four servers
# started one after another), short enough that a check waiting for an event that never comes
# fails instead of hanging the run.
CHECK_SECONDS = 300


# ---------------------------------------------------------------------------------------------
# Figures and waiting


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def percentile(values, p):
    """The p-th percentile by nearest rank (rounded up); NaN when there are no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(p / 100 * len(ordered) + 0.5)) - 1))]


def median(values):
    return statistics.median(values) if values else float("nan")


def wait_until(condition, timeout=10.0, interval=0.05):
    """Polls `condition` until it is true (True) or `timeout` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return False


def raise_fd_limit(wanted=65536):
    """Raises this process's open-file limit (the children inherit it); returns the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(wanted, hard) if hard != resource.RLIM_INFINITY else wanted
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def free_port(ports=None):
    """A port of 127.0.0.1 that nothing listens on: the kernel's pick, or the first free one of
    `ports` ("LOW-HIGH", e.g. PROVE_PORTS) where only some ports may be used."""
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


# ---------------------------------------------------------------------------------------------
# Reporting


class Report:
    """Prints figures and requirement outcomes (`   ok   name — detail` / `   FAIL ...`) and counts them.

    `title`: printed first with the load average (and by `finish`). `details_on_pass=False` prints a
    requirement's detail only when it fails (where the detail is a diagnosis, not a figure).
    """

    def __init__(self, title=None, details_on_pass=True):
        self.title, self.details_on_pass = title, details_on_pass
        self.passed, self.failures = 0, []
        if title:
            print(f"== {title} (load average {load_average()})", flush=True)

    def say(self, text):
        print(f"   {text}", flush=True)

    figure = say

    def section(self, name):
        print(name, flush=True)

    def require(self, name, condition, detail=""):
        condition = bool(condition)
        shown = detail not in ("", None) and (self.details_on_pass or not condition)
        self.say(f"{'ok  ' if condition else 'FAIL'} {name}{f' — {detail}' if shown else ''}")
        if condition:
            self.passed += 1
        else:
            self.failures.append(name)
        return condition

    def tally(self, label):
        """The closing line of a run: `label: N passed, M failed`."""
        return f"{label}: {self.passed} passed, {len(self.failures)} failed"

    def finish(self):
        """Prints the verdict and exits: 0 when every requirement held, else 1."""
        verdict = "passed" if not self.failures else f"FAILED ({len(self.failures)}: {'; '.join(self.failures)})"
        print(f"== {self.title}: {verdict} (load average {load_average()})", flush=True)
        sys.exit(1 if self.failures else 0)


class CheckTimedOut(Exception):
    pass


def run_checks(report, checks, subject, seconds=CHECK_SECONDS):
    """Runs each check (a function of `subject`) in order, in the main thread; an exception, or
    more than `seconds` s (SIGALRM ends a blocking read), fails that check and the others still run."""

    def timed_out(*_):
        raise CheckTimedOut(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, timed_out)
    try:
        for check in checks:
            signal.alarm(seconds)
            try:
                check(subject)
            except Exception as error:  # noqa: BLE001 (a check's bug or an unexpected answer: report it, go on)
                report.require(f"{check.__name__} runs to its end", False, f"{type(error).__name__}: {error}")
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------------------------------------
# Requests

Response = collections.namedtuple("Response", "status headers body")  # headers: lower-case names


def connect(port, timeout=10, cafile=None):
    """A connection to the server on `port`: plain HTTP to 127.0.0.1, or HTTPS to localhost verified
    against `cafile`."""
    if cafile:
        context = ssl.create_default_context(cafile=cafile)
        return http.client.HTTPSConnection("localhost", port, timeout=timeout, context=context)
    return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)


def request(port, method, path, body=None, headers=None, key=None, timeout=10, connection=None, cafile=None):
    """One request and its whole answer. On `connection` when given (it stays open: keep-alive), else
    on a new one closed after. `key` goes as the bearer token; a dict or list `body` as JSON."""
    own = connection is None
    connection = connection or connect(port, timeout, cafile)
    headers = dict(headers or {})
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    if body is not None:
        if not isinstance(body, (str, bytes)):
            body = json.dumps(body)
        headers.setdefault("Content-Type", "application/json")
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return Response(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        if own:
            connection.close()


def get(port, path, **options):
    return request(port, "GET", path, **options)


def put_document(port, doc_id, document, key=API_KEY, **options):
    """An authorized PUT /documents/ID of `document` (a dict, sent as JSON)."""
    return request(port, "PUT", f"/documents/{doc_id}", body=document, key=key, **options)


def curl(*args):
    """Runs curl (headers dumped, 10 s at most); returns (status, lower-case headers, body text)."""
    out = subprocess.run(
        ["curl", "-sS", "-D", "-", "--max-time", "10", *args], capture_output=True, check=True
    ).stdout.decode("utf-8", "replace")
    head, _, body = out.partition("\r\n\r\n")
    while head.startswith("HTTP/1.1 100"):
        head, _, body = body.partition("\r\n\r\n")
    lines = head.split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


# ---------------------------------------------------------------------------------------------
# The server under test


class ServerFailed(RuntimeError):
    """The server exited or did not become ready; the message ends with its log's tail."""


class Server:
    """The signalbox binary on a port of its own (kept across restarts), with its store and log in a
    work folder. A context manager: leaving it kills a server still running and removes the folder.

    settings    --set KEY=VALUE pairs; config: a dict written as the --config file (`configure`
                rewrites it, for SIGHUP); args: more arguments; env: more environment variables
    store       SQLite path or PostgreSQL URL (default: a fresh store.sqlite in the work folder)
    workdir     a folder of the caller's (kept), else a new temporary one (removed by `cleanup`)
    ports       "LOW-HIGH": take the port from that range; cpus: `taskset -c` list; fd_limit: the
                server's RLIMIT_NOFILE; log_level: SIGNALBOX_LOG_LEVEL (None: the binary's default)
    keep_logs   a folder where `crash_report` copies the log (the work folder is removed)
    ready_timeout  how long `start` waits for /readyz 200 by default
    sanitized   a sanitizer build: slower to start; its stop requires a log without sanitizer reports
    """

    def __init__(self, binary, *, name="server", settings=None, config=None, args=(), env=None, store=None,
                 workdir=None, ports=None, key=API_KEY, cpus=None, fd_limit=None, log_level="warning",
                 keep_logs=None, sanitized=False, prefix="signalbox-", ready_timeout=READY_TIMEOUT):
        self.binary, self.name, self.key = binary, name, key
        self.settings, self.config, self.args = dict(settings or {}), config, list(args)
        self.owns_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix=prefix)
        self.store = store or os.path.join(self.workdir, "store.sqlite")
        self.env = {"SIGNALBOX_LOG_LEVEL": log_level} if log_level else {}
        self.env.update(env or {})
        self.ports, self.cpus, self.fd_limit = ports, cpus, fd_limit
        self.keep_logs, self.sanitized, self.ready_timeout = keep_logs, sanitized, ready_timeout
        self.log_path = os.path.join(self.workdir, f"{name}.log")
        self.config_path = os.path.join(self.workdir, f"{name}.json")
        self.port, self.process, self.started = None, None, None
        if config is not None:
            self.configure(config)

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self):
        return self.process.pid

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.cleanup()

    def configure(self, settings):
        """Writes the --config file (a running server reads it again on SIGHUP)."""
        with open(self.config_path, "w") as f:
            json.dump(settings, f)

    def command(self):
        command = [self.binary, "--host", "127.0.0.1", "--port", str(self.port)]
        if self.config is not None:
            command += ["--config", self.config_path]
        for key, value in self.settings.items():
            command += ["--set", f"{key}={value}"]
        command += self.args
        return ["taskset", "-c", self.cpus] + command if self.cpus is not None else command

    def start(self, wait=True, timeout=None):
        """Starts the binary (its output appended to the log); with `wait`, returns once /readyz is 200."""
        self.port = self.port or free_port(self.ports)
        env = dict(os.environ, SIGNALBOX_API_KEY=self.key, SIGNALBOX_STORE=self.store)
        if self.store.startswith("postgres"):
            # A replica's saved indexes go to the working directory by default: keep them with its log.
            env["SIGNALBOX_INDEX_DIRECTORY"] = os.path.join(os.path.dirname(os.path.abspath(self.log_path)), f"index-{self.port}")
        env.update(self.env)
        fd_limit = self.fd_limit

        def limit_descriptors():
            if fd_limit:
                resource.setrlimit(resource.RLIMIT_NOFILE, (fd_limit, fd_limit))

        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(self.command(), env=env, stdout=log, stderr=subprocess.STDOUT,
                                            preexec_fn=limit_descriptors)
        self.started = time.monotonic()
        if wait:
            self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout=None):
        """Waits for /readyz 200 and returns its body; raises ServerFailed (killing a server that is
        still not ready) when it exits or `timeout` (default `ready_timeout`) s pass."""
        timeout = timeout or self.ready_timeout
        if self.sanitized:
            timeout = max(timeout, 300)  # a sanitized debug server loads the cities slowly on a busy machine
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerFailed(f"{self.name} exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                status, _, body = get(self.port, "/readyz", timeout=2)
                if status == 200:
                    return json.loads(body)
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(READY_POLL)
        self.process.kill()  # never leave a server behind
        self.process.wait()
        raise ServerFailed(f"{self.name} did not become ready in {timeout} s:\n{self.log_tail()}")

    def status(self):
        """/readyz's body, or {} when the server does not answer."""
        try:
            return json.loads(get(self.port, "/readyz", timeout=5).body)
        except (OSError, http.client.HTTPException, ValueError):
            return {}

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def send_signal(self, sig):
        self.process.send_signal(sig)

    def wait(self, timeout=STOP_TIMEOUT):
        """Waits for the exit; kills a server that has not exited by then. Returns the exit code."""
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def stop(self, timeout=STOP_TIMEOUT):
        """SIGTERM, then SIGKILL if it does not exit in `timeout` s; returns the exit code."""
        if not self.alive():
            return self.process.returncode if self.process else None
        self.process.send_signal(signal.SIGTERM)
        return self.wait(timeout)

    def kill9(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def cleanup(self):
        if self.alive():
            self.process.kill()
            self.process.wait()
        if self.owns_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def stop_and_require_clean_exit(self, report, requirement="SIGTERM then ends it with exit code 0"):
        """The end of a run: SIGTERM, exit code 0 required (else the crash's part of the log is shown),
        no sanitizer report in the log, then `cleanup`."""
        code = self.stop()
        # A crash's own words (the runtime's backtrace) are in the log, which cleanup removes.
        report.require(requirement, code == 0, f"exit {code}" + ("" if code == 0 else f"; server log:\n{self.crash_report()}"))
        reports = self.sanitizer_reports()
        if reports or self.sanitized:
            report.require("no sanitizer report in the server's log", not reports, reports[:4000])
        self.cleanup()

    # The log

    def log_lines(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.readlines()
        except OSError:
            return []

    def log_text(self):
        return "".join(self.log_lines())

    def log_tail(self, lines=30):
        return "".join(self.log_lines()[-lines:])

    def crash_report(self, lines=150):
        """The crashed thread's part of the log (the runtime's fatal error and backtrace), else its tail;
        the log is also copied to `keep_logs` when set."""
        text = self.log_lines()
        if self.keep_logs and os.path.exists(self.log_path):
            os.makedirs(self.keep_logs, exist_ok=True)
            shutil.copy(self.log_path, os.path.join(self.keep_logs, f"{self.name}-{self.pid}.log"))
        start = next((i for i, l in enumerate(text) if "Fatal error" in l or "Backtracing from" in l
                      or "crashed:" in l or "ERROR: AddressSanitizer" in l), None)
        if start is None:
            return "".join(text[-lines:])
        return "".join(text[max(0, start - 5):start + lines])

    def sanitizer_reports(self):
        """The sanitizer reports in the log (a server built with -sanitize=address or =thread), or ""."""
        lines = self.log_lines()
        starts = [i for i, l in enumerate(lines) if "ERROR: AddressSanitizer" in l or "WARNING: ThreadSanitizer" in l
                  or "ERROR: LeakSanitizer" in l or "runtime error:" in l]
        return "".join("".join(lines[i:i + 40]) for i in starts[:3])

    # The process, from /proc and /metrics

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
        return metric_sum(get(self.port, "/metrics").body.decode(), name, labels)

    def connections(self):
        """(http_open_connections counting the /metrics request itself, open descriptors)."""
        return int(self.metric("http_open_connections") or 0), self.fd_count()

    def baseline(self):
        """The connection counts at rest: the least of the last readings once the descriptor count
        has held for a second (at most 10 s): after a start the server saves its indexes and keeps
        the saved segment files open for reading; a client that just closed may not have been
        noticed yet, hence the least."""
        readings = []
        deadline = time.monotonic() + 10
        while True:
            readings.append(self.connections())
            recent = readings[-10:]
            if len(recent) == 10 and len({f for _, f in recent}) == 1 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        recent = readings[-6:]
        return min(c for c, _ in recent), min(f for _, f in recent)

    def wait_for_connections(self, baseline, timeout):
        """Waits until both counts are back at `baseline`; returns (seconds, counts), seconds None when
        they were not back in `timeout`."""
        started = time.monotonic()
        counts = self.connections()
        while time.monotonic() - started < timeout:
            counts = self.connections()
            if counts[0] <= baseline[0] and counts[1] <= baseline[1]:
                return time.monotonic() - started, counts
            time.sleep(0.25)
        return None, counts


class Replica(Server):
    """One replica of a cluster: a server on the shared database `store_url`, its log `NAME.log` in the
    cluster's work folder, keeping the last `history` changes for SSE clients that resume."""

    def __init__(self, binary, store_url, workdir, name, history=100000, **options):
        super().__init__(binary, name=name, store=store_url, workdir=workdir,
                         env={"SIGNALBOX_EVENTS_HISTORY": str(history)}, **options)

    def lookup(self, path):
        """GET's status, or None when the replica does not answer."""
        try:
            return get(self.port, path, timeout=5).status
        except (OSError, http.client.HTTPException):
            return None


# ---------------------------------------------------------------------------------------------
# Server-sent events

Event = collections.namedtuple("Event", "id event data at")  # event None: an id-only block; at: arrival


class SSEReader(threading.Thread):
    """A raw-socket client of one event stream (`GET path`), read in a thread of its own (`start`) or
    inline (`run`).

    Connecting sends `Last-Event-ID: last_event_id` when given (a resume) and reads the response head
    at once: `status`, `head` (lower-case text), `headers`. Reading then keeps every body byte with its
    arrival time (`chunks`), removes the chunked framing and parses the event blocks into `events`
    (calling `on_event(event)` for each, in the reading thread). It ends when the server closes the
    stream, `close()` is called, `stop` is set, or nothing arrives for `silence` s (None: no limit);
    `ended` says which. `whole_events()` tells whether the bytes so far end on an event boundary.
    """

    POLL = 1.0  # how often a reader waiting for data looks at `stop`

    def __init__(self, port, path="/events", last_event_id=None, stop=None, on_event=None, silence=30,
                 connect_timeout=10):
        super().__init__(daemon=True)
        self.stop, self.on_event, self.silence = stop, on_event, silence
        self.chunks, self.events, self.ended = [], [], None
        self.last_id = last_event_id
        self._closing = False
        self._framed, self._text, self._tail, self._fields = b"", b"", b"", {}
        resume = f"Last-Event-ID: {last_event_id}\r\n" if last_event_id is not None else ""
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=connect_timeout)
        try:
            self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: harness\r\nAccept: text/event-stream\r\n{resume}\r\n".encode())
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = self.sock.recv(4096)
                if not chunk:
                    break
                data += chunk
        except OSError:
            self.sock.close()
            raise
        head, _, rest = data.partition(b"\r\n\r\n")
        self.head = head.decode(errors="replace").lower()
        lines = self.head.split("\r\n")
        self.status = int(lines[0].split()[1]) if lines[0].startswith("http/1.1 ") else None
        self.headers = dict((name.strip(), value.strip()) for name, _, value in (l.partition(":") for l in lines[1:]))
        self.chunked = "chunked" in self.headers.get("transfer-encoding", "")
        if rest:
            self._receive(rest)

    def run(self):
        if self.status != 200:
            self.ended = f"answered {self.status}"
            self.sock.close()
            return
        self.sock.settimeout(self.POLL)
        last_data = time.monotonic()
        try:
            while self.ended is None:
                if self.stop is not None and self.stop.is_set():
                    self.ended = "stopped"
                    break
                try:
                    chunk = self.sock.recv(65536)
                except socket.timeout:
                    if self.silence is not None and time.monotonic() - last_data >= self.silence:
                        self.ended = f"nothing for {self.silence} s"
                    continue
                if not chunk:
                    self.ended = "closed by the client" if self._closing else "closed by the server"
                    break
                last_data = time.monotonic()
                self._receive(chunk)
        except OSError as error:
            self.ended = "closed by the client" if self._closing else repr(error)
        finally:
            self.sock.close()

    def close(self):
        # shutdown first: close alone does not end a connection another thread is reading.
        self._closing = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def received_between(self, start, end):
        """How many reads brought data between two monotonic times."""
        return sum(1 for t, _ in self.chunks if start <= t <= end)

    def first_data_after(self, moment):
        return next((t for t, _ in self.chunks if t > moment), None)

    def count(self, kind):
        return sum(1 for e in self.events if e.event == kind)

    def whole_events(self):
        """True when the bytes so far end on an event boundary: no chunk cut short, no event half-written."""
        return self._framed == b"" and self._text == b"" and self._tail in (b"", b"\n\n")

    def _receive(self, data):
        self.chunks.append((time.monotonic(), data))
        if not self.chunked:
            self._payload(data)
            return
        self._framed += data
        while True:  # whole chunks only: "SIZE\r\n" DATA "\r\n"
            line_end = self._framed.find(b"\r\n")
            if line_end < 0:
                return
            try:
                size = int(self._framed[:line_end].split(b";")[0], 16)
            except ValueError:
                self.ended = f"bad chunk framing: {self._framed[:40]!r}"
                return
            if size == 0:
                self._framed = b""
                self.ended = "the server ended the stream"
                return
            if len(self._framed) < line_end + 2 + size + 2:
                return
            self._payload(self._framed[line_end + 2:line_end + 2 + size])
            self._framed = self._framed[line_end + 2 + size + 2:]

    def _payload(self, data):
        self._tail = (self._tail + data)[-2:]
        self._text += data
        while b"\n" in self._text:
            line, self._text = self._text.split(b"\n", 1)
            line = line.rstrip(b"\r").decode("utf-8", "replace")
            if line == "":
                if self._fields:
                    self._dispatch(self._fields)
                self._fields = {}
            elif not line.startswith(":"):  # ":" starts a comment (a heartbeat)
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "data" and "data" in self._fields:
                    value = self._fields["data"] + "\n" + value
                self._fields[name] = value

    def _dispatch(self, fields):
        event = Event(fields.get("id"), fields.get("event"), fields.get("data", ""), time.monotonic())
        if event.id is not None:
            self.last_id = event.id
        self.events.append(event)
        if self.on_event:
            self.on_event(event)


# ---------------------------------------------------------------------------------------------
# Clients in threads

Request = collections.namedtuple("Request", "n method path body")
Answer = collections.namedtuple("Answer", "request sent answered status headers")


class RequestLoop(threading.Thread):
    """Sends requests one after another until `stop` is set: on one keep-alive connection (a new one
    after an error), or a new connection each with `fresh_connections`; `pause` s after each.

    What to send: `next_request(n)` (default: GET the `paths` in turn); where: `port_for(n)`. Records
    `statuses` (status, or "error" for a request that failed, → count), `answers` and `failures`
    (repr of each error). Subclasses react in `answered` and `failed` (False from it ends the loop).
    """

    def __init__(self, port, paths=(), pause=0.0, stop=None, key=None, fresh_connections=False, timeout=10):
        super().__init__(daemon=True)
        self.port, self.paths, self.pause, self.key = port, list(paths), pause, key
        self.stop = stop or threading.Event()
        self.fresh_connections, self.timeout = fresh_connections, timeout
        self.statuses, self.answers, self.failures = {}, [], []
        self.connection = None

    def next_request(self, n):
        return Request(n, "GET", self.paths[n % len(self.paths)], None)

    def port_for(self, n):
        return self.port

    def answered(self, answer):
        pass

    def failed(self, request, error):
        return True

    def run(self):
        n = 0
        while not self.stop.is_set():
            n += 1
            outgoing = self.next_request(n)
            port = self.port_for(n)
            sent = time.monotonic()
            try:
                if self.connection is None:
                    self.connection = connect(port, self.timeout)
                response = request(port, outgoing.method, outgoing.path, body=outgoing.body, key=self.key,
                                   connection=self.connection)
            except (OSError, http.client.HTTPException) as error:
                self.connection.close()
                self.connection = None
                self.statuses["error"] = self.statuses.get("error", 0) + 1
                self.failures.append(repr(error))
                if not self.failed(outgoing, error):
                    return
            else:
                self.statuses[response.status] = self.statuses.get(response.status, 0) + 1
                answer = Answer(outgoing, sent, time.monotonic(), response.status, response.headers)
                self.answers.append(answer)
                self.answered(answer)
            finally:
                if self.fresh_connections and self.connection is not None:
                    self.connection.close()
                    self.connection = None
            if self.pause:
                self.stop.wait(self.pause)
        if self.connection is not None:
            self.connection.close()


class Writer(RequestLoop):
    """Authorized writes one after another: PUT `{prefix}-{n % ids}` with the body `document(n)` (a
    name "{title} {n}", rank n, `country`), and with `delete_every` k, every k-th write a DELETE of the
    id the write before it PUT."""

    def __init__(self, port, prefix="doc", ids=50, title="Document", country="FR", delete_every=0, key=API_KEY,
                 **options):
        super().__init__(port, key=key, **options)
        self.prefix, self.ids, self.title, self.country, self.delete_every = prefix, ids, title, country, delete_every

    def document(self, n):
        return {"name": f"{self.title} {n}", "rank": n, "attributes": {"countryCode": self.country}}

    def next_request(self, n):
        if self.delete_every and n % self.delete_every == 0:
            return Request(n, "DELETE", f"/documents/{self.prefix}-{(n - 1) % self.ids}", None)
        return Request(n, "PUT", f"/documents/{self.prefix}-{n % self.ids}", self.document(n))
