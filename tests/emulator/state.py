"""In-memory snapshots and sandboxes with their state machines (PROTOCOL 2.3, 3.4).

Every entity carries `state`, `stuck` and a `gen` counter.  Setting a state
(re)arms one asyncio task that walks the transitional chain one step per
`transition_ms` (snapshot builds take `snapshot_build_ms`) until a stable state;
`stuck` freezes it.  Changing the state again bumps `gen`, which retires the
old walker."""
import asyncio
import hashlib
import time

from util import new_id, now_iso

ORG_ID = "00000000-0000-4000-8000-00000000e0e0"
RUNNER_ID = "emu-runner-1"
DEFAULT_SNAPSHOT = "daytonaio/sandbox:0.4.3"

DEFAULT_CONFIG = {
    "transition_ms": 50,
    "api_key": None,
    "snapshot_build_ms": 200,
    "start_wait_ms": 30000,
    "ws_mode": "normal",
    "ws_frame_max": 1024,
    "auto_stop_ms": 0,
    "refuse_ttl": False,
}

# Transitional sandbox state -> next state ("gone" = destroyed and removed).
SANDBOX_NEXT = {
    "creating": "started", "starting": "started", "restoring": "started",
    "resuming": "started", "pending_build": "building_snapshot",
    "building_snapshot": "starting", "pulling_snapshot": "starting",
    "stopping": "stopped", "archiving": "archived", "pausing": "paused",
    "destroying": "gone", "resizing": "started", "snapshotting": "started",
    "forking": "started", "unknown": "started",
}
# State -> the desiredState it implies when forced through the control API.
DESIRED_FOR = {
    "started": "started", "creating": "started", "starting": "started",
    "restoring": "started", "resuming": "started", "pending_build": "started",
    "building_snapshot": "started", "pulling_snapshot": "started",
    "stopped": "stopped", "stopping": "stopped", "archived": "archived",
    "archiving": "archived", "paused": "paused", "pausing": "paused",
    "destroying": "destroyed", "destroyed": "destroyed",
}
SNAPSHOT_NEXT = {"pending": None, "building": "active", "pulling": "active",
                 "removing": "gone"}


class Snapshot:
    def __init__(self, name, image_name=None, build_info=None, entrypoint=None,
                 cpu=1, gpu=0, mem=1, disk=3, region=None, general=False):
        self.id = new_id()
        self.name = name
        self.image_name = image_name or ""
        self.build_info = build_info
        self.entrypoint = entrypoint
        self.cpu, self.gpu, self.mem, self.disk = cpu, gpu, mem, disk
        self.region = region or "us"
        self.general = general
        self.state = "pending"
        self.error_reason = None
        self.stuck = False
        self.gen = 0
        self.fail_next = None      # reason when the running build must fail
        self.created_at = self.updated_at = now_iso()
        self.last_used_at = None
        self.size = None
        self.build_started = None  # monotonic time the build step began
        self.build_end = None      # monotonic time the build ended (any result)
        self.activating = False    # activate: pending -> active without a build

    def dto(self):
        d = {"id": self.id, "organizationId": ORG_ID, "general": self.general,
             "name": self.name, "imageName": self.image_name, "state": self.state,
             "size": self.size, "entrypoint": self.entrypoint, "cpu": self.cpu,
             "gpu": self.gpu, "mem": self.mem, "disk": self.disk,
             "errorReason": self.error_reason, "createdAt": self.created_at,
             "updatedAt": self.updated_at, "lastUsedAt": self.last_used_at,
             "regionIds": [self.region], "initialRunnerId": RUNNER_ID}
        if self.build_info is not None:
            d["buildInfo"] = self.build_info
            d["ref"] = self.build_info["snapshotRef"]
        else:
            d["ref"] = self.image_name
        return d


def snapshot_ref(dockerfile, context_hashes):
    h = hashlib.sha256((dockerfile + "".join(sorted(context_hashes))).encode()).hexdigest()
    return "daytona-%s:daytona" % h


class Sandbox:
    seq_counter = 0

    def __init__(self, name, snapshot, body, proxy_url):
        self.id = new_id()
        self.name = name or self.id
        self.snapshot = snapshot
        self.user = body.get("user") or "daytona"
        self.env = dict(body.get("env") or {})
        self.labels = dict(body.get("labels") or {})
        self.public = bool(body.get("public", False))
        self.target = body.get("target") or "us"
        self.cpu = body.get("cpu", 1)
        self.gpu = body.get("gpu", 0)
        self.memory = body.get("memory", 1)
        self.disk = body.get("disk", 3)
        self.auto_stop = body.get("autoStopInterval", 15)
        self.auto_archive = body.get("autoArchiveInterval", 10080)
        self.auto_delete = body.get("autoDeleteInterval", -1)
        self.network_block_all = bool(body.get("networkBlockAll", False))
        self.network_allow_list = body.get("networkAllowList")
        self.domain_allow_list = body.get("domainAllowList")
        self.volumes = body.get("volumes") or []
        self.build_info = None
        self.proxy_url = proxy_url
        self.state = "creating"
        self.desired = "started"
        self.error_reason = None
        self.recoverable = False
        self.stuck = False
        self.gen = 0
        # auto_stop_ms mode: monotonic time of the last activity, open log WebSockets
        self.activity_mono = time.monotonic()
        self.open_ws = 0
        self.created_at = self.updated_at = self.last_activity = now_iso()
        self.build_started = None
        self.build_end = None
        Sandbox.seq_counter += 1
        self.seq = Sandbox.seq_counter

    def dto(self, listing=False):
        d = {"id": self.id, "organizationId": ORG_ID, "name": self.name,
             "snapshot": self.snapshot, "user": self.user, "labels": self.labels,
             "public": self.public, "networkBlockAll": self.network_block_all,
             "target": self.target, "cpu": self.cpu, "gpu": self.gpu,
             "memory": self.memory, "disk": self.disk, "state": self.state,
             "desiredState": self.desired, "backupState": "None",
             "autoStopInterval": self.auto_stop, "autoArchiveInterval": self.auto_archive,
             "autoDeleteInterval": self.auto_delete, "volumes": self.volumes,
             "createdAt": self.created_at, "updatedAt": self.updated_at,
             "lastActivityAt": self.last_activity, "runnerId": RUNNER_ID,
             "daemonVersion": "v0.190.0", "toolboxProxyUrl": self.proxy_url,
             "class": "small", "sandboxClass": "container"}
        if not listing:
            d["env"] = self.env
        if self.error_reason is not None:
            d["errorReason"] = self.error_reason
        if self.state in ("error", "build_failed"):
            d["recoverable"] = self.recoverable
        if self.build_info is not None:
            d["buildInfo"] = self.build_info
        if self.network_allow_list is not None:
            d["networkAllowList"] = self.network_allow_list
        if self.domain_allow_list is not None:
            d["domainAllowList"] = self.domain_allow_list
        return d

    def in_flight(self):
        """A state change is pending (PROTOCOL 3.4 start/stop/delete rules)."""
        if self.state == self.desired:
            return False
        if self.desired == "archived" and self.state in ("stopped", "archiving"):
            return False
        return True


class Store:
    def __init__(self, emu):
        self.emu = emu
        self.snapshots = {}   # id -> Snapshot
        self.sandboxes = {}   # id -> Sandbox
        self.fail_builds = {}  # snapshot name -> [count, reason]
        self.created_seq = 0

    # ---- lookups -------------------------------------------------------
    def snapshot(self, id_or_name):
        s = self.snapshots.get(id_or_name)
        if s:
            return s
        for s in self.snapshots.values():
            if s.name == id_or_name:
                return s
        return None

    def sandbox(self, id_or_name):
        s = self.sandboxes.get(id_or_name)
        if s:
            return s
        for s in self.sandboxes.values():
            if s.name == id_or_name:
                return s
        return None

    # ---- state machine -------------------------------------------------
    def cfg(self, key):
        return self.emu.config[key]

    def set_sandbox_state(self, sbx, state, reason=None):
        sbx.gen += 1
        sbx.state = state
        sbx.updated_at = now_iso()
        if state not in ("error", "build_failed"):
            sbx.error_reason = None if reason is None else reason
        else:
            sbx.error_reason = reason
        if state in ("started",) and sbx.desired == "started":
            self.emu.on_sandbox_started(sbx)
        if state in ("stopped", "archived", "error", "build_failed", "gone", "destroying"):
            self.emu.on_sandbox_down(sbx)
        if state == "gone":
            self.sandboxes.pop(sbx.id, None)
            self.emu.on_sandbox_gone(sbx)
            return
        if state == "stopped" and sbx.auto_delete == 0 and sbx.desired == "stopped":
            # ephemeral: deleted as soon as it stops
            sbx.desired = "destroyed"
            sbx.name = "DESTROYED_%s_%d" % (sbx.name, int(time.time() * 1000))
            self.set_sandbox_state(sbx, "destroying")
            return
        if state in SANDBOX_NEXT and not sbx.stuck:
            self._arm(sbx, self._walk_sandbox)

    def set_snapshot_state(self, snap, state, reason=None):
        snap.gen += 1
        snap.state = state
        snap.updated_at = now_iso()
        snap.error_reason = reason
        if state in ("building", "pulling"):
            snap.build_started = time.monotonic()
            snap.build_end = None
        if state in ("active", "build_failed", "error"):
            if snap.build_started is not None and snap.build_end is None:
                snap.build_end = time.monotonic()
        if state == "gone":
            self.snapshots.pop(snap.id, None)
            return
        if state in ("pending", "building", "pulling", "removing") and not snap.stuck:
            self._arm(snap, self._walk_snapshot)

    def _arm(self, ent, walker):
        gen = ent.gen
        asyncio.get_event_loop().create_task(walker(ent, gen))

    async def _walk_sandbox(self, sbx, gen):
        await asyncio.sleep(self.cfg("transition_ms") / 1000.0)
        if sbx.gen != gen or sbx.stuck or self.sandboxes.get(sbx.id) is not sbx:
            return
        nxt = SANDBOX_NEXT.get(sbx.state)
        if nxt == "started" and sbx.desired != "started":
            nxt = {"stopped": "stopped", "archived": "archived",
                   "paused": "paused", "destroyed": "destroying"}.get(sbx.desired, nxt)
        if nxt:
            self.set_sandbox_state(sbx, nxt)

    async def _walk_snapshot(self, snap, gen):
        if snap.state in ("building", "pulling"):
            delay = self.cfg("snapshot_build_ms")
        else:
            delay = self.cfg("transition_ms")
        await asyncio.sleep(delay / 1000.0)
        if snap.gen != gen or snap.stuck or self.snapshots.get(snap.id) is not snap:
            return
        if snap.state == "pending" and not snap.activating:
            self.set_snapshot_state(snap, "building" if snap.build_info else "pulling")
        elif snap.state in ("building", "pulling", "pending"):
            snap.activating = False
            if snap.fail_next is not None:
                reason, snap.fail_next = snap.fail_next, None
                self.set_snapshot_state(snap, "build_failed", reason)
            else:
                snap.size = 0.5
                self.set_snapshot_state(snap, "active")
        elif snap.state == "removing":
            self.set_snapshot_state(snap, "gone")

    def take_build_failure(self, name):
        """Consume one `fail_builds` credit for `name`; returns the reason or None."""
        entry = self.fail_builds.get(name)
        if not entry or entry[0] <= 0:
            return None
        entry[0] -= 1
        return entry[1]
