"""Snapshot / sandbox build logs on the "proxy" host (PROTOCOL 2.7).

The log is synthesised from the Dockerfile: one Docker-style block per line,
revealed in proportion to the elapsed build time.  With follow=true the chunked
stream ends ~1 s after the build succeeded; after a failure it stays open (the
real runner's behaviour) until the client gives up or 120 s passed."""
import asyncio
import hashlib
import time

from aiohttp import web

from util import api_error


def full_log(dockerfile, ref, failed_reason=None):
    steps = [ln for ln in dockerfile.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    lines = []
    for i, s in enumerate(steps, 1):
        lines.append("Step %d/%d : %s\n" % (i, len(steps), s))
        lines.append(" ---> %s\n" % hashlib.sha256(("%d%s" % (i, s)).encode()).hexdigest()[:12])
    if failed_reason is not None:
        lines.append("ERROR: %s\n" % failed_reason)
    else:
        lines.append("Successfully built %s\n" % hashlib.sha256(ref.encode()).hexdigest()[:12])
        lines.append("Successfully tagged %s\n" % ref)
    return lines


def current_log(ent, build_ms):
    """(text so far, finished, ok)."""
    info = ent.build_info
    if info is None:
        return "", True, True
    failed = ent.state == "build_failed"
    done = ent.state not in ("pending", "building", "pulling", "pending_build",
                             "building_snapshot", "pulling_snapshot")
    lines = full_log(info["dockerfileContent"], info["snapshotRef"],
                     (ent.error_reason or "build failed") if failed else None)
    if done:
        return "".join(lines), True, not failed
    if ent.build_started is None:
        return "", False, True
    frac = min(1.0, (time.monotonic() - ent.build_started) / max(0.001, build_ms / 1000.0))
    n = int(frac * max(0, len(lines) - 2))
    return "".join(lines[:n]), False, True


async def stream(request, ent):
    emu = request.app["emu"]
    follow = request.query.get("follow") == "true"
    resp = web.StreamResponse(status=200, headers={"Content-Type": "application/octet-stream"})
    resp.enable_chunked_encoding()
    await resp.prepare(request)
    sent = 0
    finished_at = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        text, done, ok = current_log(ent, emu.config["snapshot_build_ms"])
        data = text.encode()
        if len(data) > sent:
            await resp.write(data[sent:])
            sent = len(data)
        if not follow:
            break
        if done and ok:
            finished_at = finished_at or time.monotonic()
            if time.monotonic() - finished_at >= 1.0:
                break
        await asyncio.sleep(0.05)
    await resp.write_eof()
    return resp


async def snapshot_logs(request):
    emu = request.app["emu"]
    snap = emu.store.snapshot(request.match_info["ref"])
    if snap is None:
        return api_error(request, 404, "Snapshot %s not found" % request.match_info["ref"])
    return await stream(request, snap)


async def sandbox_logs(request):
    emu = request.app["emu"]
    sbx = emu.store.sandbox(request.match_info["ref"])
    if sbx is None:
        return api_error(request, 404, "Sandbox with ID or name %s not found"
                         % request.match_info["ref"])
    return await stream(request, sbx)


def setup(app):
    r = app.router
    r.add_get("/snapshots/{ref}/build-logs", snapshot_logs)
    r.add_get("/sandboxes/{ref}/build-logs", sandbox_logs)
    r.add_get("/api/snapshots/{ref}/build-logs", snapshot_logs)
