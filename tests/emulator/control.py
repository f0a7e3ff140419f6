"""The /_emu control API of CONTROL.md (no auth, never recorded, never faulted)."""
import asyncio
import json


from state import DESIRED_FOR
from util import json_response


async def _body(request):
    raw = await request.read()
    if not raw:
        return {}
    try:
        body = json.loads(raw)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _bad(msg):
    return json_response({"error": msg}, 400)


async def reset(request):
    request.app["emu"].reset()
    return json_response({"ok": True})


async def config(request):
    emu = request.app["emu"]
    body = await _body(request)
    if body is None:
        return _bad("body must be a JSON object")
    unknown = [k for k in body if k not in emu.config]
    if unknown:
        return _bad("unknown config keys: %s" % ", ".join(unknown))
    emu.config.update(body)
    return json_response(emu.config)


async def faults(request):
    emu = request.app["emu"]
    body = await _body(request)
    if body is None:
        return _bad("body must be a JSON object")
    try:
        emu.faults.add(body)
    except (ValueError, TypeError) as e:
        return _bad(str(e))
    return json_response({"ok": True, "rules": len(emu.faults.rules)})


async def clear_faults(request):
    request.app["emu"].faults.clear()
    return json_response({"ok": True})


async def sandbox_state(request):
    emu = request.app["emu"]
    sbx = emu.store.sandbox(request.match_info["name"])
    if sbx is None:
        return json_response({"error": "no such sandbox"}, 404)
    body = await _body(request)
    if body is None or not isinstance(body.get("state"), str):
        return _bad("body needs a state")
    state = body["state"]
    sbx.stuck = bool(body.get("stuck", False))
    if "recoverable" in body:
        sbx.recoverable = bool(body["recoverable"])
    if body.get("desiredState"):
        sbx.desired = body["desiredState"]
    elif state in DESIRED_FOR and sbx.desired != "destroyed":
        sbx.desired = DESIRED_FOR[state]
    emu.store.set_sandbox_state(sbx, state, body.get("errorReason"))
    return json_response(sbx.dto())


async def snapshot_state(request):
    emu = request.app["emu"]
    snap = emu.store.snapshot(request.match_info["name"])
    if snap is None:
        return json_response({"error": "no such snapshot"}, 404)
    body = await _body(request)
    if body is None or not isinstance(body.get("state"), str):
        return _bad("body needs a state")
    snap.stuck = bool(body.get("stuck", False))
    emu.store.set_snapshot_state(snap, body["state"], body.get("errorReason"))
    return json_response(snap.dto())


async def fail_builds(request):
    emu = request.app["emu"]
    body = await _body(request)
    if body is None:
        return _bad("body must be a JSON object")
    emu.store.fail_builds[request.match_info["name"]] = [
        int(body.get("count", 1)), body.get("reason") or "build failed (emulated)"]
    return json_response({"ok": True})


async def requests(request):
    return json_response(request.app["emu"].recorded_json())


async def stats(request):
    emu = request.app["emu"]
    return json_response(dict(emu.stats))


async def shutdown(request):
    emu = request.app["emu"]
    asyncio.get_event_loop().call_later(0.05, emu.stop_event.set)
    return json_response({"ok": True})


def setup(app):
    r = app.router
    r.add_post("/_emu/reset", reset)
    r.add_post("/_emu/config", config)
    r.add_post("/_emu/faults", faults)
    r.add_delete("/_emu/faults", clear_faults)
    r.add_post("/_emu/sandbox/{name}/state", sandbox_state)
    r.add_post("/_emu/snapshot/{name}/state", snapshot_state)
    r.add_post("/_emu/snapshot/{name}/fail_builds", fail_builds)
    r.add_get("/_emu/requests", requests)
    r.add_get("/_emu/stats", stats)
    r.add_post("/_emu/shutdown", shutdown)
