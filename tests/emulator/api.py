"""Main API: snapshots (PROTOCOL 2) and sandboxes (PROTOCOL 3)."""
import asyncio
import base64
import json
import re
import time

from aiohttp import web

from state import DEFAULT_SNAPSHOT, Sandbox, Snapshot, snapshot_ref
from util import api_error, json_response, now_iso

NAME_RE = re.compile(r"^[a-zA-Z0-9_.\-:]+(/[a-zA-Z0-9_.\-:]+)*(@sha256:[a-f0-9]{64})?$")
UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
STABLE_SANDBOX = ("started", "stopped", "archived", "paused", "error", "build_failed")


def emu_of(request):
    return request.app["emu"]


async def json_body(request):
    """Parsed JSON object body, or an api_error response to return."""
    raw = await request.read()
    if not raw:
        return {}
    try:
        body = json.loads(raw)
    except ValueError:
        return api_error(request, 400, "Unexpected token in JSON at position 0")
    if not isinstance(body, dict):
        return api_error(request, 400, "Request body must be an object")
    return body


# ---------------------------------------------------------------- snapshots
async def snapshot_get(request):
    emu = emu_of(request)
    key = request.match_info["ref"]
    snap = emu.store.snapshot(key)
    if snap is None:
        return api_error(request, 404, "Snapshot %s not found" % key)
    return json_response(snap.dto())


async def snapshot_list(request):
    emu = emu_of(request)
    q = request.query
    try:
        page = max(1, int(q.get("page", 1)))
        limit = int(q.get("limit", 100))
    except ValueError:
        return api_error(request, 400, "page and limit must be integers")
    if not 1 <= limit <= 200:
        return api_error(request, 400, "limit must not be greater than 200, limit must not be less than 1")
    items = list(emu.store.snapshots.values())
    if q.get("name"):
        items = [s for s in items if q["name"].lower() in s.name.lower()]
    sort = q.get("sort", "lastUsedAt")
    key = {"name": lambda s: s.name, "state": lambda s: s.state,
           "createdAt": lambda s: s.created_at,
           "lastUsedAt": lambda s: (s.last_used_at or "", s.created_at)}.get(sort)
    if key is None:
        return api_error(request, 400, "sort must be one of the following values: name, state, lastUsedAt, createdAt")
    items.sort(key=key, reverse=(q.get("order", "desc") == "desc"))
    total = len(items)
    pages = (total + limit - 1) // limit
    chunk = items[(page - 1) * limit: page * limit]
    return json_response({"items": [s.dto() for s in chunk], "total": total,
                          "page": page, "totalPages": pages})


async def snapshot_create(request):
    emu = emu_of(request)
    body = await json_body(request)
    if isinstance(body, web.Response):
        return body
    name = body.get("name")
    image = body.get("imageName")
    build = body.get("buildInfo")
    if not isinstance(name, str) or not name:
        return api_error(request, 400, "name must be a string, name should not be empty")
    if not NAME_RE.match(name):
        return api_error(request, 400, "Invalid snapshot name format. May contain letters, "
                         "numbers, dots, colons, slashes and dashes")
    if image and build:
        return api_error(request, 400, "Cannot specify an image name when using a build info entry")
    if not image and not build:
        return api_error(request, 400, "Must specify an image name when not using a build info entry")
    if build is not None and body.get("entrypoint"):
        return api_error(request, 400, "Cannot specify an entrypoint when using a build info entry")
    if image:
        last = image.rsplit("/", 1)[-1]
        if "@sha256:" not in image and ":" not in last:
            return api_error(request, 400, "Image name must include a tag or digest")
        if image.endswith(":latest"):
            return api_error(request, 400, 'Images with tag ":latest" are not allowed')
    if build is not None and (not isinstance(build, dict)
                              or not isinstance(build.get("dockerfileContent"), str)):
        return api_error(request, 400, "buildInfo.dockerfileContent must be a string")
    if emu.store.snapshot(name) is not None and emu.store.snapshot(name).name == name:
        return api_error(request, 409,
                         'Snapshot with name "%s" already exists for this organization' % name)
    info = None
    if build is not None:
        hashes = list(build.get("contextHashes") or [])
        ts = now_iso()
        info = {"dockerfileContent": build["dockerfileContent"], "contextHashes": hashes,
                "snapshotRef": snapshot_ref(build["dockerfileContent"], hashes),
                "createdAt": ts, "updatedAt": ts}
    snap = Snapshot(name, image_name=image, build_info=info, entrypoint=body.get("entrypoint"),
                    cpu=body.get("cpu", 1), gpu=body.get("gpu", 0), mem=body.get("memory", 1),
                    disk=body.get("disk", 3), region=body.get("regionId"))
    emu.store.snapshots[snap.id] = snap
    snap.fail_next = emu.store.take_build_failure(name)
    if info is not None and snap.fail_next is None and any(
            s is not snap and s.state == "active" and s.build_info
            and s.build_info["snapshotRef"] == info["snapshotRef"]
            for s in emu.store.snapshots.values()):
        snap.size = 0.5
        emu.store.set_snapshot_state(snap, "active")   # build deduplicated
    else:
        emu.store.set_snapshot_state(snap, "pending")
    return json_response(snap.dto())


async def snapshot_activate(request):
    emu = emu_of(request)
    key = request.match_info["ref"]
    snap = emu.store.snapshot(key)
    if snap is None:
        return api_error(request, 404, "Snapshot %s not found" % key)
    if snap.state != "inactive":
        return api_error(request, 400, "Snapshot %s is not inactive (state: %s)" % (snap.name, snap.state))
    snap.stuck = False
    snap.activating = True
    snap.fail_next = emu.store.take_build_failure(snap.name)
    emu.store.set_snapshot_state(snap, "pending")
    return json_response(snap.dto())


async def snapshot_delete(request):
    emu = emu_of(request)
    key = request.match_info["ref"]
    if not UUID_RE.match(key):
        return api_error(request, 400, "Validation failed (uuid is expected)")
    snap = emu.store.snapshots.get(key)
    if snap is None:
        return api_error(request, 404, "Snapshot with ID %s not found" % key)
    snap.stuck = False
    emu.store.set_snapshot_state(snap, "removing")
    return web.Response(status=200, body=b"")


async def snapshot_build_logs_url(request):
    emu = emu_of(request)
    key = request.match_info["ref"]
    snap = emu.store.snapshot(key)
    if snap is None:
        return api_error(request, 404, "Snapshot %s not found" % key)
    if snap.build_info is None:
        return api_error(request, 400, "Snapshot %s has no build info" % snap.name)
    return json_response({"url": "%s/snapshots/%s/build-logs" % (emu.base_url, snap.id)})


# ---------------------------------------------------------------- sandboxes
def _resource_keys(body):
    return [k for k in ("cpu", "gpu", "memory", "disk", "gpuType") if body.get(k) is not None]


async def _wait_started(emu, sbx):
    """Server-side wait of create/start (PROTOCOL 3.4)."""
    deadline = time.monotonic() + emu.config["start_wait_ms"] / 1000.0
    while time.monotonic() < deadline:
        if sbx.state == "started":
            break
        if sbx.state in ("error", "build_failed"):
            return "Sandbox failed to start: %s" % (sbx.error_reason or sbx.state)
        if sbx.desired != "started":
            break
        await asyncio.sleep(0.01)
    return None


async def sandbox_create(request):
    emu = emu_of(request)
    body = await json_body(request)
    if isinstance(body, web.Response):
        return body
    for k in ("env", "labels"):
        v = body.get(k)
        if v is not None and (not isinstance(v, dict)
                              or not all(isinstance(x, str) for x in v.values())):
            return api_error(request, 400, "%s must be an object of strings" % k)
    name = body.get("name")
    if name is not None and (not isinstance(name, str) or not name):
        return api_error(request, 400, "name must be a non-empty string")
    if emu.config.get("refuse_ttl") and "ttlMinutes" in body:
        # an older server's request validation (PROTOCOL 10.2)
        return api_error(request, 400, ["property ttlMinutes should not exist"])
    build = body.get("buildInfo")
    snap_ref = body.get("snapshot")
    if build is not None and snap_ref:
        return api_error(request, 400, "Cannot specify a snapshot when using a build info entry")
    snap = None
    if build is None:
        if _resource_keys(body):
            return api_error(request, 400, "Cannot specify Sandbox resources when using a snapshot")
        if snap_ref:
            snap = emu.store.snapshot(snap_ref)
            if snap is None:
                return api_error(request, 400, "Snapshot %s not found. Did you add it through "
                                 "the Daytona Dashboard?" % snap_ref)
            if snap.state != "active":
                return api_error(request, 400, "Snapshot %s is %s" % (snap_ref, snap.state))
            target = body.get("target")
            if target and target != snap.region:
                return api_error(request, 400, "Snapshot %s is not available in region %s"
                                 % (snap_ref, target))
    if name and any(s.name == name for s in emu.store.sandboxes.values()):
        return api_error(request, 409, "Sandbox with name %s already exists" % name)
    if snap is not None:
        body = dict(body, cpu=snap.cpu, gpu=snap.gpu, memory=snap.mem, disk=snap.disk)
        snap.last_used_at = now_iso()
    sbx = Sandbox(name, snap.name if snap else (None if build else DEFAULT_SNAPSHOT),
                  body, emu.toolbox_url)
    emu.store.sandboxes[sbx.id] = sbx
    emu.stats["sandboxes_created"] += 1
    emu.sessions.ensure_dirs(sbx)
    if build is not None:
        hashes = list(build.get("contextHashes") or [])
        ts = now_iso()
        sbx.build_info = {"dockerfileContent": build.get("dockerfileContent", ""),
                          "contextHashes": hashes,
                          "snapshotRef": snapshot_ref(build.get("dockerfileContent", ""), hashes),
                          "createdAt": ts, "updatedAt": ts}
        sbx.build_started = time.monotonic()
        emu.store.set_sandbox_state(sbx, "pending_build")
        return json_response(sbx.dto())
    emu.store.set_sandbox_state(sbx, "creating")
    err = await _wait_started(emu, sbx)
    if err is not None:
        return api_error(request, 400, err)
    return json_response(sbx.dto())


def _lookup(request):
    emu = emu_of(request)
    key = request.match_info["ref"]
    sbx = emu.store.sandbox(key)
    if sbx is None:
        return None, api_error(request, 404, "Sandbox with ID or name %s not found" % key)
    return sbx, None


async def sandbox_get(request):
    sbx, err = _lookup(request)
    return err if err is not None else json_response(sbx.dto())


def _encode_cursor(n):
    return base64.urlsafe_b64encode(("o:%d" % n).encode()).decode()


def _decode_cursor(c):
    try:
        s = base64.urlsafe_b64decode(c.encode()).decode()
        if s.startswith("o:"):
            return int(s[2:])
    except (ValueError, UnicodeDecodeError):
        pass
    return None


async def sandbox_list(request):
    emu = emu_of(request)
    q = request.query
    items = list(emu.store.sandboxes.values())
    if "labels" in q:
        try:
            labels = json.loads(q["labels"])
            if not isinstance(labels, dict):
                raise ValueError
        except ValueError:
            return api_error(request, 400, "Invalid labels JSON format")
        items = [s for s in items if all(s.labels.get(k) == v for k, v in labels.items())]
    if q.get("name"):
        items = [s for s in items if s.name.lower().startswith(q["name"].lower())]
    if q.get("id"):
        items = [s for s in items if s.id.lower().startswith(q["id"].lower())]
    states = q.getall("states", [])
    if states:
        items = [s for s in items if s.state in states]
    if not q.get("includeErroredDeleted") == "true":
        items = [s for s in items if s.desired != "destroyed" or s.state not in ("error", "build_failed")]
    try:
        limit = int(q.get("limit", 100))
    except ValueError:
        return api_error(request, 400, "limit must be an integer")
    if not 1 <= limit <= 200:
        return api_error(request, 400, "limit must not be greater than 200, limit must not be less than 1")
    sort = q.get("sort", "createdAt")
    keyf = {"id": lambda s: s.id, "name": lambda s: s.name, "state": lambda s: s.state,
            "snapshot": lambda s: s.snapshot or "", "region": lambda s: s.target,
            "updatedAt": lambda s: s.updated_at, "lastActivityAt": lambda s: s.last_activity,
            "createdAt": lambda s: (s.created_at, s.seq)}.get(sort)
    if keyf is None:
        return api_error(request, 400, "Invalid sort field")
    items.sort(key=keyf, reverse=(q.get("order", "desc") == "desc"))
    offset = 0
    if q.get("cursor"):
        offset = _decode_cursor(q["cursor"])
        if offset is None:
            return api_error(request, 400, "Invalid cursor")
    chunk = items[offset: offset + limit]
    nxt = _encode_cursor(offset + limit) if offset + limit < len(items) else None
    return json_response({"items": [s.dto(listing=True) for s in chunk], "nextCursor": nxt})


async def sandbox_start(request):
    emu = emu_of(request)
    sbx, err = _lookup(request)
    if err is not None:
        return err
    if sbx.state == "started" and sbx.desired == "started":
        return json_response(sbx.dto())
    if sbx.state in ("error", "build_failed"):
        return api_error(request, 400, "Sandbox is in an errored state")
    if sbx.in_flight():
        return api_error(request, 409, "Sandbox state change in progress")
    if sbx.state not in ("stopped", "archived", "archiving", "paused"):
        return api_error(request, 400, "Sandbox is not in valid state")
    sbx.desired = "started"
    sbx.stuck = False
    emu.store.set_sandbox_state(sbx, {"archived": "restoring", "archiving": "restoring",
                                      "paused": "resuming"}.get(sbx.state, "starting"))
    err = await _wait_started(emu, sbx)
    if err is not None:
        return api_error(request, 400, err)
    return json_response(sbx.dto())


async def sandbox_stop(request):
    emu = emu_of(request)
    sbx, err = _lookup(request)
    if err is not None:
        return err
    if sbx.state in ("error", "build_failed"):
        return api_error(request, 400, "Sandbox is not in a stoppable state")
    if sbx.in_flight():
        return api_error(request, 409, "Sandbox state change in progress")
    if sbx.state not in ("started", "paused"):
        return api_error(request, 400, "Sandbox is not in a stoppable state")
    sbx.desired = "stopped"
    sbx.stuck = False
    emu.store.set_sandbox_state(sbx, "stopping")
    return json_response(sbx.dto())


async def sandbox_delete(request):
    emu = emu_of(request)
    sbx, err = _lookup(request)
    if err is not None:
        return err
    if sbx.desired == "destroyed":
        return api_error(request, 409, "Sandbox state change in progress")
    if sbx.in_flight() and sbx.state != "pending_build" and sbx.state not in ("error", "build_failed"):
        return api_error(request, 409, "Sandbox state change in progress")
    sbx.desired = "destroyed"
    sbx.name = "DESTROYED_%s_%d" % (sbx.name, int(time.time() * 1000))
    sbx.updated_at = now_iso()
    dto = sbx.dto()
    state_gen = sbx.gen

    async def later():
        await asyncio.sleep(emu.config["transition_ms"] / 1000.0)
        if sbx.gen == state_gen and not sbx.stuck and emu.store.sandboxes.get(sbx.id) is sbx:
            emu.store.set_sandbox_state(sbx, "destroying")
    asyncio.get_event_loop().create_task(later())
    return json_response(dto)


async def sandbox_recover(request):
    emu = emu_of(request)
    sbx, err = _lookup(request)
    if err is not None:
        return err
    if sbx.state != "error":
        return api_error(request, 400, "Sandbox is not in an error state")
    if not sbx.recoverable:
        return api_error(request, 400, "Sandbox error is not recoverable")
    skip = request.query.get("skipStart") == "true"
    sbx.desired = "stopped" if skip else "started"
    sbx.stuck = False
    sbx.recoverable = False
    emu.store.set_sandbox_state(sbx, "stopping" if skip else "starting")
    if not skip:
        err = await _wait_started(emu, sbx)
        if err is not None:
            return api_error(request, 400, err)
    return json_response(sbx.dto())


async def sandbox_autotimer(request):
    sbx, err = _lookup(request)
    if err is not None:
        return err
    try:
        minutes = int(request.match_info["minutes"])
    except ValueError:
        return api_error(request, 400, "Validation failed (numeric string is expected)")
    attr = {"autostop": "auto_stop", "autoarchive": "auto_archive",
            "autodelete": "auto_delete"}[request.match_info["kind"]]
    setattr(sbx, attr, minutes)
    return web.Response(status=201, body=b"")


async def sandbox_labels(request):
    sbx, err = _lookup(request)
    if err is not None:
        return err
    body = await json_body(request)
    if isinstance(body, web.Response):
        return body
    labels = body.get("labels")
    if not isinstance(labels, dict):
        return api_error(request, 400, "labels must be an object")
    sbx.labels = dict(labels)
    return json_response({"labels": sbx.labels})


async def sandbox_toolbox_url(request):
    sbx, err = _lookup(request)
    return err if err is not None else json_response({"url": emu_of(request).toolbox_url})


async def sandbox_last_activity(request):
    sbx, err = _lookup(request)
    if err is not None:
        return err
    sbx.last_activity = now_iso()
    sbx.activity_mono = time.monotonic()
    return web.Response(status=201, body=b"")


async def sandbox_build_logs_url(request):
    emu = emu_of(request)
    sbx, err = _lookup(request)
    if err is not None:
        return err
    if sbx.build_info is None:
        return api_error(request, 400, "Sandbox %s has no build info" % sbx.name)
    return json_response({"url": "%s/sandboxes/%s/build-logs" % (emu.base_url, sbx.id)})


async def socket_io(request):
    return api_error(request, 404, "Cannot GET %s" % request.path)


def setup(app):
    r = app.router
    r.add_get("/api/socket.io/", socket_io)
    r.add_get("/api/snapshots", snapshot_list)
    r.add_post("/api/snapshots", snapshot_create)
    r.add_get("/api/snapshots/{ref}", snapshot_get)
    r.add_delete("/api/snapshots/{ref}", snapshot_delete)
    r.add_post("/api/snapshots/{ref}/activate", snapshot_activate)
    r.add_get("/api/snapshots/{ref}/build-logs-url", snapshot_build_logs_url)
    r.add_get("/api/sandbox", sandbox_list)
    r.add_post("/api/sandbox", sandbox_create)
    r.add_get("/api/sandbox/{ref}", sandbox_get)
    r.add_delete("/api/sandbox/{ref}", sandbox_delete)
    r.add_post("/api/sandbox/{ref}/start", sandbox_start)
    r.add_post("/api/sandbox/{ref}/stop", sandbox_stop)
    r.add_post("/api/sandbox/{ref}/recover", sandbox_recover)
    r.add_post(r"/api/sandbox/{ref}/{kind:autostop|autoarchive|autodelete}/{minutes}",
               sandbox_autotimer)
    r.add_put("/api/sandbox/{ref}/labels", sandbox_labels)
    r.add_get("/api/sandbox/{ref}/toolbox-proxy-url", sandbox_toolbox_url)
    r.add_post("/api/sandbox/{ref}/last-activity", sandbox_last_activity)
    r.add_get("/api/sandbox/{ref}/build-logs-url", sandbox_build_logs_url)
