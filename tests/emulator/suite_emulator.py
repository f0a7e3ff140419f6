#!/usr/bin/python3
"""Self-test of the Daytona emulator: starts it as a subprocess and checks the
state machines, error shapes, real execution, WebSocket follow, files, faults
and its own lifetime.  Last line: "N passed, N failed"."""
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

import aiohttp
import websockets

HERE = os.path.dirname(os.path.abspath(__file__))
EMU = os.path.join(HERE, "emulator.py")
PASSED, FAILED = [], []
HDRS = {"Authorization": "Bearer test-token", "X-Daytona-Source": "sdk-c",
        "X-Daytona-SDK-Version": "0.190.0"}


def check(name, cond, detail=""):
    if cond:
        PASSED.append(name)
        print("ok   %s" % name)
    else:
        FAILED.append(name)
        print("FAIL %s %s" % (name, detail))


def start_emulator(*extra):
    tmp = tempfile.mkdtemp(prefix="emu-suite-")
    pf = os.path.join(tmp, "port")
    proc = subprocess.Popen([sys.executable, EMU, "--port-file", pf] + list(extra),
                            stderr=open(os.path.join(tmp, "stderr"), "wb"))
    proc.stderr_path = os.path.join(tmp, "stderr")
    deadline = time.time() + 15
    while time.time() < deadline and not os.path.exists(pf):
        time.sleep(0.02)
    if not os.path.exists(pf):
        raise RuntimeError("emulator did not write its port file")
    return proc, int(open(pf).read().strip())


class Client:
    def __init__(self, port, http):
        self.port = port
        self.base = "http://127.0.0.1:%d" % port
        self.http = http

    async def req(self, method, path, body=None, headers=None, raw=None, timeout=30):
        h = dict(HDRS)
        if headers is not None:
            h.update(headers)
        h = {k: v for k, v in h.items() if v is not None}
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        async with self.http.request(method, self.base + path, data=data, headers=h,
                                     timeout=aiohttp.ClientTimeout(total=timeout)) as r:
            content = await r.read()
            try:
                js = json.loads(content) if content else None
            except ValueError:
                js = None
            return r.status, js, content, r.headers

    async def emu(self, path, body=None):
        st, js, _, _ = await self.req("POST", "/_emu/" + path, body if body is not None else {})
        assert st == 200, (path, st, js)
        return js

    async def new_snapshot(self, name, **kw):
        body = {"name": name, "imageName": "python:3.12-slim"}
        body.update(kw)
        st, js, _, _ = await self.req("POST", "/api/snapshots", body)
        assert st == 200, js
        return await self.wait_snapshot(js["id"], ("active", "build_failed", "error"))

    async def wait_snapshot(self, ref, states, timeout=5):
        end = time.time() + timeout
        while time.time() < end:
            st, js, _, _ = await self.req("GET", "/api/snapshots/" + urllib.parse.quote(ref, safe=""))
            if st == 200 and js["state"] in states:
                return js
            if st == 404 and "gone" in states:
                return None
            await asyncio.sleep(0.02)
        raise AssertionError("snapshot %s never reached %s" % (ref, states))

    async def wait_sandbox(self, ref, states, timeout=5):
        end = time.time() + timeout
        while time.time() < end:
            st, js, _, _ = await self.req("GET", "/api/sandbox/" + ref)
            if st == 200 and js["state"] in states:
                return js
            if st == 404 and "gone" in states:
                return None
            await asyncio.sleep(0.02)
        raise AssertionError("sandbox %s never reached %s" % (ref, states))

    async def new_sandbox(self, name, snapshot="base-snap", **kw):
        body = {"name": name, "snapshot": snapshot}
        body.update(kw)
        st, js, _, _ = await self.req("POST", "/api/sandbox", body)
        assert st == 200 and js["state"] == "started", (st, js)
        return js

    def tb(self, sbx, rest):
        return "/toolbox/%s%s" % (sbx["id"], rest)

    async def exec(self, sbx, sid, command, run_async=False, headers=None):
        return await self.req("POST", self.tb(sbx, "/process/session/%s/exec" % sid),
                              {"command": command, "runAsync": run_async}, headers=headers)

    async def wait_cmd(self, sbx, sid, cid, timeout=10):
        end = time.time() + timeout
        while time.time() < end:
            st, js, _, _ = await self.req("GET", self.tb(sbx, "/process/session/%s/command/%s"
                                                          % (sid, cid)))
            if st == 200 and "exitCode" in js:
                return js
            await asyncio.sleep(0.03)
        raise AssertionError("command never finished")

    def ws_url(self, sbx, sid, cid, follow=True):
        return "ws://127.0.0.1:%d%s" % (self.port, self.tb(
            sbx, "/process/session/%s/command/%s/logs%s" % (sid, cid, "?follow=true" if follow else "")))


def mp_body(fields, boundary="XyZbOuNdArY"):
    out = []
    for name, filename, data in fields:
        disp = 'form-data; name="%s"' % name
        if filename:
            disp += '; filename="%s"' % filename
        out.append(("--%s\r\nContent-Disposition: %s\r\n" % (boundary, disp)).encode())
        if filename:
            out.append(b"Content-Type: application/octet-stream\r\n")
        out.append(b"\r\n" + data + b"\r\n")
    out.append(("--%s--\r\n" % boundary).encode())
    return b"".join(out), "multipart/form-data; boundary=" + boundary


def split_multipart(body, boundary):
    parts = []
    delim = b"--" + boundary.encode()
    for chunk in body.split(delim)[1:]:
        if chunk.startswith(b"--"):
            parts.append("END")
            break
        head, _, data = chunk[2:].partition(b"\r\n\r\n")
        parts.append((head.decode(), data[:-2]))
    return parts


async def ws_collect(url, headers=None, timeout=10):
    """(payload bytes, frames, close code, seconds until close)."""
    frames = []
    t0 = time.time()
    async with websockets.connect(url, extra_headers=headers or HDRS, compression=None,
                                  open_timeout=5) as ws:
        try:
            while True:
                msg = await asyncio.wait_for(ws.recv(), timeout)
                frames.append(msg)
        except websockets.ConnectionClosed:
            pass
        except asyncio.TimeoutError:
            return b"".join(f if isinstance(f, bytes) else f.encode() for f in frames), frames, None, time.time() - t0
        return b"".join(frames), frames, ws.close_code, time.time() - t0


# ------------------------------------------------------------------ tests
async def t_auth_and_errors(c):
    st, js, _, _ = await c.req("GET", "/api/sandbox/nope", headers={"Authorization": None})
    check("api 401 without bearer", st == 401 and js["statusCode"] == 401 and js["error"] == "Unauthorized")
    st, js, _, _ = await c.req("GET", "/api/sandbox/nope")
    check("api 404 body shape", st == 404 and set(js) == {"path", "timestamp", "statusCode", "error", "message"}
          and js["message"] == "Sandbox with ID or name nope not found" and js["path"] == "/api/sandbox/nope", js)
    await c.emu("config", {"api_key": "secret"})
    st1, _, _, _ = await c.req("GET", "/api/snapshots")
    st2, _, _, _ = await c.req("GET", "/api/snapshots", headers={"Authorization": "Bearer secret"})
    await c.emu("config", {"api_key": None})
    check("api_key enforced", st1 == 401 and st2 == 200, (st1, st2))
    st, js, _, _ = await c.req("GET", "/api/socket.io/?EIO=4&transport=websocket")
    check("socket.io refused with 404", st == 404)
    st, js, _, h = await c.req("GET", "/api/snapshots")
    check("rate limit headers on normal responses", "X-RateLimit-Remaining-authenticated" in h)


async def t_snapshots(c):
    snap = await c.new_snapshot("base-snap")
    check("snapshot imageName -> active", snap["state"] == "active" and snap["imageName"] == "python:3.12-slim")
    st, js, _, _ = await c.req("GET", "/api/snapshots/" + snap["id"])
    check("snapshot get by id", st == 200 and js["name"] == "base-snap")
    st, js, _, _ = await c.req("POST", "/api/snapshots", {"name": "base-snap", "imageName": "a:1"})
    check("snapshot duplicate name 409", st == 409 and "already exists" in js["message"], js)
    for body, frag in (({"name": "x1", "imageName": "python:latest"}, ':latest'),
                       ({"name": "x2", "imageName": "python"}, "must include a tag"),
                       ({"name": "x3"}, "Must specify an image name"),
                       ({"name": "x4", "imageName": "a:1", "buildInfo": {"dockerfileContent": "FROM a"}},
                        "Cannot specify an image name"),
                       ({"name": "bad name!", "imageName": "a:1"}, "Invalid snapshot name")):
        st, js, _, _ = await c.req("POST", "/api/snapshots", body)
        check("snapshot create 400: %s" % frag, st == 400 and frag in js["message"], js)
    # state path for a pull
    st, js, _, _ = await c.req("POST", "/api/snapshots", {"name": "org/pulled:v1", "imageName": "ubuntu:22.04"})
    seen = {js["state"]}
    while js["state"] != "active":
        st, js, _, _ = await c.req("GET", "/api/snapshots/" + urllib.parse.quote("org/pulled:v1", safe=""))
        seen.add(js["state"])
        await asyncio.sleep(0.01)
    check("pull passes pending -> pulling -> active (name with / and :)", seen >= {"pending", "pulling", "active"}, seen)
    # build path + logs
    df = "FROM python:3.12-slim\nRUN pip install pytest\nRUN useradd -m runner\n"
    st, js, _, _ = await c.req("POST", "/api/snapshots", {"name": "built", "buildInfo": {"dockerfileContent": df}})
    check("build snapshot starts pending with snapshotRef", js["state"] == "pending"
          and js["buildInfo"]["snapshotRef"].startswith("daytona-"))
    st, u, _, _ = await c.req("GET", "/api/snapshots/%s/build-logs-url" % js["id"])
    path = urllib.parse.urlparse(u["url"]).path
    t0 = time.time()
    st, _, content, h = await c.req("GET", path + "?follow=true")
    took = time.time() - t0
    text = content.decode()
    check("build log follow ends after active", st == 200 and "Step 3/3 : RUN useradd -m runner" in text
          and "Successfully tagged daytona-" in text and 0.8 < took < 5, (took, text))
    st, js2, _, _ = await c.req("POST", "/api/snapshots", {"name": "built-again", "buildInfo": {"dockerfileContent": df}})
    check("identical build deduplicated (active at once)", js2["state"] == "active", js2)
    await c.emu("snapshot/doomed/fail_builds", {"count": 1, "reason": "RUN failed"})
    s = await c.new_snapshot("doomed", imageName=None, buildInfo={"dockerfileContent": "FROM x:1\nRUN false\n"})
    check("fail_builds -> build_failed with reason", s["state"] == "build_failed" and s["errorReason"] == "RUN failed", s)
    st, js, _, _ = await c.req("POST", "/api/snapshots/%s/activate" % snap["id"])
    check("activate from active -> 400", st == 400)
    await c.emu("snapshot/base-snap/state", {"state": "inactive"})
    st, js, _, _ = await c.req("POST", "/api/snapshots/%s/activate" % snap["id"])
    ok = st == 200 and js["state"] == "pending"
    js = await c.wait_snapshot("base-snap", ("active",))
    check("activate inactive -> pending -> active", ok and js["state"] == "active")
    st, js, _, _ = await c.req("DELETE", "/api/snapshots/doomed")
    check("snapshot delete by name -> 400 uuid", st == 400 and js["message"] == "Validation failed (uuid is expected)", js)
    st, js, _, _ = await c.req("DELETE", "/api/snapshots/" + s["id"])
    gone = await c.wait_snapshot(s["id"], ("gone",))
    check("snapshot delete -> removing -> 404", st == 200 and gone is None)
    st, js, _, _ = await c.req("GET", "/api/snapshots?limit=2&page=1&sort=name&order=asc")
    check("snapshot list paging", st == 200 and len(js["items"]) == 2 and js["total"] >= 4
          and js["totalPages"] >= 2 and js["items"][0]["name"] <= js["items"][1]["name"], js)


async def t_sandboxes(c):
    st, js, _, _ = await c.req("POST", "/api/sandbox", {"name": "n1", "snapshot": "missing"})
    check("sandbox from missing snapshot 400", st == 400 and js["message"] ==
          "Snapshot missing not found. Did you add it through the Daytona Dashboard?", js)
    await c.emu("snapshot/org%2Fpulled:v1/state", {"state": "pending", "stuck": True})
    st, js, _, _ = await c.req("POST", "/api/sandbox", {"name": "n1", "snapshot": "org/pulled:v1"})
    check("sandbox from pending snapshot 400", st == 400 and js["message"] == "Snapshot org/pulled:v1 is pending", js)
    st, js, _, _ = await c.req("POST", "/api/sandbox", {"name": "n1", "snapshot": "base-snap", "cpu": 2})
    check("resources with snapshot 400", st == 400 and js["message"] ==
          "Cannot specify Sandbox resources when using a snapshot", js)
    t0 = time.time()
    a = await c.new_sandbox("sb-a", labels={"purpose": "validator", "k": "1"}, env={"FOO": "bar"})
    check("create blocks until started", a["state"] == "started" and a["desiredState"] == "started"
          and a["toolboxProxyUrl"] == c.base + "/toolbox" and time.time() - t0 < 2)
    st, js, _, _ = await c.req("POST", "/api/sandbox", {"name": "sb-a", "snapshot": "base-snap"})
    check("duplicate sandbox name 409", st == 409 and js["message"] == "Sandbox with name sb-a already exists", js)
    st, js, _, _ = await c.req("GET", "/api/sandbox/sb-a")
    check("get by name", st == 200 and js["id"] == a["id"] and js["env"] == {"FOO": "bar"})
    for i in range(3):
        await c.new_sandbox("sb-l%d" % i, labels={"purpose": "validator"})
    lbl = urllib.parse.quote(json.dumps({"purpose": "validator"}))
    ids, cursor, pages = [], None, 0
    while True:
        q = "/api/sandbox?labels=%s&limit=2" % lbl + ("&cursor=" + cursor if cursor else "")
        st, js, _, _ = await c.req("GET", q)
        ids += [x["id"] for x in js["items"]]
        pages += 1
        cursor = js["nextCursor"]
        if not cursor:
            break
    check("list by labels with cursor paging", len(ids) == 4 and len(set(ids)) == 4 and pages == 2, (ids, pages))
    st, js, _, _ = await c.req("GET", "/api/sandbox?labels=%7Bbad")
    check("invalid labels JSON 400", st == 400 and js["message"] == "Invalid labels JSON format")
    st, js, _, _ = await c.req("POST", "/api/sandbox/sb-a/stop")
    check("stop returns stopping", st == 200 and js["state"] == "stopping" and js["desiredState"] == "stopped", js)
    st2, js2, _, _ = await c.req("POST", "/api/sandbox/sb-a/start")
    check("start while stopping -> 409", st2 == 409 and js2["message"] == "Sandbox state change in progress", js2)
    await c.wait_sandbox("sb-a", ("stopped",))
    st, js, _, _ = await c.req("POST", "/api/sandbox/sb-a/stop")
    check("stop when stopped -> 400", st == 400 and js["message"] == "Sandbox is not in a stoppable state")
    st, js, _, _ = await c.req("POST", "/api/sandbox/sb-a/start")
    check("start stopped -> started", st == 200 and js["state"] == "started", js)
    st, js, _, _ = await c.req("POST", "/api/sandbox/sb-a/start")
    check("start started -> 200 idempotent", st == 200 and js["state"] == "started")
    await c.emu("sandbox/sb-l0/state", {"state": "error", "recoverable": False, "errorReason": "boom"})
    st, js, _, _ = await c.req("POST", "/api/sandbox/sb-l0/start")
    check("start errored -> 400", st == 400 and js["message"] == "Sandbox is in an errored state", js)
    st, js, _, _ = await c.req("POST", "/api/sandbox/sb-l0/recover")
    check("recover not recoverable -> 400", st == 400)
    await c.emu("sandbox/sb-l0/state", {"state": "error", "recoverable": True, "errorReason": "disk"})
    st, js, _, _ = await c.req("GET", "/api/sandbox/sb-l0")
    check("error DTO carries errorReason + recoverable", js["errorReason"] == "disk" and js["recoverable"] is True, js)
    st, js, _, _ = await c.req("POST", "/api/sandbox/sb-l0/recover")
    check("recover -> started", st == 200 and js["state"] == "started", js)
    await c.emu("sandbox/sb-l1/state", {"state": "starting", "stuck": True})
    st, js, _, _ = await c.req("POST", "/api/sandbox/sb-l1/start")
    check("stuck starting -> start 409", st == 409)
    await c.emu("sandbox/sb-l1/state", {"state": "stopped"})
    await c.emu("sandbox/sb-l1/state", {"state": "paused"})
    st, js, _, _ = await c.req("POST", "/api/sandbox/sb-l1/start")
    check("start paused -> started", st == 200 and js["state"] == "started", js)
    await c.emu("config", {"start_wait_ms": 100})
    await c.emu("sandbox/sb-l1/state", {"state": "stopped"})
    await c.emu("config", {"transition_ms": 400})
    st, js, _, _ = await c.req("POST", "/api/sandbox/sb-l1/start")
    check("start returns transitional DTO after start_wait_ms", st == 200 and js["state"] == "starting", js)
    await c.emu("config", {"transition_ms": 50, "start_wait_ms": 30000})
    await c.wait_sandbox("sb-l1", ("started",))
    st, js, _, _ = await c.req("DELETE", "/api/sandbox/sb-l2")
    check("delete renames and keeps state", st == 200 and js["name"].startswith("DESTROYED_sb-l2_")
          and js["desiredState"] == "destroyed" and js["state"] == "started", js)
    st, js2, _, _ = await c.req("POST", "/api/sandbox/%s/start" % js["id"])
    check("start while destroying -> 409", st == 409)
    gone = await c.wait_sandbox(js["id"], ("gone",))
    check("deleted sandbox -> 404", gone is None)
    b = await c.new_sandbox("sb-l2")
    check("name reusable after delete", b["name"] == "sb-l2")
    st, _, body, _ = await c.req("POST", "/api/sandbox/sb-l2/autostop/5")
    st2, js, _, _ = await c.req("GET", "/api/sandbox/sb-l2")
    check("autostop 201 and applied", st == 201 and js["autoStopInterval"] == 5)
    st, js, _, _ = await c.req("GET", "/api/sandbox/%s/toolbox-proxy-url" % b["id"])
    check("toolbox-proxy-url", st == 200 and js["url"] == c.base + "/toolbox")
    st, _, _, _ = await c.req("POST", "/api/sandbox/%s/last-activity" % b["id"])
    check("last-activity 201", st == 201)
    st, js, _, _ = await c.req("POST", "/api/sandbox", {"name": "sb-built", "cpu": 2, "memory": 2,
                                                        "buildInfo": {"dockerfileContent": "FROM alpine:3.20\n"}})
    ok = st == 200 and js["state"] == "pending_build" and js["cpu"] == 2
    js = await c.wait_sandbox("sb-built", ("started",))
    st, u, _, _ = await c.req("GET", "/api/sandbox/sb-built/build-logs-url")
    st2, _, raw, _ = await c.req("GET", urllib.parse.urlparse(u["url"]).path)
    check("sandbox from buildInfo: pending_build -> started, build logs", ok and st == 200
          and b"Step 1/1 : FROM alpine:3.20" in raw, raw)
    eph = await c.new_sandbox("sb-eph", autoDeleteInterval=0)
    await c.req("POST", "/api/sandbox/sb-eph/stop")
    gone = await c.wait_sandbox(eph["id"], ("gone",))
    check("ephemeral sandbox deleted on stop", gone is None)


async def t_toolbox(c):
    a = await c.new_sandbox("tb-a")
    b = await c.new_sandbox("tb-b", env={"GREETING": "hi there"})
    st, body, raw, _ = await c.req("POST", c.tb(a, "/process/session"), {"sessionId": "s1"})
    check("session create 201 empty", st == 201 and raw == b"")
    st, js, _, _ = await c.req("POST", c.tb(a, "/process/session"), {"sessionId": "s1"})
    check("session exists 409", st == 409 and js["message"] == "conflict: session already exists"
          and js["code"] == "CONFLICT" and js["path"] == "/process/session" and js["method"] == "POST", js)
    st, js, _, _ = await c.req("POST", c.tb(a, "/process/session"), {"sessionId": "entrypoint"})
    check("entrypoint session 400", st == 400)
    st, js, _, _ = await c.exec(a, "s1", "cd /sandbox && export V=42; echo out; echo err >&2; printf tail")
    check("sync exec modern shape", st == 200 and js["stdout"] == "out\ntail\n" and js["stderr"] == "err\n"
          and js["exitCode"] == 0 and "\x01\x01\x01out\n" in js["output"], js)
    st, js, _, _ = await c.exec(a, "s1", "echo $V $(pwd); (exit 3)")
    check("cd/export persist; exit code", js["stdout"] == "42 /sandbox\n" and js["exitCode"] == 3, js)
    st, js, _, _ = await c.exec(a, "s1", "echo a; echo b >&2", headers={"X-Daytona-SDK-Version": None})
    check("no version header: combined output", js["output"] in ("a\nb\n", "b\na\n") and js["stdout"] is None, js)
    st, js, _, _ = await c.exec(a, "s1", "echo a", headers={"X-Daytona-SDK-Version": "0.100.0"})
    check("0.100.0: raw output, no split", js["output"] == "\x01\x01\x01a\n" and js["stdout"] is None, js)
    await c.req("POST", c.tb(b, "/process/session"), {"sessionId": "s1"})
    await c.exec(a, "s1", "echo A > /home/daytona/who; echo A2 > /sandbox/who")
    await c.exec(b, "s1", "echo B > /home/daytona/who")
    _, ja, _, _ = await c.exec(a, "s1", "cat /home/daytona/who /sandbox/who; echo $HOME")
    _, jb, _, _ = await c.exec(b, "s1", "cat /home/daytona/who; cat /sandbox/who 2>/dev/null || echo none; echo $GREETING")
    check("per-sandbox /home/daytona and /sandbox", ja["stdout"] == "A\nA2\n/home/daytona\n"
          and jb["stdout"] == "B\nnone\nhi there\n", (ja, jb))
    st, js, _, _ = await c.exec(a, "s1", "sleep 0.6; echo slow", run_async=True)
    check("async exec 202 all five keys", st == 202 and set(js) == {"cmdId", "output", "stdout", "stderr", "exitCode"}
          and js["exitCode"] is None and js["output"] is None)
    cid = js["cmdId"]
    st, js, _, _ = await c.req("GET", c.tb(a, "/process/session/s1/command/" + cid))
    check("running command has no exitCode key", st == 200 and "exitCode" not in js and js["command"] == "sleep 0.6; echo slow")
    js = await c.wait_cmd(a, "s1", cid)
    st, lj, _, h = await c.req("GET", c.tb(a, "/process/session/s1/command/%s/logs" % cid))
    check("non-follow logs JSON", js["exitCode"] == 0 and lj == {"output": "\x01\x01\x01slow\n", "stdout": "slow\n", "stderr": ""}
          and h["Content-Type"].startswith("application/json"), lj)
    st, _, raw, h = await c.req("GET", c.tb(a, "/process/session/s1/command/%s/logs" % cid),
                                headers={"X-Daytona-SDK-Version": None})
    check("non-follow logs text/plain combined without version", raw == b"slow\n" and h["Content-Type"].startswith("text/plain"))
    st, js, _, _ = await c.exec(a, "nosuch", "true")
    check("unknown session exec 500 wrapped", st == 500 and js["message"] ==
          "failed to execute command: not found: session not found" and js["timestamp"] == "0001-01-01T00:00:00Z"
          and "code" not in js, js)
    st, _, _, _ = await c.exec(a, "s1", "   ")
    check("blank command 400", st == 400)
    st, js, _, _ = await c.req("GET", c.tb(a, "/process/session/s1/command/nope"))
    check("unknown command 404", st == 404 and js["message"] == "not found: command not found")
    # input
    st, js, _, _ = await c.exec(a, "s1", "read x; echo got:$x", run_async=True)
    cid = js["cmdId"]
    st, _, _, _ = await c.req("POST", c.tb(a, "/process/session/s1/command/%s/input" % cid), {"data": "hello"})
    js = await c.wait_cmd(a, "s1", cid)
    st2, lj, _, _ = await c.req("GET", c.tb(a, "/process/session/s1/command/%s/logs" % cid))
    check("input 204, echoed and read", st == 204 and lj["stdout"] == "hello\ngot:hello\n", lj)
    st, js, _, _ = await c.req("POST", c.tb(a, "/process/session/s1/command/%s/input" % cid), {"data": "x"})
    check("input after exit 410", st == 410 and js["message"].startswith("gone: command has already completed with exit code 0"), js)
    # session list/get
    st, js, _, _ = await c.req("GET", c.tb(a, "/process/session/s1"))
    check("session get lists commands", st == 200 and js["sessionId"] == "s1" and len(js["commands"]) >= 5)
    # delete kills the process group
    await c.req("POST", c.tb(a, "/process/session"), {"sessionId": "k"})
    st, js, _, _ = await c.exec(a, "k", "sleep 77.123 & sleep 77.124", run_async=True)
    await asyncio.sleep(0.2)
    before = subprocess.run(["pgrep", "-f", "sleep 77.12"], stdout=subprocess.PIPE).stdout.split()
    st, _, raw, _ = await c.req("DELETE", c.tb(a, "/process/session/k"))
    await asyncio.sleep(0.3)
    after = subprocess.run(["pgrep", "-f", "sleep 77.12"], stdout=subprocess.PIPE).stdout.split()
    check("session delete 204 kills the group", st == 204 and len(before) == 2 and not after, (before, after))
    st, js, _, _ = await c.req("GET", c.tb(a, "/process/session/k"))
    check("deleted session 404", st == 404)
    # exit kills the session shell
    await c.req("POST", c.tb(a, "/process/session"), {"sessionId": "dies"})
    st, js, _, _ = await c.exec(a, "dies", "exit 4", run_async=True)
    await asyncio.sleep(0.3)
    st2, js2, _, _ = await c.req("GET", c.tb(a, "/process/session/dies/command/" + js["cmdId"]))
    st3, js3, _, _ = await c.exec(a, "dies", "true")
    check("exit in command: never completes, later exec fails", "exitCode" not in js2 and st3 == 500, (js2, js3))
    # toolbox on stopped / unknown sandbox
    await c.req("POST", "/api/sandbox/tb-b/stop")
    await c.wait_sandbox("tb-b", ("stopped",))
    st, js, _, _ = await c.req("GET", c.tb(b, "/process/session"))
    check("toolbox on stopped sandbox 400", st == 400 and "Is the Sandbox started?" in js["message"])
    st, js, _, _ = await c.req("GET", "/toolbox/00000000-0000-0000-0000-000000000000/process/session")
    check("toolbox unknown sandbox 404", st == 404 and js["code"] == "NOT_FOUND")
    await c.req("POST", "/api/sandbox/tb-b/start")
    st, js, _, _ = await c.req("GET", c.tb(b, "/process/session"))
    _, jb, _, _ = await c.req("POST", c.tb(b, "/process/session"), {"sessionId": "s1"})
    _, jb, _, _ = await c.exec(b, "s1", "cat /home/daytona/who")
    check("stop kills sessions, files persist", st == 200 and js == [] and jb["stdout"] == "B\n", (js, jb))
    st, js, _, _ = await c.req("POST", c.tb(a, "/process/execute"), {"command": "echo one; echo two >&2; exit 5"})
    check("/process/execute combined", st == 200 and js["exitCode"] == 5 and "one" in js["result"] and "two" in js["result"], js)
    st, js, _, _ = await c.req("POST", c.tb(a, "/process/execute"), {"command": "sleep 5", "timeout": 1})
    check("/process/execute timeout 408", st == 408, js)
    return a


async def t_ws(c, a):
    await c.req("POST", c.tb(a, "/process/session"), {"sessionId": "w"})
    script = "for i in 1 2 3; do echo line$i; echo err$i >&2; sleep 0.1; done"
    st, js, _, _ = await c.exec(a, "w", script, run_async=True)
    cid = js["cmdId"]
    payload, frames, code, took = await ws_collect(c.ws_url(a, "w", cid))
    _, lj, _, _ = await c.req("GET", c.tb(a, "/process/session/w/command/%s/logs" % cid))
    check("ws follow: binary frames, full log, close 1000", code == 1000 and all(isinstance(f, bytes) for f in frames)
          and payload.decode() == lj["output"], (code, payload))
    check("ws closes ~1 s after exit", 1.0 < took < 3.0, took)
    payload2, _, code2, took2 = await ws_collect(c.ws_url(a, "w", cid))
    check("ws replays from byte 0 on reconnect", payload2 == payload and code2 == 1000 and 0.9 < took2 < 2.5, took2)
    payload3, _, code3, took3 = await ws_collect(c.ws_url(a, "w", cid, follow=False))
    check("ws without follow: current log then close", payload3 == payload and code3 == 1000 and took3 < 0.8, took3)
    await c.emu("config", {"ws_frame_max": 1})
    payload, frames, code, _ = await ws_collect(c.ws_url(a, "w", cid))
    check("ws_frame_max=1 splits markers", code == 1000 and all(len(f) == 1 for f in frames) and payload2 == payload)
    await c.emu("config", {"ws_frame_max": 4})
    payload, frames, code, _ = await ws_collect(c.ws_url(a, "w", cid))
    check("ws_frame_max=4 frames", max(len(f) for f in frames) == 4 and payload == payload2)
    await c.emu("config", {"ws_frame_max": 1024, "ws_mode": "drop_after:10"})
    try:
        payload, frames, code, _ = await ws_collect(c.ws_url(a, "w", cid))
    except Exception as e:  # noqa: BLE001
        payload, code = b"?", repr(e)
    check("drop_after:10 -> 10 bytes then no close frame", len(payload) == 10 and code == 1006, (payload, code))
    await c.emu("config", {"ws_mode": "error_after:5"})
    payload, frames, code, _ = await ws_collect(c.ws_url(a, "w", cid))
    check("error_after:5 -> close 1011", len(payload) == 5 and code == 1011, code)
    await c.emu("config", {"ws_mode": "never_close"})
    payload, frames, code, took = await ws_collect(c.ws_url(a, "w", cid), timeout=2.5)
    check("never_close: data, then silence, no close", code is None and payload == payload2, code)
    await c.emu("config", {"ws_mode": "stall"})
    payload, frames, code, took = await ws_collect(c.ws_url(a, "w", cid), timeout=1.0)
    check("stall: nothing sent", code is None and payload == b"")
    await c.emu("config", {"ws_mode": "normal"})
    # ping/pong and live follow of a running command; delete -> 1000
    st, js, _, _ = await c.exec(a, "w", "echo start; sleep 30", run_async=True)
    async with websockets.connect(c.ws_url(a, "w", js["cmdId"]), extra_headers=HDRS, compression=None) as ws:
        first = await asyncio.wait_for(ws.recv(), 5)
        pong = await ws.ping()
        await asyncio.wait_for(pong, 2)
        check("live frame + pong", first == b"\x01\x01\x01start\n")
        await c.req("DELETE", c.tb(a, "/process/session/w"))
        try:
            await asyncio.wait_for(ws.recv(), 3)
        except websockets.ConnectionClosed:
            pass
        check("session delete closes ws with 1000", ws.close_code == 1000, ws.close_code)
    # case-sensitive Upgrade: a wrong-case value gets the plain HTTP path
    await c.req("POST", c.tb(a, "/process/session"), {"sessionId": "w2"})
    st, js, _, _ = await c.exec(a, "w2", "echo x")
    st, _, raw, h = await c.req("GET", c.tb(a, "/process/session/w2/command/%s/logs" % js["cmdId"]),
                                headers={"Upgrade": "WebSocket", "Connection": "Upgrade",
                                         "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                                         "Sec-WebSocket-Version": "13"})
    check("Upgrade: WebSocket (wrong case) is not upgraded", st == 200, st)
    st, _, raw, h = await c.req("GET", c.tb(a, "/process/session/w2/command/%s/logs?follow=true" % js["cmdId"]))
    check("plain HTTP follow: combined chunked stream", st == 200 and raw == b"x\n", raw)
    _, _, _, _ = await c.exec(a, "w2", "true")
    try:
        async with websockets.connect(c.ws_url(a, "w2", "nope"), extra_headers=HDRS) as ws:
            code = "connected"
    except websockets.InvalidStatusCode as e:
        code = e.status_code
    check("ws to unknown command -> 404 before upgrade", code == 404, code)
    st, _, _, _ = await c.req("GET", "/api/sandbox/tb-a")
    _, stats, _, _ = await c.req("GET", "/_emu/stats")
    check("stats count websockets and connections", stats["websockets"] >= 9 and stats["connections"] >= 1, stats)


async def t_files(c, a):
    body, ct = mp_body([("files[0].path", None, b"/home/daytona/in/deep/a.txt"), ("files[0].file", "a.txt", b"hello\n"),
                        ("files[1].path", None, b"/sandbox/b.bin"), ("files[1].file", "b.bin", bytes(range(256))),
                        ("files[2].path", None, b"rel.txt"), ("files[2].file", "r", b"rel")])
    st, js, _, _ = await c.req("POST", c.tb(a, "/files/bulk-upload"), raw=body, headers={"Content-Type": ct})
    check("bulk-upload 200 with parents created", st == 200 and js["files"] == [
        {"path": "/home/daytona/in/deep/a.txt", "bytes": 6}, {"path": "/sandbox/b.bin", "bytes": 256},
        {"path": "rel.txt", "bytes": 3}], js)
    _, ej, _, _ = await c.exec(a, "s1", "cat /home/daytona/in/deep/a.txt /home/daytona/rel.txt; wc -c < /sandbox/b.bin")
    check("uploaded files visible to commands", ej["stdout"] == "hello\nrel256\n", ej)
    body, ct = mp_body([("files[0].file", "x", b"x"), ("files[1].path", None, b"/etc/evil"), ("files[1].file", "y", b"y")])
    st, js, _, _ = await c.req("POST", c.tb(a, "/files/bulk-upload"), raw=body, headers={"Content-Type": ct})
    check("bulk-upload 400 errors", st == 400 and "file[0]: missing .path metadata" in js["errors"]
          and any(e.startswith("/etc/evil: create:") for e in js["errors"]) and js["files"] == [], js)
    st, js, _, _ = await c.req("POST", c.tb(a, "/files/bulk-upload"), {"not": "multipart"})
    check("bulk-upload not multipart 400", st == 400 and js == {"errors": ["invalid multipart form"]})
    st, _, raw, h = await c.req("GET", c.tb(a, "/files/download?path=/sandbox/b.bin"))
    check("download raw bytes", st == 200 and raw == bytes(range(256)) and "attachment" in h["Content-Disposition"])
    st, _, raw, _ = await c.req("GET", c.tb(a, "/files/download?path=/sandbox/none"))
    check("download missing 404 status-only", st == 404 and raw == b"")
    st, _, raw, h = await c.req("POST", c.tb(a, "/files/bulk-download"),
                                {"paths": ["/home/daytona/in/deep/a.txt", "/home/daytona/missing.txt", "/sandbox/b.bin"]})
    parts = split_multipart(raw, "DAYTONA-FILE-BOUNDARY")
    ok = (st == 200 and h["Content-Type"] == "multipart/form-data; boundary=DAYTONA-FILE-BOUNDARY"
          and len(parts) == 4 and parts[-1] == "END" and 'name="file"; filename="/home/daytona/in/deep/a.txt"' in parts[0][0]
          and parts[0][1] == b"hello\n" and 'name="error"' in parts[1][0]
          and json.loads(parts[1][1])["code"] == "FILE_NOT_FOUND" and parts[2][1] == bytes(range(256)))
    check("bulk-download parts, error part, closing boundary", ok, parts)
    st, js, _, _ = await c.req("POST", c.tb(a, "/files/bulk-download"), {"paths": []})
    check("bulk-download empty 400", st == 400 and "non-empty" in js["error"])
    await c.emu("faults", {"method": "POST", "path_regex": "/files/bulk-download$", "times": 1, "action": "drop_boundary"})
    st, _, raw, _ = await c.req("POST", c.tb(a, "/files/bulk-download"), {"paths": ["/sandbox/b.bin"]})
    check("drop_boundary fault: no closing boundary, short part", st == 200 and b"--DAYTONA-FILE-BOUNDARY--" not in raw
          and raw.endswith(bytes(range(128))), raw[-20:])
    await c.emu("faults", {"method": "POST", "path_regex": "/files/bulk-download$", "times": 1, "action": "truncate"})
    try:
        await c.req("POST", c.tb(a, "/files/bulk-download"), {"paths": ["/sandbox/b.bin"]})
        res = "complete"
    except aiohttp.ClientPayloadError:
        res = "truncated"
    check("truncate fault: body cut short", res == "truncated", res)
    st, _, raw, _ = await c.req("POST", c.tb(a, "/files/folder?path=/sandbox/newdir/x&mode=700"))
    st2, js, _, _ = await c.req("GET", c.tb(a, "/files/info?path=/sandbox/newdir/x"))
    check("folder create 201 + info", st == 201 and js["isDir"] and js["permissions"] == "0700"
          and js["mode"] == "drwx------" and js["name"] == "x", js)
    st, js, _, _ = await c.req("GET", c.tb(a, "/files?path=/sandbox"))
    check("list dir", st == 200 and {e["name"] for e in js} >= {"b.bin", "newdir"}, js)
    st, _, _, _ = await c.req("GET", c.tb(a, "/files/info?path=/etc/passwd"))
    check("paths outside the sandbox dirs refused", st == 403)
    st, _, _, _ = await c.req("DELETE", c.tb(a, "/files?path=/sandbox/newdir"))
    st2, _, _, _ = await c.req("DELETE", c.tb(a, "/files?path=/sandbox/newdir&recursive=true"))
    st3, _, _, _ = await c.req("GET", c.tb(a, "/files/info?path=/sandbox/newdir"))
    check("delete dir needs recursive", st == 400 and st2 == 204 and st3 == 404, (st, st2, st3))
    body, ct = mp_body([("file", "f.txt", b"single")])
    st, _, raw, _ = await c.req("POST", c.tb(a, "/files/upload?path=/home/daytona/single.txt"), raw=body,
                                headers={"Content-Type": ct})
    st2, _, raw2, _ = await c.req("GET", c.tb(a, "/files/download?path=single.txt"))
    check("single upload + relative download", st == 200 and raw == b"" and raw2 == b"single")


async def t_faults(c):
    await c.emu("faults", {"method": "GET", "path_regex": "^/api/sandbox/", "times": 2, "action": "status",
                           "status": 429, "headers": {"Retry-After-sandbox-lifecycle": "1"}})
    r1 = await c.req("GET", "/api/sandbox/x")
    r2 = await c.req("GET", "/api/sandbox/x")
    r3 = await c.req("GET", "/api/sandbox/x")
    check("429 fault twice then real handler", r1[0] == 429 and r2[0] == 429 and r3[0] == 404
          and r1[3]["Retry-After-sandbox-lifecycle"] == "1"
          and r1[1]["message"] == "ThrottlerException: Too Many Requests" and r1[1]["error"] == "Too Many Requests", r1[1])
    await c.emu("faults", {"method": "*", "path_regex": "^/api/snapshots$", "times": 1, "action": "reset"})
    try:
        await c.req("GET", "/api/snapshots")
        res = "answered"
    except (aiohttp.ClientOSError, aiohttp.ServerDisconnectedError):
        res = "reset"
    check("reset fault drops the connection", res == "reset", res)
    await c.emu("faults", {"path_regex": "^/api/snapshots$", "times": 1, "action": "delay", "delay_ms": 300})
    t0 = time.time()
    st, _, _, _ = await c.req("GET", "/api/snapshots")
    check("delay fault", st == 200 and time.time() - t0 >= 0.3)
    await c.emu("faults", {"path_regex": "^/api/snapshots$", "times": 1, "action": "stall"})
    try:
        await c.req("GET", "/api/snapshots", timeout=0.5)
        res = "answered"
    except asyncio.TimeoutError:
        res = "stalled"
    check("stall fault", res == "stalled")
    await c.emu("faults", {"method": "GET", "path_regex": "^/api/snapshots$", "times": 1, "action": "status",
                           "status": 503, "body": "down", "content_type": "text/plain"})
    st, _, raw, _ = await c.req("GET", "/api/snapshots")
    check("status fault with custom body", st == 503 and raw == b"down")
    _, reqs, _, _ = await c.req("GET", "/_emu/requests")
    last = [r for r in reqs if r["path"] == "/api/snapshots"][-1]
    check("requests recorded with lower-case headers", last["method"] == "GET" and
          last["headers"].get("x-daytona-source") == "sdk-c" and last["body"] is None, last)
    post = [r for r in reqs if r["method"] == "POST" and r["path"] == "/api/sandbox"]
    check("request bodies recorded", post and json.loads(post[0]["body"])["name"])
    await c.emu("reset")
    _, reqs, _, _ = await c.req("GET", "/_emu/requests")
    _, st, _, _ = await c.req("GET", "/api/snapshots")
    check("reset forgets everything", reqs == [] and st["total"] == 0, st)


def t_lifetime():
    proc, port = start_emulator("--lifetime", "1")
    try:
        rc = proc.wait(6)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = "alive"
    check("exits by itself after --lifetime", rc == 0, rc)
    proc, port = start_emulator()
    proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(6)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = "alive"
    check("exits on SIGTERM", rc == 0, rc)
    # parent death: a shell starts the emulator and dies
    tmp = tempfile.mkdtemp(prefix="emu-suite-")
    pf = os.path.join(tmp, "port")
    sh = subprocess.Popen(["/bin/sh", "-c", "%s %s --port-file %s & echo $!; sleep 1" % (sys.executable, EMU, pf)],
                          stdout=subprocess.PIPE)
    pid = int(sh.stdout.readline())
    sh.wait()
    end = time.time() + 5
    while time.time() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
    check("exits when its parent dies", time.time() < end)


async def run_all(port):
    async with aiohttp.ClientSession() as http:
        c = Client(port, http)
        for name, fn in (("auth", t_auth_and_errors), ("snapshots", t_snapshots), ("sandboxes", t_sandboxes)):
            try:
                await fn(c)
            except Exception as e:  # noqa: BLE001
                check("%s group completed" % name, False, repr(e))
        a = None
        try:
            a = await t_toolbox(c)
        except Exception as e:  # noqa: BLE001
            check("toolbox group completed", False, repr(e))
        if a is not None:
            for name, fn in (("ws", t_ws), ("files", t_files)):
                try:
                    await fn(c, a)
                except Exception as e:  # noqa: BLE001
                    check("%s group completed" % name, False, repr(e))
        try:
            await t_faults(c)
        except Exception as e:  # noqa: BLE001
            check("faults group completed", False, repr(e))


def main():
    t0 = time.time()
    proc, port = start_emulator("--lifetime", "300")
    try:
        asyncio.run(run_all(port))
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
    log = open(proc.stderr_path, errors="replace").read()
    check("no tracebacks in the emulator's stderr", "Traceback" not in log and "Error handling" not in log,
          log[-3000:])
    t_lifetime()
    print("emulator suite took %.1f s" % (time.time() - t0))
    print("%d passed, %d failed" % (len(PASSED), len(FAILED)))
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
