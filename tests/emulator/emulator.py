#!/usr/bin/python3
"""Daytona main API + toolbox emulator for the tests (see CONTROL.md, README.md).

    /usr/bin/python3 tests/emulator/emulator.py --port-file PATH [--lifetime S] [--root DIR]

Listens on 127.0.0.1 (ephemeral port), writes the port to PATH once it accepts
connections, and exits by itself after --lifetime seconds, on SIGTERM, on
POST /_emu/shutdown, or when its parent process dies."""
import argparse
import asyncio
import os
import shutil
import signal
import time
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from aiohttp import web  # noqa: E402

import api  # noqa: E402
import buildlogs  # noqa: E402
import control  # noqa: E402
import fastroute  # noqa: E402
import faults as faultmod  # noqa: E402
import files  # noqa: E402
import toolbox  # noqa: E402
from faults import Faults  # noqa: E402
from sessions import SessionManager  # noqa: E402
from state import DEFAULT_CONFIG, Store  # noqa: E402
from util import api_error, now_iso, toolbox_error  # noqa: E402

RECORD_BODY_MAX = 64 * 1024


class Emu:
    def __init__(self, root):
        self.root = root
        self.port = 0
        self.sessions = SessionManager(root)
        self.stop_event = asyncio.Event()
        self.reset()

    @property
    def base_url(self):
        return "http://127.0.0.1:%d" % self.port

    @property
    def toolbox_url(self):
        return self.base_url + "/toolbox"

    def reset(self):
        old = getattr(self, "store", None)
        if old is not None:
            for sbx in list(old.sandboxes.values()):
                self.sessions.remove_sandbox(sbx)
        self.config = dict(DEFAULT_CONFIG)
        self.store = Store(self)
        self.faults = Faults()
        self.recorded = []
        # sandboxes_created: the bench's "sandboxes used" per client
        self.stats = {"connections": 0, "requests": 0, "websockets": 0,
                      "sandboxes_created": 0}

    def recorded_json(self):
        """GET /_emu/requests: the requests _record kept."""
        return [{"method": m, "path": p, "query": q,
                 "headers": {k.lower(): v for k, v in h.items()},
                 "body": b.decode("utf-8", errors="replace") if b else None}
                for m, p, q, h, b in self.recorded]

    # hooks called by the state machine
    def on_sandbox_started(self, sbx):
        self.sessions.ensure_dirs(sbx)

    def on_sandbox_down(self, sbx):
        self.sessions.kill_all(sbx)

    def on_sandbox_gone(self, sbx):
        self.sessions.remove_sandbox(sbx)


def _record(emu, request, raw):
    """Kept as is; shaped only when /_emu/requests asks (Emu.recorded_json)."""
    emu.recorded.append((request.method, request.path, request.query_string,
                         request.headers, raw[:RECORD_BODY_MAX]))


def _auth_ok(emu, request):
    auth = request.headers.get("Authorization", "")
    if not auth.startswith("Bearer ") or not auth[7:].strip():
        return False
    key = emu.config.get("api_key")
    return key is None or auth[7:].strip() == key


def _toolbox_precheck(emu, request):
    """Proxy checks for /toolbox/<id>/...: returns an error response or None."""
    parts = request.path.split("/", 3)
    if len(parts) < 4 or not parts[2] or not parts[3]:
        return toolbox_error(request.path, request.method, 404, "invalid toolbox path")
    sbx = emu.store.sandboxes.get(parts[2])
    if sbx is None:
        return toolbox_error(request.path, request.method, 404,
                             "sandbox container not found: %s" % parts[2])
    if sbx.state != "started":
        return toolbox_error(request.path, request.method, 400,
                             "sandbox container has no IP address, it might be stopped or "
                             "starting. Is the Sandbox started?")
    request["sbx"] = sbx
    if request.headers.get("X-Daytona-Skip-Last-Activity-Update", "").lower() != "true":
        sbx.last_activity = now_iso()
        sbx.activity_mono = time.monotonic()
    return None


def _not_found(request):
    if request.path.startswith("/toolbox/"):
        return toolbox_error(toolbox.daemon_path(request), request.method, 404,
                             "route not found")
    return api_error(request, 404, "Cannot %s %s" % (request.method, request.path))


@web.middleware
async def middleware(request, handler):
    emu = request.app["emu"]
    if request.path.startswith("/_emu/"):
        return await handler(request)
    emu.stats["requests"] += 1
    raw = await request.read() if request.can_read_body else b""
    _record(emu, request, raw)
    rule = emu.faults.take(request)
    post = None
    if rule is not None:
        if rule.action == "status":
            return faultmod.status_response(request, rule)
        if rule.action == "reset":
            faultmod.abort_connection(request)
            return web.Response(status=500)
        if rule.action == "stall":
            await faultmod.stall(request)
            return web.Response(status=500)
        if rule.action == "delay":
            await asyncio.sleep(rule.delay_ms / 1000.0)
        else:
            post = rule.action
    if request.path.startswith("/api/socket.io"):
        return api_error(request, 404, "Cannot GET %s" % request.path)
    if not _auth_ok(emu, request):
        if request.path.startswith("/api/"):
            return api_error(request, 401, "Unauthorized")
        return toolbox_error(request.path, request.method, 401,
                             "authentication failed: Bearer token is invalid")
    if request.path.startswith("/toolbox/"):
        err = _toolbox_precheck(emu, request)
        if err is not None:
            return err
    try:
        resp = await handler(request)
    except web.HTTPNotFound:
        resp = _not_found(request)
    except web.HTTPMethodNotAllowed:
        resp = _not_found(request)
    if post == "truncate" and isinstance(resp, web.Response):
        faultmod.send_truncated(request, resp)
    elif post == "drop_boundary" and isinstance(resp, web.Response):
        resp = faultmod.drop_closing_boundary(resp)
    if request.path.startswith("/api/") and isinstance(resp, web.Response) and not resp.prepared:
        resp.headers.setdefault("X-RateLimit-Limit-authenticated", "10000")
        resp.headers.setdefault("X-RateLimit-Remaining-authenticated", "9999")
        resp.headers.setdefault("X-RateLimit-Reset-authenticated", "60")
    return resp


def make_app(emu):
    app = web.Application(middlewares=[middleware], client_max_size=1 << 30)
    app["emu"] = emu
    # the toolbox's routes (most requests) first; no two sets overlap
    toolbox.setup(app)
    files.setup(app)
    control.setup(app)
    api.setup(app)
    buildlogs.setup(app)
    fastroute.install(app.router)
    return app


async def auto_stopper(emu):
    """auto_stop_ms mode (PROTOCOL 10.3.1): a started sandbox with a non-zero
    autoStopInterval and no activity (toolbox request, open log WebSocket,
    POST last-activity) for auto_stop_ms is stopped, as the real auto-stop."""
    while not emu.stop_event.is_set():
        await asyncio.sleep(0.05)
        ms = int(emu.config.get("auto_stop_ms") or 0)
        if ms <= 0:
            continue
        now = time.monotonic()
        for sbx in list(emu.store.sandboxes.values()):
            if sbx.state != "started" or sbx.desired != "started" or not sbx.auto_stop:
                continue
            if sbx.open_ws > 0:
                sbx.activity_mono = now
            elif now - sbx.activity_mono > ms / 1000.0:
                sbx.desired = "stopped"
                emu.store.set_sandbox_state(sbx, "stopping")


async def watchdog(emu, lifetime, parent):
    loop = asyncio.get_event_loop()
    deadline = loop.time() + lifetime
    while not emu.stop_event.is_set():
        if loop.time() >= deadline:
            break
        if parent > 1 and os.getppid() != parent:
            break
        try:
            await asyncio.wait_for(emu.stop_event.wait(), 0.25)
        except asyncio.TimeoutError:
            pass
    emu.stop_event.set()


async def amain(args):
    own_root = args.root is None
    root = args.root or tempfile.mkdtemp(prefix="daytona-emu-")
    os.makedirs(root, exist_ok=True)
    emu = Emu(root)
    app = make_app(emu)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    srv = runner.server
    orig = srv.connection_made

    def counting(handler, transport):
        emu.stats["connections"] += 1
        return orig(handler, transport)
    srv.connection_made = counting
    site = web.TCPSite(runner, "127.0.0.1", args.port, shutdown_timeout=0.5)
    await site.start()
    emu.port = site._server.sockets[0].getsockname()[1]
    loop = asyncio.get_event_loop()
    loop.add_signal_handler(signal.SIGTERM, emu.stop_event.set)
    loop.add_signal_handler(signal.SIGINT, emu.stop_event.set)
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % emu.port)
        os.rename(tmp, args.port_file)
    print("daytona emulator on http://127.0.0.1:%d (root %s, isolation %s)"
          % (emu.port, root, emu.sessions.isolation), file=sys.stderr, flush=True)
    stopper = loop.create_task(auto_stopper(emu))
    try:
        await watchdog(emu, args.lifetime, os.getppid())
    finally:
        emu.sessions.shutdown()
        try:
            await asyncio.wait_for(runner.cleanup(), 3)
        except (asyncio.TimeoutError, Exception):
            pass
        if own_root:
            shutil.rmtree(root, ignore_errors=True)


def _use_uvloop():
    """uvloop's event loop when installed (python3-uvloop; cheaper per
    request), unless EMU_UVLOOP=0."""
    if os.environ.get("EMU_UVLOOP") == "0":
        return
    try:
        import uvloop
    except ImportError:
        return
    uvloop.install()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port-file")
    ap.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--lifetime", type=float, default=600)
    ap.add_argument("--root")
    args = ap.parse_args()
    _use_uvloop()
    asyncio.run(amain(args))
    os._exit(0)


if __name__ == "__main__":
    main()
