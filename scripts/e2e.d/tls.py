#!/usr/bin/env python3
"""End-to-end checks of HTTPS in a signalbox binary, with certificates made now.

usage: python3 scripts/e2e.d/tls.py PATH_TO_SIGNALBOX   (scripts/e2e runs it)
Makes certificates with `openssl req -x509` (and an expired one with
`openssl x509 -req -days -1`), then checks: refusal at start of an expired
certificate and of a key that does not match; curl --cacert for /search;
openssl s_client (TLS 1.3 negotiated, TLS 1.1 refused); plain HTTP on the TLS
port; SSE over TLS with httpx-sse; certificate reload by SIGHUP under an open
SSE stream, and a bad reload refused; the 308 redirect listener; SIGTERM.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import httpx
import httpx_sse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plain as e2e  # noqa: E402  (shares check, curl, free_port, wait_until; reads the binary from argv too)
from plain import KEY, check, curl, free_port, wait_until  # noqa: E402

BINARY = sys.argv[1]
DOC = {"name": "Tlsopolis", "alternateNames": [], "rank": 1, "attributes": {"countryCode": "ZZ"}}


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


def start(port, store, *args):
    env = dict(os.environ, SIGNALBOX_API_KEY=KEY, SIGNALBOX_STORE=store, SIGNALBOX_SSE_HEARTBEAT_INTERVAL="1")
    config = os.path.join(os.path.dirname(store), "signalbox.json")
    with open(config, "w") as f:
        f.write("{}")
    server = subprocess.Popen([BINARY, "--host", "127.0.0.1", "--port", str(port), "--config", config, *args],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    server.log = []
    threading.Thread(target=lambda: [server.log.append(l.decode("utf-8", "replace")) for l in server.stdout],
                     daemon=True).start()
    return server


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


def check_refused_at_start(workdir, store, cert, key, other_key, expired):
    print("start-up checks")
    for name, args, message in [
        ("an expired certificate", ["--tls-cert", expired, "--tls-key", key], "expired on"),
        ("a key that does not match", ["--tls-cert", cert, "--tls-key", other_key], "does not match"),
        ("an unreadable certificate", ["--tls-cert", os.path.join(workdir, "missing.crt"), "--tls-key", key],
         "cannot read TLS certificate file"),
        ("a certificate without a key", ["--tls-cert", cert], "tls.key"),
    ]:
        server = start(free_port(), store, *args)
        code = server.wait(timeout=60)
        time.sleep(0.1)
        error = next((l for l in server.log if l.startswith("Error:")), "")
        check(f"{name} is refused at start (exit 64, one clear line)", code == 64 and message in error,
              f"(exit {code}: {error.strip() or ''.join(server.log[-3:])})")


def follow_events(port, cafile, received, connected, stop):
    """A real SSE client over TLS (httpx-sse, verify=cafile), collecting events until stop is set."""
    with httpx.Client(timeout=30, verify=cafile) as client:
        with httpx_sse.connect_sse(client, "GET", f"https://localhost:{port}/events") as source:
            connected.set()
            for event in source.iter_sse():
                if event.data:
                    received.append(event)
                if stop.is_set():
                    return


def put_document(port, cafile, doc_id):
    with httpx.Client(timeout=10, verify=cafile) as client:
        return client.put(f"https://localhost:{port}/documents/{doc_id}", json=DOC,
                          headers={"Authorization": f"Bearer {KEY}"}).status_code


def main():
    workdir = tempfile.mkdtemp(prefix="signalbox-e2e-tls-")
    store = os.path.join(workdir, "store.sqlite")
    first_cert, first_key = make_pair(workdir, "first")
    second_cert, second_key = make_pair(workdir, "second")
    expired = make_expired(workdir, "expired-first", first_key)
    expired_second = make_expired(workdir, "expired-second", second_key)
    # The server reads these paths; the test replaces their contents.
    cert, key = os.path.join(workdir, "server.crt"), os.path.join(workdir, "server.key")
    for source, target in [(first_cert, cert), (first_key, key)]:
        with open(source, "rb") as f, open(target, "wb") as g:
            g.write(f.read())

    check_refused_at_start(workdir, store, cert, key, second_key, expired)

    port, redirect_port = free_port(), free_port()
    server = start(port, store, "--tls-cert", cert, "--tls-key", key, "--tls-redirect-port", str(redirect_port))
    try:
        ready = wait_until(lambda: trusted(port, first_cert), timeout=60)
        check("the server becomes ready over HTTPS", ready, "".join(server.log[-5:]))
        if not ready:
            return

        print("https")
        status, headers, body = https(port, first_cert, "/search?q=zuri")
        check("curl --cacert GET /search 200 with hits", status == 200 and json.loads(body)["hits"],
              f"({status})")
        verbose = subprocess.run(["curl", "-sv", "-o", "/dev/null", "--cacert", first_cert, "--resolve",
                                  f"localhost:{port}:127.0.0.1", f"https://localhost:{port}/healthz"],
                                 capture_output=True).stderr.decode()
        check("ALPN selects http/1.1", "ALPN: server accepted http/1.1" in verbose, verbose[-300:])
        status, _, body = curl(f"http://127.0.0.1:{port}/healthz")
        check("plain HTTP on the TLS port gets 400 and a plain-text reason",
              status == 400 and body == "Client sent an HTTP request to an HTTPS server.\n", f"({status} {body!r})")

        print("openssl s_client")
        code, out = s_client(port, "-tls1_3", "-CAfile", first_cert)
        check("-tls1_3 negotiates TLSv1.3", code == 0 and "New, TLSv1.3" in out and "Verify return code: 0" in out,
              out[-400:])
        code, out = s_client(port, "-tls1_2", "-CAfile", first_cert)
        check("-tls1_2 negotiates an ECDHE AEAD suite", code == 0 and "New, TLSv1.2, Cipher is ECDHE-" in out
              and "GCM" in out, out[-400:])
        code, out = s_client(port, "-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0")
        check("-tls1_1 is refused (protocol version alert)", code != 0 and "alert protocol version" in out,
              out[-400:])

        print("server-sent events over TLS")
        received, connected, stop = [], threading.Event(), threading.Event()
        follower = threading.Thread(target=follow_events, args=(port, first_cert, received, connected, stop),
                                    daemon=True)
        follower.start()
        check("an SSE client connects over TLS", connected.wait(10))
        time.sleep(0.3)  # the subscription is made after the response head is written
        check("PUT over TLS 204", put_document(port, first_cert, "tls-1") == 204)
        check("the SSE client receives the change over TLS",
              wait_until(lambda: any(json.loads(e.data).get("id") == "tls-1" for e in received)), received)

        print("certificate reload")
        for source, target in [(second_cert, cert), (second_key, key)]:
            with open(source, "rb") as f, open(target, "wb") as g:
                g.write(f.read())
        loaded = sum("TLS certificate loaded" in l for l in server.log)
        server.send_signal(signal.SIGHUP)
        check("SIGHUP loads the replaced certificate",
              wait_until(lambda: sum("TLS certificate loaded" in l for l in server.log) > loaded))
        check("new connections get the new certificate", trusted(port, second_cert) and not trusted(port, first_cert))
        check("PUT after reload 204", put_document(port, second_cert, "tls-2") == 204)
        check("the SSE stream opened before the reload goes on",
              wait_until(lambda: any(json.loads(e.data).get("id") == "tls-2" for e in received)) and follower.is_alive(),
              received)

        with open(expired_second, "rb") as f, open(cert, "wb") as g:
            g.write(f.read())
        server.send_signal(signal.SIGHUP)
        check("a bad certificate on SIGHUP is refused with a log line",
              wait_until(lambda: any("TLS certificate reload refused" in l and "expired" in l for l in server.log)))
        check("…and the current certificate is kept", trusted(port, second_cert))

        print("redirect listener")
        status, headers, _ = curl("-H", f"Host: localhost:{redirect_port}", f"http://127.0.0.1:{redirect_port}/search?q=zuri")
        check("plain HTTP on the redirect port gets 308 to the HTTPS port",
              status == 308 and headers.get("location") == f"https://localhost:{port}/search?q=zuri",
              f"({status} {headers.get('location')})")
        followed = subprocess.run(
            ["curl", "-sS", "-L", "-o", "/dev/null", "-w", "%{http_code} %{url_effective}", "--cacert", second_cert,
             "--resolve", f"localhost:{port}:127.0.0.1", "--resolve", f"localhost:{redirect_port}:127.0.0.1",
             f"http://localhost:{redirect_port}/search?q=zuri"], capture_output=True).stdout.decode()
        check("curl -L follows it to HTTPS", followed == f"200 https://localhost:{port}/search?q=zuri", followed)

        stop.set()
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=20)
        check("SIGTERM with an SSE client over TLS ends with exit code 0", code == 0, f"(exit {code})")
        follower.join(5)
    finally:
        if server.poll() is None:
            server.kill()
        if e2e.failed:
            sys.stdout.write("".join(server.log[-40:]))
    print(f"e2e-tls: {e2e.passed} passed, {e2e.failed} failed")


if __name__ == "__main__":
    main()
    sys.exit(1 if e2e.failed else 0)
