"""The test servers of tests/remote, both on 127.0.0.1 on a free port, started and stopped by the
tests (nothing leaves the machine):

- Nginx: Debian's nginx serving a folder (ranges, ETags) as a user, with its own prefix, pid file,
  logs and temporary folders in a temporary directory;
- FaultServer: a small server of Python's http.server in a thread that serves a folder with
  ranges and ETags, and injects the faults it is told to, request by request: a 503, a 429 with
  Retry-After, a connection cut in the middle of the body, a redirect, Range ignored, a file that
  changes, a 401 without the token, a 404. It records every request (path, Range,
  Authorization).
"""
import hashlib
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NGINX = "/usr/sbin/nginx"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_up(url):
    for _ in range(200):
        try:
            urllib.request.urlopen(url, timeout=1).close()
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the server at %s did not start" % url)


class Nginx:
    """nginx serving `root` on 127.0.0.1:port, as this user, everything of its own in `work`."""

    def __init__(self, root, work):
        self.root = os.path.abspath(root)
        self.work = os.path.abspath(work)
        os.makedirs(self.work, exist_ok=True)
        self.proc = None
        for _ in range(5):
            self.port = free_port()
            conf = os.path.join(self.work, "nginx.conf")
            w = self.work
            with open(conf, "w") as f:
                # As root, nginx's workers would run as nobody, who cannot enter a test folder
                # made by mktemp -d (mode 700, as CI's copy of the repository is): they run as
                # root too. As another user the workers are that user already.
                f.write(("user root;\n" if os.geteuid() == 0 else "") + """daemon off;
worker_processes 1;
pid %(w)s/nginx.pid;
error_log %(w)s/error.log;
events { worker_connections 64; }
http {
  access_log %(w)s/access.log;
  client_body_temp_path %(w)s/body;
  proxy_temp_path %(w)s/proxy;
  fastcgi_temp_path %(w)s/fastcgi;
  uwsgi_temp_path %(w)s/uwsgi;
  scgi_temp_path %(w)s/scgi;
  types { application/octet-stream safetensors gguf; application/json json; }
  server { listen 127.0.0.1:%(port)d; root %(root)s; }
}
""" % {"w": w, "port": self.port, "root": self.root})
            self.proc = subprocess.Popen([NGINX, "-p", w, "-c", conf], stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
            try:
                _wait_up(self.url(""))
                return
            except RuntimeError:
                self.stop()
        raise RuntimeError("nginx did not start")

    def url(self, path):
        return "http://127.0.0.1:%d/%s" % (self.port, path)

    def access_log(self):
        with open(os.path.join(self.work, "access.log")) as f:
            return f.read()

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _reply(self, status, headers=(), body=b""):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        st = self.server.state
        path = self.path.split("?")[0]
        auth = self.headers.get("Authorization")
        rng = self.headers.get("Range")
        with st.lock:
            st.requests.append((path, rng, auth))
        if path.startswith("/redirect/"):
            self._reply(302, [("Location", path[len("/redirect"):])])
            return
        if st.token is not None and auth != "Bearer " + st.token:
            self._reply(401, body=b"no token")
            return
        action = st.next_action(path)
        file = os.path.join(st.root, path.lstrip("/"))
        if ".." in path or not os.path.isfile(file):
            self._reply(404, body=b"not found")
            return
        with open(file, "rb") as f:
            data = f.read()
        if action == "change":
            data = data + b"\0" * 8
        etag = '"%s"' % hashlib.sha1(data).hexdigest()[:16]
        if action == "503":
            self._reply(503, [("Retry-After", "1")], b"busy")
            return
        if action == "429":
            self._reply(429, [("Retry-After", "2")], b"slow down")
            return
        if action == "500-forever":
            self._reply(500, body=b"broken")
            return
        if action == "norange" or rng is None:
            self._reply(200, [("ETag", etag)], data)
            return
        m = re.fullmatch(r"bytes=(\d+)-(\d*)", rng)
        a = int(m.group(1))
        b = min(int(m.group(2)) if m.group(2) else len(data) - 1, len(data) - 1)
        if a >= len(data):
            self._reply(416, [("Content-Range", "bytes */%d" % len(data))])
            return
        part = data[a:b + 1]
        self.send_response(206)
        self.send_header("Content-Range", "bytes %d-%d/%d" % (a, b, len(data)))
        self.send_header("ETag", etag)
        self.send_header("Content-Length", str(len(part)))
        self.end_headers()
        if action == "cut":
            self.wfile.write(part[:len(part) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(part)


class _State:
    def __init__(self, root):
        self.root = root
        self.lock = threading.Lock()
        self.requests = []
        self.plans = {}
        self.after = {}
        self.token = None

    def next_action(self, path):
        with self.lock:
            plan = self.plans.get(path)
            if plan:
                return plan.pop(0)
            return self.after.get(path, "ok")


class FaultServer:
    """Serves `root`; plan(path, [actions...], then=action) sets what the next requests of a path
    get (actions: ok, 503, 429, 500-forever, cut, norange, change); token requires
    `Authorization: Bearer TOKEN`; /redirect/PATH answers 302 to /PATH."""

    def __init__(self, root):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.state = _State(os.path.abspath(root))
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def state(self):
        return self.httpd.state

    def url(self, path):
        return "http://127.0.0.1:%d/%s" % (self.port, path)

    def reset(self, token=None):
        with self.state.lock:
            self.state.requests = []
            self.state.plans = {}
            self.state.after = {}
            self.state.token = token

    def plan(self, path, actions, then="ok"):
        with self.state.lock:
            self.state.plans["/" + path] = list(actions)
            self.state.after["/" + path] = then

    def requests(self):
        with self.state.lock:
            return list(self.state.requests)

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def copy_tree(src, dst):
    shutil.copytree(src, dst, dirs_exist_ok=True)
