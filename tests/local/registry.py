"""A real OCI registry for the pull tests, with a proxy in front of it.

Starts Debian's docker-registry (distribution 2.8) on 127.0.0.1 with a
config and storage under DIR, and a small HTTP proxy in front that logs
every request (one JSON line each in DIR/requests.log) and injects the
faults a test asks for. Writes "REGISTRY_PORT PROXY_PORT" to DIR/ports
when both answer. Exits, stopping the registry, on SIGTERM, when
--lifetime seconds have passed, or when the process --watch names is
gone (a test that died never leaves it running).

Usage: registry.py DIR [--htpasswd USER:PASSWORD] [--token [USER:PASSWORD]]
       [--corrupt DIGEST] [--cut DIGEST] [--stall DIGEST] [--ratelimit N]
       [--watch PID]
       [--lifetime S]
  --htpasswd   the registry itself wants basic auth (bcrypt htpasswd)
  --token      the proxy wants a bearer token from its /token realm
               (anonymous, or for USER:PASSWORD given as basic auth)
  --corrupt    one byte of that blob's body is flipped
  --cut        the first GET of that blob ends halfway (connection closed)
  --stall      every GET of that blob stops halfway, the connection held
               open (30 s at most)
  --ratelimit  the first N blob GETs get 429 with Retry-After: 1
"""
import argparse
import base64
import crypt
import http.client
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

TOKEN = "test-token-" + base64.b16encode(os.urandom(8)).decode()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_registry(d, port, htpasswd):
    cfg = ["version: 0.1", "log:", "  level: error",
           "storage:", "  filesystem:", "    rootdirectory: %s/storage" % d,
           "http:", "  addr: 127.0.0.1:%d" % port]
    if htpasswd:
        user, pw = htpasswd.split(":", 1)
        salt = crypt.mksalt(crypt.METHOD_BLOWFISH)
        with open(d + "/htpasswd", "w") as f:
            f.write("%s:%s\n" % (user, crypt.crypt(pw, salt)))
        cfg += ["auth:", "  htpasswd:", "    realm: test",
                "    path: %s/htpasswd" % d]
    with open(d + "/config.yml", "w") as f:
        f.write("\n".join(cfg) + "\n")
    log = open(d + "/registry.log", "w")
    return subprocess.Popen(["docker-registry", "serve", d + "/config.yml"],
                            stdout=log, stderr=log)


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    opts = None
    upstream = 0
    lock = threading.Lock()
    cut_done = set()
    ratelimited = 0

    def log_message(self, *a):
        pass

    def note(self, status, nbytes):
        rec = {"method": self.command, "path": self.path,
               "range": self.headers.get("Range"),
               "auth": (self.headers.get("Authorization") or " ").split(" ")[0]
               or None, "status": status, "bytes": nbytes}
        with self.lock, open(self.opts.dir + "/requests.log", "a") as f:
            f.write(json.dumps(rec) + "\n")

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.note(status, len(body))

    def token_endpoint(self):
        want = self.opts.token
        if want not in ("", "anonymous"):
            got = self.headers.get("Authorization", "")
            if got != "Basic " + base64.b64encode(want.encode()).decode():
                return self.reply(401, b'{"errors":[]}')
        self.reply(200, json.dumps({"token": TOKEN}).encode(),
                   [("Content-Type", "application/json")])

    def challenge(self):
        repo = self.path.split("/")[2:-2]
        realm = "http://127.0.0.1:%d/token" % self.server.server_port
        scope = "repository:%s:pull" % "/".join(repo)
        self.reply(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}',
                   [("WWW-Authenticate", 'Bearer realm="%s",service='
                     '"test-registry",scope="%s"' % (realm, scope))])

    def fault(self):
        """429 for the first --ratelimit blob GETs."""
        if "/blobs/" in self.path and self.ratelimited < self.opts.ratelimit:
            Proxy.ratelimited += 1
            self.reply(429, b"slow down", [("Retry-After", "1")])
            return True
        return False

    def do_GET(self):
        if self.path.startswith("/token"):
            return self.token_endpoint()
        if self.opts.token is not None and self.path != "/v2/" and \
                self.headers.get("Authorization") != "Bearer " + TOKEN:
            return self.challenge()
        if self.fault():
            return
        self.forward()

    do_HEAD = do_GET

    def forward(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.upstream,
                                          timeout=30)
        hdrs = {k: v for k, v in self.headers.items()
                if k.lower() not in ("host", "connection")}
        if self.opts.token is not None:
            hdrs.pop("Authorization", None)
        conn.request(self.command, self.path, headers=hdrs)
        r = conn.getresponse()
        body = r.read()
        conn.close()
        digest = self.path.rsplit("/", 1)[-1]
        if digest == self.opts.corrupt and len(body) > 0 and r.status < 300:
            mid = len(body) // 2
            body = body[:mid] + bytes([body[mid] ^ 0xFF]) + body[mid + 1:]
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("connection", "transfer-encoding",
                                 "content-length"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command == "HEAD":
            return self.note(r.status, 0)
        cut = (digest == self.opts.cut and digest not in self.cut_done
               and r.status == 200)
        if cut:   # half the body, then the connection goes away
            self.cut_done.add(digest)
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            self.note(r.status, len(body) // 2)
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if digest == self.opts.stall and r.status == 200:
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            self.note(r.status, len(body) // 2)
            time.sleep(30)   # a server that stops sending
            self.close_connection = True
            return
        self.wfile.write(body)
        self.note(r.status, len(body))


def wait_up(port, deadline):
    while time.time() < deadline:
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/v2/" % port, timeout=1)
            return True
        except urllib.error.HTTPError:
            return True   # 401 with auth: up all the same
        except OSError:
            time.sleep(0.05)
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--htpasswd")
    ap.add_argument("--token", nargs="?", const="anonymous")
    ap.add_argument("--corrupt")
    ap.add_argument("--cut")
    ap.add_argument("--stall")
    ap.add_argument("--ratelimit", type=int, default=0)
    ap.add_argument("--watch", type=int, default=0)
    ap.add_argument("--lifetime", type=float, default=300)
    o = ap.parse_args()
    os.makedirs(o.dir + "/storage", exist_ok=True)
    rport = free_port()
    reg = start_registry(o.dir, rport, o.htpasswd)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    try:
        if not wait_up(rport, time.time() + 30):
            sys.exit("registry did not start: " + open(o.dir + "/registry.log").read())
        Proxy.opts, Proxy.upstream = o, rport
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
        srv.daemon_threads = True
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        with open(o.dir + "/ports.tmp", "w") as f:
            f.write("%d %d\n" % (rport, srv.server_port))
        os.rename(o.dir + "/ports.tmp", o.dir + "/ports")
        end = time.time() + o.lifetime
        while not stop.wait(0.2) and time.time() < end:
            if o.watch and not os.path.exists("/proc/%d" % o.watch):
                break
    finally:
        reg.terminate()
        try:
            reg.wait(5)
        except subprocess.TimeoutExpired:
            reg.kill()


if __name__ == "__main__":
    main()
