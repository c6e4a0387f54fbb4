#!/usr/bin/env python3
"""End-to-end checks of HTTPS in a signalbox binary, with certificates made now.

usage: python3 scripts/e2e.d/tls.py PATH_TO_SIGNALBOX   (scripts/e2e runs it)
Makes certificates with `openssl req -x509` (and an expired one with
`openssl x509 -req -days -1`), then checks: refusal at start of an expired
certificate and of a key that does not match; curl --cacert for /search;
openssl s_client (TLS 1.3 negotiated, TLS 1.1 refused); plain HTTP on the TLS
port; SSE over TLS with httpx-sse; certificate reload by SIGHUP under an open
SSE stream, and a bad reload refused; the 308 redirect listener; SIGTERM.
Each check is a function of CHECKS, run in that order once the server is up.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import httpx
import httpx_sse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/
from harness import Report, Server, curl, free_port, put_document, run_checks, wait_until  # noqa: E402

DOC = {"name": "Tlsopolis", "alternateNames": [], "rank": 1, "attributes": {"countryCode": "ZZ"}}
# What every server of this file gets besides its arguments (heartbeats keep the SSE client reading).
ENV = {"SIGNALBOX_SSE_HEARTBEAT_INTERVAL": "1"}


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def make_pair(directory, name):
    cert, key = os.path.join(directory, f"{name}.crt"), os.path.join(directory, f"{name}.key")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", key, "-out", cert)
    return cert, key


def make_expired(directory, name, key):
    """OpenSSL 3.0's req has no -not_after; x509 -req -days -1 ends the validity before it begins."""
    request, cert = os.path.join(directory, f"{name}.csr"), os.path.join(directory, f"{name}.crt")
    openssl("req", "-new", "-key", key, "-subj", "/CN=localhost", "-out", request)
    openssl("x509", "-req", "-in", request, "-signkey", key, "-days", "-1", "-out", cert)
    return cert


def https(port, cafile, path, *args):
    """curl over TLS to localhost (resolved to 127.0.0.1), verifying against cafile."""
    return curl("--cacert", cafile, "--resolve", f"localhost:{port}:127.0.0.1", *args, f"https://localhost:{port}{path}")


def trusted(port, cafile):
    try:
        return https(port, cafile, "/healthz")[0] == 200
    except subprocess.CalledProcessError:
        return False


def s_client(port, *args):
    done = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", *args],
                          input=b"", capture_output=True, timeout=10)
    return done.returncode, (done.stdout + done.stderr).decode("utf-8", "replace")


class TLS:
    """What the checks share: the certificates (the server reads `cert` and `key`, whose contents the
    checks replace), the server and its redirect port, the report, and the SSE client over TLS."""

    def __init__(self, server, report, binary):
        self.server, self.report, self.binary = server, report, binary
        self.require = report.require
        directory = server.workdir
        self.first_cert, self.first_key = make_pair(directory, "first")
        self.second_cert, self.second_key = make_pair(directory, "second")
        self.expired = make_expired(directory, "expired-first", self.first_key)
        self.expired_second = make_expired(directory, "expired-second", self.second_key)
        self.cert, self.key = os.path.join(directory, "server.crt"), os.path.join(directory, "server.key")
        shutil.copyfile(self.first_cert, self.cert)
        shutil.copyfile(self.first_key, self.key)
        self.redirect_port = free_port()
        server.args = ["--tls-cert", self.cert, "--tls-key", self.key, "--tls-redirect-port", str(self.redirect_port)]
        self.received, self.connected, self.stop = [], threading.Event(), threading.Event()
        self.follower = None

    @property
    def port(self):
        return self.server.port

    def follow_events(self):
        """A real SSE client over TLS (httpx-sse, verify=first_cert), collecting events until stop is set."""
        with httpx.Client(timeout=30, verify=self.first_cert) as client:
            with httpx_sse.connect_sse(client, "GET", f"https://localhost:{self.port}/events") as source:
                self.connected.set()
                for event in source.iter_sse():
                    if event.data:
                        self.received.append(event)
                    if self.stop.is_set():
                        return

    def received_id(self, doc_id):
        return any(json.loads(e.data).get("id") == doc_id for e in self.received)


def refused_at_start(t):
    t.report.section("start-up checks")
    for number, (name, args, message) in enumerate([
        ("an expired certificate", ["--tls-cert", t.expired, "--tls-key", t.key], "expired on"),
        ("a key that does not match", ["--tls-cert", t.cert, "--tls-key", t.second_key], "does not match"),
        ("an unreadable certificate", ["--tls-cert", os.path.join(t.server.workdir, "missing.crt"), "--tls-key", t.key],
         "cannot read TLS certificate file"),
        ("a certificate without a key", ["--tls-cert", t.cert], "tls.key"),
    ]):
        server = Server(t.binary, name=f"refused-{number}", store=t.server.store, workdir=t.server.workdir, config={},
                        args=args, env=ENV, log_level=None).start(wait=False)
        code = server.wait(timeout=60)
        log = server.log_lines()
        error = next((l for l in log if l.startswith("Error:")), "")
        t.require(f"{name} is refused at start (exit 64, one clear line)", code == 64 and message in error,
                  f"(exit {code}: {error.strip() or ''.join(log[-3:])})")


def https_answers(t):
    t.report.section("https")
    status, headers, body = https(t.port, t.first_cert, "/search?q=zuri")
    t.require("curl --cacert GET /search 200 with hits", status == 200 and json.loads(body)["hits"], f"({status})")
    verbose = subprocess.run(["curl", "-sv", "-o", "/dev/null", "--cacert", t.first_cert, "--resolve",
                              f"localhost:{t.port}:127.0.0.1", f"https://localhost:{t.port}/healthz"],
                             capture_output=True).stderr.decode()
    t.require("ALPN selects http/1.1", "ALPN: server accepted http/1.1" in verbose, verbose[-300:])
    status, _, body = curl(f"http://127.0.0.1:{t.port}/healthz")
    t.require("plain HTTP on the TLS port gets 400 and a plain-text reason",
              status == 400 and body == "Client sent an HTTP request to an HTTPS server.\n", f"({status} {body!r})")


def protocol_versions(t):
    t.report.section("openssl s_client")
    code, out = s_client(t.port, "-tls1_3", "-CAfile", t.first_cert)
    t.require("-tls1_3 negotiates TLSv1.3", code == 0 and "New, TLSv1.3" in out and "Verify return code: 0" in out, out[-400:])
    code, out = s_client(t.port, "-tls1_2", "-CAfile", t.first_cert)
    t.require("-tls1_2 negotiates an ECDHE AEAD suite", code == 0 and "New, TLSv1.2, Cipher is ECDHE-" in out
              and "GCM" in out, out[-400:])
    code, out = s_client(t.port, "-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0")
    t.require("-tls1_1 is refused (protocol version alert)", code != 0 and "alert protocol version" in out, out[-400:])


def events_over_tls(t):
    t.report.section("server-sent events over TLS")
    t.follower = threading.Thread(target=t.follow_events, daemon=True)
    t.follower.start()
    t.require("an SSE client connects over TLS", t.connected.wait(10))
    time.sleep(0.3)  # the subscription is made after the response head is written
    t.require("PUT over TLS 204", put_document(t.port, "tls-1", DOC, cafile=t.first_cert).status == 204)
    t.require("the SSE client receives the change over TLS", wait_until(lambda: t.received_id("tls-1")), t.received)


def certificate_reload(t):
    t.report.section("certificate reload")
    shutil.copyfile(t.second_cert, t.cert)
    shutil.copyfile(t.second_key, t.key)

    def loaded():
        return sum("TLS certificate loaded" in l for l in t.server.log_lines())

    before = loaded()
    t.server.send_signal(signal.SIGHUP)
    t.require("SIGHUP loads the replaced certificate", wait_until(lambda: loaded() > before))
    t.require("new connections get the new certificate", trusted(t.port, t.second_cert) and not trusted(t.port, t.first_cert))
    t.require("PUT after reload 204", put_document(t.port, "tls-2", DOC, cafile=t.second_cert).status == 204)
    t.require("the SSE stream opened before the reload goes on",
              wait_until(lambda: t.received_id("tls-2")) and t.follower is not None and t.follower.is_alive(), t.received)


def bad_certificate_reload_refused(t):
    shutil.copyfile(t.expired_second, t.cert)
    t.server.send_signal(signal.SIGHUP)
    t.require("a bad certificate on SIGHUP is refused with a log line",
              wait_until(lambda: any("TLS certificate reload refused" in l and "expired" in l for l in t.server.log_lines())))
    t.require("…and the current certificate is kept", trusted(t.port, t.second_cert))


def redirect_listener(t):
    t.report.section("redirect listener")
    redirect = t.redirect_port
    status, headers, _ = curl("-H", f"Host: localhost:{redirect}", f"http://127.0.0.1:{redirect}/search?q=zuri")
    t.require("plain HTTP on the redirect port gets 308 to the HTTPS port",
              status == 308 and headers.get("location") == f"https://localhost:{t.port}/search?q=zuri",
              f"({status} {headers.get('location')})")
    followed = subprocess.run(
        ["curl", "-sS", "-L", "-o", "/dev/null", "-w", "%{http_code} %{url_effective}", "--cacert", t.second_cert,
         "--resolve", f"localhost:{t.port}:127.0.0.1", "--resolve", f"localhost:{redirect}:127.0.0.1",
         f"http://localhost:{redirect}/search?q=zuri"], capture_output=True).stdout.decode()
    t.require("curl -L follows it to HTTPS", followed == f"200 https://localhost:{t.port}/search?q=zuri", followed)


def sigterm_with_an_sse_client_exits_0(t):
    t.stop.set()
    code = t.server.stop(timeout=20)
    t.require("SIGTERM with an SSE client over TLS ends with exit code 0", code == 0, f"(exit {code})")
    if t.follower is not None:
        t.follower.join(5)


CHECKS = [https_answers, protocol_versions, events_over_tls, certificate_reload, bad_certificate_reload_refused,
          redirect_listener, sigterm_with_an_sse_client_exits_0]


def main(binary):
    report = Report(details_on_pass=False)
    with Server(binary, config={}, env=ENV, log_level=None, prefix="signalbox-e2e-tls-") as server:
        t = TLS(server, report, binary)
        run_checks(report, [refused_at_start], t)
        server.start(wait=False)
        ready = wait_until(lambda: trusted(t.port, t.first_cert), timeout=60)
        if report.require("the server becomes ready over HTTPS", ready, server.log_tail(5)):
            run_checks(report, CHECKS, t)
        if report.failures:
            sys.stdout.write(server.log_tail(40))
    print(report.tally("e2e-tls"))
    return report


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1]).failures else 0)
