#!/usr/bin/python3
"""Seeds the fuzz corpora with real traffic from the Daytona emulator:
API JSON bodies (json_map), raw WebSocket bytes of a log follow (ws_frame,
demux), a bulk-download multipart body (multipart). Run from the repo root:
    /usr/bin/python3 tests/fuzz/seed_from_emulator.py
The seeds are committed; this script documents where they came from."""
import base64, hashlib, json, os, socket, subprocess, sys, tempfile, time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")
H = {"Authorization": "Bearer seed", "X-Daytona-SDK-Version": "0.190.0",
     "X-Daytona-Source": "sdk-c"}


def save(target, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data)


def req(base, method, path, body=None, ctype="application/json"):
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    r = urllib.request.Request(base + path, data=data, method=method, headers=dict(H))
    if data is not None:
        r.add_header("Content-Type", ctype)
    try:
        with urllib.request.urlopen(r, timeout=30) as resp:
            return resp.status, resp.read(), resp.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers


def ws_raw(port, path):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
               "Authorization: Bearer seed\r\nX-Daytona-SDK-Version: 0.190.0\r\n\r\n").encode())
    buf = b""
    s.settimeout(5)
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            buf += b
    except socket.timeout:
        pass
    s.close()
    return buf.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in buf else b""


def main():
    tmp = tempfile.mkdtemp()
    pf = os.path.join(tmp, "port")
    emu = subprocess.Popen(["/usr/bin/python3", os.path.join(ROOT, "tests/emulator/emulator.py"),
                            "--port-file", pf, "--lifetime", "120"])
    try:
        for _ in range(200):
            if os.path.exists(pf):
                break
            time.sleep(0.05)
        port = int(open(pf).read())
        api = f"http://127.0.0.1:{port}/api"
        for body in [req(api, "POST", "/snapshots", {"name": "seed-snap", "imageName": "debian:12-slim"})[1],
                     req(api, "GET", "/snapshots/seed-snap")[1],
                     req(api, "GET", "/snapshots/nope")[1]]:
            save("json_map", body)
        for _ in range(100):
            body = req(api, "GET", "/snapshots/seed-snap")[1]
            if json.loads(body)["state"] == "active":
                break
            time.sleep(0.1)
        save("json_map", body)
        st, body, _ = req(api, "POST", "/sandbox", {"name": "seed-sb", "snapshot": "seed-snap"})
        save("json_map", body)
        sb = json.loads(body)
        save("json_map", req(api, "GET", "/sandbox?limit=10")[1])
        save("json_map", req(api, "POST", "/sandbox", {"name": "seed-sb", "snapshot": "seed-snap"})[1])
        tb = f"http://127.0.0.1:{port}/toolbox/{sb['id']}"
        req(tb, "POST", "/process/session", {"sessionId": "s1"})
        st, body, _ = req(tb, "POST", "/process/session/s1/exec",
                          {"command": "printf 'out\\n'; printf 'err\\n' >&2; printf '\\xc3\\xa9\\n'; seq 1 300",
                           "runAsync": True})
        save("json_map", body)
        cmd = json.loads(body)["cmdId"]
        time.sleep(1.5)
        save("json_map", req(tb, "GET", f"/process/session/s1/command/{cmd}")[1])
        logs = req(tb, "GET", f"/process/session/s1/command/{cmd}/logs")[1]
        save("json_map", logs)
        save("demux", b"\x03" + json.loads(logs)["output"].encode())
        save("ws_frame", b"\x07" + ws_raw(port, f"/toolbox/{sb['id']}/process/session/s1/command/{cmd}/logs?follow=true"))
        req(tb, "POST", "/files/folder?path=/sandbox/t&mode=755")
        boundary = "XSEEDX"
        mp = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files[0].path\"\r\n\r\n/sandbox/t/a.json\r\n"
              f"--{boundary}\r\nContent-Disposition: form-data; name=\"files[0].file\"; filename=\"a.json\"\r\n"
              f"Content-Type: application/octet-stream\r\n\r\n{{\"ok\":true}}\r\n--{boundary}--\r\n").encode()
        req(tb, "POST", "/files/bulk-upload", mp, f"multipart/form-data; boundary={boundary}")
        st, body, _ = req(tb, "POST", "/files/bulk-download", {"paths": ["/sandbox/t/a.json", "/sandbox/t/missing"]})
        save("multipart", b"\x00" + body)
        save("results", b'{"ok":true,"n":[1,2.5,"\xc3\xa9"]}')
        save("paths", b"/sandbox/t-1/results/out.json")
        print("seeded", sum(len(fs) for _, _, fs in os.walk(CORPUS)), "files")
    finally:
        emu.terminate()
        emu.wait(10)


if __name__ == "__main__":
    sys.exit(main())
