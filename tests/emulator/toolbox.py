"""Toolbox process routes (PROTOCOL 5, 6.7): sessions, exec, commands, logs, input,
/process/execute and the small info routes.  The proxy checks (auth, sandbox
exists and is started) happen in emulator.py before these handlers run."""
import asyncio
import json
import os
import signal

from aiohttp import web

import wsfollow
from sessions import SessionDead, sh_quote
from util import (demux, json_response, output_mode, status_only, strip_markers,
                  toolbox_error, wrapped_error)

P = "/toolbox/{sbx}"


def daemon_path(request):
    """The path as the daemon sees it (proxy prefix stripped)."""
    return "/" + request.path.split("/", 3)[3] if request.path.count("/") >= 3 else "/"


def terr(request, status, detail, code=None):
    return toolbox_error(daemon_path(request), request.method, status, detail, code)


async def read_json(request):
    raw = await request.read()
    try:
        body = json.loads(raw)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def mgr(request):
    return request.app["emu"].sessions


def get_session(request):
    sbx = request["sbx"]
    return mgr(request).sessions(sbx).get(request.match_info["sid"])


def get_command(request):
    """(session, command, error response)."""
    s = get_session(request)
    if s is None:
        return None, None, terr(request, 404, "session not found")
    cmd = s.commands.get(request.match_info["cid"])
    if cmd is None:
        return s, None, terr(request, 404, "command not found")
    return s, cmd, None


async def session_create(request):
    body = await read_json(request)
    if body is None or not isinstance(body.get("sessionId"), str) or not body["sessionId"]:
        return terr(request, 400, "invalid request body", "INVALID_REQUEST_BODY")
    sid = body["sessionId"]
    if sid == "entrypoint":
        return terr(request, 400, "session ID 'entrypoint' is reserved")
    if sid in mgr(request).sessions(request["sbx"]):
        return terr(request, 409, "session already exists")
    mgr(request).create(request["sbx"], sid)
    return web.Response(status=201, body=b"")


async def session_list(request):
    return json_response([s.info() for s in mgr(request).sessions(request["sbx"]).values()])


async def session_get(request):
    s = get_session(request)
    if s is None:
        return terr(request, 404, "session not found")
    return json_response(s.info())


async def session_delete(request):
    s = mgr(request).delete(request["sbx"], request.match_info["sid"])
    if s is None:
        return terr(request, 404, "session not found")
    return web.Response(status=204)


def _text(b):
    return b.decode("utf-8", errors="replace")


async def session_exec(request):
    sid = request.match_info["sid"]
    if sid == "entrypoint":
        return terr(request, 400, "can't execute command in entrypoint session")
    body = await read_json(request)
    if body is None or not isinstance(body.get("command"), str) or not body["command"].strip():
        return status_only(400)
    s = get_session(request)
    if s is None:
        return wrapped_error("failed to execute command: not found: session not found")
    run_async = bool(body.get("runAsync")) or bool(body.get("async"))
    try:
        cmd = s.exec(body["command"], run_async, bool(body.get("suppressInputEcho")))
    except SessionDead as e:
        return wrapped_error("failed to execute command: %s" % e)
    if run_async:
        return json_response({"cmdId": cmd.id, "output": None, "stdout": None,
                              "stderr": None, "exitCode": None}, 202)
    while not cmd.done.is_set():
        await asyncio.sleep(0.05)
    if cmd.exit_code is None:   # session deleted meanwhile
        return wrapped_error("failed to execute command: session was deleted")
    log = _read_log(cmd)
    mode = output_mode(request.headers)
    if mode == "modern":
        out, err = demux(log)
        return json_response({"cmdId": cmd.id, "output": _text(log), "stdout": _text(out),
                              "stderr": _text(err), "exitCode": cmd.exit_code})
    text = log if mode == "raw" else strip_markers(log)
    return json_response({"cmdId": cmd.id, "output": _text(text), "stdout": None,
                          "stderr": None, "exitCode": cmd.exit_code})


def _read_log(cmd):
    try:
        with open(cmd.log_path, "rb") as f:
            return f.read()
    except OSError:
        return b""


async def command_get(request):
    _, cmd, err = get_command(request)
    return err if err is not None else json_response(cmd.info())


async def command_logs(request):
    s, cmd, err = get_command(request)
    if err is not None:
        return err
    if request.headers.get("Upgrade") == "websocket":
        return await wsfollow.follow(request, s, cmd)
    if request.query.get("follow") == "true":
        return await wsfollow.http_follow(request, s, cmd)
    if not os.path.exists(cmd.log_path):
        return terr(request, 404, "log file not found")
    log = _read_log(cmd)
    mode = output_mode(request.headers)
    if mode == "modern":
        out, errb = demux(log)
        return json_response({"output": _text(log), "stdout": _text(out), "stderr": _text(errb)})
    text = log if mode == "raw" else strip_markers(log)
    return web.Response(body=text, content_type="text/plain", charset="utf-8")


async def command_input(request):
    s, cmd, err = get_command(request)
    if err is not None:
        return err
    body = await read_json(request)
    if body is None or not isinstance(body.get("data"), str):
        return terr(request, 400, "invalid request body", "INVALID_REQUEST_BODY")
    gone = s.send_input(cmd, body["data"])
    if gone:
        return terr(request, 410, gone)
    return web.Response(status=204)


async def process_execute(request):
    """One-shot command in a fresh shell (PROTOCOL 5.8)."""
    body = await read_json(request)
    if body is None or not isinstance(body.get("command"), str) or not body["command"].strip():
        return status_only(400)
    emu = request.app["emu"]
    sbx = request["sbx"]
    timeout = body.get("timeout") or 0
    script = "cd %s 2>/dev/null; %s\n" % (sh_quote(body["cwd"]), body["command"]) \
        if body.get("cwd") else body["command"] + "\n"
    envs = {str(k): str(v) for k, v in (body.get("envs") or {}).items()}
    try:
        proc = emu.sessions.spawn_oneshot(sbx, envs)
    except OSError:
        return json_response({"exitCode": -1, "result": ""})
    loop = asyncio.get_event_loop()
    fut = loop.run_in_executor(None, proc.communicate, script.encode())
    try:
        out, _ = await asyncio.wait_for(asyncio.shield(fut), timeout if timeout > 0 else None)
    except asyncio.TimeoutError:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        await fut
        return terr(request, 408, "command execution timeout")
    return json_response({"exitCode": proc.returncode, "result": _text(out)})


async def version(request):
    return json_response({"version": "v0.190.0"})


async def home_dir(request):
    return json_response({"dir": "/home/daytona"})


def setup(app):
    r = app.router
    r.add_post(P + "/process/session", session_create)
    r.add_get(P + "/process/session", session_list)
    r.add_get(P + "/process/session/{sid}", session_get)
    r.add_delete(P + "/process/session/{sid}", session_delete)
    r.add_post(P + "/process/session/{sid}/exec", session_exec)
    r.add_get(P + "/process/session/{sid}/command/{cid}", command_get)
    r.add_get(P + "/process/session/{sid}/command/{cid}/logs", command_logs)
    r.add_post(P + "/process/session/{sid}/command/{cid}/input", command_input)
    r.add_post(P + "/process/execute", process_execute)
    r.add_get(P + "/version", version)
    r.add_get(P + "/user-home-dir", home_dir)
    r.add_get(P + "/work-dir", home_dir)
