"""nginx in front of the replicas, as compose.yaml runs it: Config/nginx/cluster.conf with its upstream
servers pointed at the replicas' loopback ports, run by Debian's nginx-light (installed when missing)."""
import os
import re
import shutil
import signal
import subprocess
import time

from cluster import ROOT
from harness import free_port, get

CONFIG = os.path.join(ROOT, "Config", "nginx", "cluster.conf")


def nginx_binary():
    found = shutil.which("nginx") or (os.path.exists("/usr/sbin/nginx") and "/usr/sbin/nginx")
    if not found:
        subprocess.run(["apt-get", "install", "-y", "-q", "nginx-light"], check=True, capture_output=True,
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        found = "/usr/sbin/nginx"
    return found


class Proxy:
    """nginx on a free port of 127.0.0.1 in front of `replicas`; `port` as a replica's, for clients."""

    name = "nginx"

    def __init__(self, work, replicas):
        self.dir = os.path.join(work, "nginx")
        os.makedirs(os.path.join(self.dir, "logs"), exist_ok=True)
        self.port = free_port()
        with open(CONFIG) as f:
            site = f.read()
        servers = "".join(f"    server 127.0.0.1:{r.port} max_fails=1 fail_timeout=2s;\n" for r in replicas)
        site, count = re.subn(r"(upstream signalbox \{\n)(?:    server [^\n]*\n)+", lambda m: m.group(1) + servers, site)
        assert count == 1, "Config/nginx/cluster.conf: no upstream signalbox block with server lines"
        site = site.replace("listen 8080;", f"listen 127.0.0.1:{self.port};")
        self.config = os.path.join(self.dir, "nginx.conf")
        with open(self.config, "w") as f:
            user = "user root;\n" if os.geteuid() == 0 else ""  # workers reach the (root-only) work folder
            f.write(f"""daemon off;
{user}worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.dir}/logs/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {self.dir}/body;
    proxy_temp_path {self.dir}/proxy;
    proxy_max_temp_file_size 0;
{site}
}}
""")
        self.process = subprocess.Popen([nginx_binary(), "-p", self.dir, "-c", self.config],
                                        stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "logs", "stderr.log"), "w"))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if get(self.port, "/healthz", timeout=2).status == 200:
                    return
            except OSError:
                pass
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"nginx did not start: {self.error_log()}")

    def error_log(self):
        try:
            with open(os.path.join(self.dir, "logs", "error.log")) as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: open streams end
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
