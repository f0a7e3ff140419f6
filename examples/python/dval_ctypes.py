"""libdaytona-validate for Python through ctypes (standard library only).

    with Client(executor="local", state_dir="/tmp/st") as c:
        with c.snapshot_ensure("snap", image="debian:12-slim") as snap, \\
             c.sandbox_acquire("box", snapshot="snap") as sb, \\
             sb.open_session() as s:
            code = s.exec("echo hi", on_output=lambda st, ch, data: print(data))

Errors raise a DvalError subclass (dval_errors.py). An exception raised in a
callback makes the callback return non-zero, which stops the C call; the
original exception is re-raised when the call returns. The library is found
through $DVAL_LIB, else the repository's build directory ($B or build), else
the system's libdaytona-validate.so.0.
"""
import ctypes as C
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dval_errors import DvalError, error_for  # noqa: E402,F401
import dval_errors  # noqa: E402

# re-export the exception classes
for _n in dval_errors.__all__:
    globals()[_n] = getattr(dval_errors, _n)

STDOUT, STDERR = 1, 2
RELEASE_KEEP, RELEASE_STOP, RELEASE_DELETE = 0, 1, 2
NETWORK_DEFAULT, NETWORK_BLOCK, NETWORK_ALLOW = 0, 1, 2


def find_library():
    p = os.environ.get("DVAL_LIB")
    if p:
        return p
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    b = os.environ.get("B", "build")
    cand = os.path.join(b if os.path.isabs(b) else os.path.join(root, b), "lib", "libdaytona-validate.so.0")
    return cand if os.path.exists(cand) else "libdaytona-validate.so.0"


_lib = C.CDLL(find_library())

LOG_FN = C.CFUNCTYPE(None, C.c_int, C.c_char_p, C.c_void_p)
OUTPUT_FN = C.CFUNCTYPE(C.c_int, C.c_int, C.c_char_p, C.c_void_p, C.c_size_t, C.c_void_p)
DATA_FN = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_size_t, C.c_void_p)
STATE_FN = C.CFUNCTYPE(None, C.c_char_p, C.c_int, C.c_void_p)
LIST_FN = C.CFUNCTYPE(C.c_int, C.c_char_p, C.c_char_p, C.c_int, C.c_void_p)


class ClientOptions(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("api_url", C.c_char_p),
                ("api_key", C.c_char_p), ("jwt_token", C.c_char_p),
                ("organization_id", C.c_char_p), ("target", C.c_char_p),
                ("executor", C.c_char_p), ("custom_executor", C.c_void_p),
                ("log_fn", LOG_FN), ("log_userdata", C.c_void_p),
                ("log_level", C.c_int32), ("retry_attempts", C.c_int32),
                ("retry_base_ms", C.c_int64), ("retry_factor", C.c_int32),
                ("retry_cap_ms", C.c_int64), ("retry_jitter", C.c_int32),
                ("connect_timeout_ms", C.c_int64), ("request_timeout_ms", C.c_int64),
                ("ca_bundle", C.c_char_p), ("insecure_skip_tls_verify", C.c_int32),
                ("state_dir", C.c_char_p), ("allow_unisolated", C.c_int32),
                ("max_download_bytes", C.c_int64),
                # 0.1.1: dval_daytona_options / dval_local_options pointers
                ("daytona", C.c_void_p), ("local", C.c_void_p)]


class SnapshotSpec(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("name", C.c_char_p), ("image", C.c_char_p),
                ("build_commands", C.POINTER(C.c_char_p)), ("dockerfile", C.c_char_p),
                ("cpu", C.c_int32), ("memory_gib", C.c_int32), ("disk_gib", C.c_int32),
                ("target", C.c_char_p), ("rebuild_failed", C.c_int32),
                ("build_timeout_ms", C.c_int64)]


class SandboxOptions(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("name", C.c_char_p), ("snapshot", C.c_char_p),
                ("image", C.c_char_p), ("labels", C.POINTER(C.c_char_p)),
                ("env", C.POINTER(C.c_char_p)), ("cpu", C.c_int32),
                ("memory_gib", C.c_int32), ("disk_gib", C.c_int32),
                ("auto_stop_minutes", C.c_int32), ("auto_archive_minutes", C.c_int32),
                ("auto_delete_minutes", C.c_int32), ("network", C.c_int32),
                ("target", C.c_char_p), ("release", C.c_int32),
                ("create_timeout_ms", C.c_int64), ("start_timeout_ms", C.c_int64),
                ("zombie_pause_ms", C.c_int64), ("no_recover", C.c_int32),
                ("on_state", STATE_FN), ("state_userdata", C.c_void_p),
                ("max_pids", C.c_int32), ("max_memory_bytes", C.c_int64),
                ("max_cpu_ms", C.c_int64)]


class ExecOptions(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("channel_prefix", C.c_char_p),
                ("cwd", C.c_char_p), ("timeout_ms", C.c_int64)]


def _proto(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


V, I, P, S = C.c_void_p, C.c_int, C.POINTER(C.c_void_p), C.c_char_p
_proto("dval_strerror", S, I)
_proto("dval_status_name", S, I)
_proto("dval_version", S)
_proto("dval_version_num", C.c_uint32)
_proto("dval_free", None, V)
_proto("dval_sandbox_state_name", S, I)
_proto("dval_snapshot_state_name", S, I)
_proto("dval_client_options_init", I, C.POINTER(ClientOptions), C.c_size_t)
_proto("dval_client_new", I, P, C.POINTER(ClientOptions))
_proto("dval_client_free", None, V)
_proto("dval_client_errmsg", S, V)
_proto("dval_client_executor_name", S, V)
_proto("dval_snapshot_spec_init", I, C.POINTER(SnapshotSpec), C.c_size_t)
_proto("dval_snapshot_ensure", I, P, V, C.POINTER(SnapshotSpec), DATA_FN, V)
_proto("dval_snapshot_name", S, V)
_proto("dval_snapshot_id", S, V)
_proto("dval_snapshot_state", I, V)
_proto("dval_snapshot_delete", I, V)
_proto("dval_snapshot_free", None, V)
_proto("dval_sandbox_options_init", I, C.POINTER(SandboxOptions), C.c_size_t)
_proto("dval_sandbox_acquire", I, P, V, C.POINTER(SandboxOptions))
for _n in ("refresh", "start", "stop", "delete", "release"):
    _proto("dval_sandbox_" + _n, I, V)
_proto("dval_sandbox_state", I, V)
for _n in ("id", "name", "errmsg"):
    _proto("dval_sandbox_" + _n, S, V)
_proto("dval_sandbox_free", None, V)
_proto("dval_sandbox_upload", I, V, S, V, C.c_size_t)
_proto("dval_sandbox_upload_file", I, V, S, S)
_proto("dval_sandbox_download", I, V, S, P, C.POINTER(C.c_size_t))
_proto("dval_sandbox_download_to", I, V, S, DATA_FN, V)
_proto("dval_sandbox_download_file", I, V, S, S)
_proto("dval_sandbox_download_json", I, V, S, P)
_proto("dval_sandbox_mkdir", I, V, S)
_proto("dval_sandbox_list", I, V, C.POINTER(C.c_char_p), LIST_FN, V)
_proto("dval_session_open", I, P, V)
_proto("dval_session_id", S, V)
_proto("dval_session_errmsg", S, V)
_proto("dval_exec_options_init", I, C.POINTER(ExecOptions), C.c_size_t)
_proto("dval_session_exec", I, V, S, C.POINTER(ExecOptions), OUTPUT_FN, V, C.POINTER(C.c_int))
_proto("dval_session_cancel", I, V)
_proto("dval_session_close", I, V)
_proto("dval_session_free", None, V)


def version():
    return _lib.dval_version().decode()


def strerror(status):
    return _lib.dval_strerror(status).decode()


def _b(s):
    return None if s is None else (s if isinstance(s, bytes) else str(s).encode())


def _strarray(items):
    """NULL-terminated char *[] (kept alive by the caller via the return)."""
    if not items:
        return None
    arr = (C.c_char_p * (len(items) + 1))(*[_b(x) for x in items], None)
    return arr


def _check(rc, errmsg_fn=None, handle=None):
    if rc >= 0:
        return rc
    msg = ""
    if errmsg_fn is not None and handle:
        m = errmsg_fn(handle)
        msg = m.decode("utf-8", "replace") if m else ""
    if not msg:
        msg = strerror(rc)
    raise error_for(rc, msg, _lib.dval_status_name(rc).decode())


class _Callbacks:
    """Runs C calls that take Python callbacks: a Python exception inside a
    callback returns 1 to C (stop) and is re-raised after the call."""

    def __init__(self):
        self.pending = None

    def guard(self, fn, stop_value=1):
        def wrapper(*a):
            if self.pending is not None:
                return stop_value
            try:
                r = fn(*a)
                return 0 if r is None else int(bool(r))
            except BaseException as e:  # noqa: B902 - re-raised later
                self.pending = e
                return stop_value
        return wrapper

    def reraise(self):
        e, self.pending = self.pending, None
        if e is not None:
            raise e


class _Handle:
    _free = None

    def __init__(self, ptr, parent=None):
        self._h = ptr
        self._parent = parent  # keeps the library and parent objects alive

    def close(self):
        """Frees the handle (no I/O). Idempotent."""
        h, self._h = self._h, None
        if h:
            type(self)._free(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    @property
    def handle(self):
        if not self._h:
            raise ValueError("%s is closed" % type(self).__name__)
        return self._h


class Client(_Handle):
    _free = staticmethod(_lib.dval_client_free)

    def __init__(self, executor=None, api_url=None, api_key=None, jwt_token=None,
                 organization_id=None, target=None, state_dir=None,
                 allow_unisolated=False, log=None, log_level=0, **numbers):
        o = ClientOptions()
        _check(_lib.dval_client_options_init(C.byref(o), C.sizeof(o)))
        self._keep = []
        for k, v in (("executor", executor), ("api_url", api_url), ("api_key", api_key),
                     ("jwt_token", jwt_token), ("organization_id", organization_id),
                     ("target", target), ("state_dir", state_dir)):
            if v is not None:
                setattr(o, k, _b(v))
        o.allow_unisolated = 1 if allow_unisolated else 0
        o.log_level = log_level
        for k, v in numbers.items():  # retry_attempts, request_timeout_ms, ...
            setattr(o, k, v)
        if log is not None:
            def _log(level, msg, _ud):
                try:
                    log(level, msg.decode("utf-8", "replace"))
                except Exception:
                    pass  # a log callback cannot stop the call
            self._log_cb = LOG_FN(_log)  # lives as long as the client
            o.log_fn = self._log_cb
        h = C.c_void_p()
        _check(_lib.dval_client_new(C.byref(h), C.byref(o)))
        super().__init__(h.value)

    @property
    def errmsg(self):
        return _lib.dval_client_errmsg(self.handle).decode("utf-8", "replace")

    @property
    def executor_name(self):
        return _lib.dval_client_executor_name(self.handle).decode()

    def snapshot_ensure(self, name, image=None, build_commands=None, dockerfile=None,
                        on_build_log=None, rebuild_failed=False, build_timeout_ms=0):
        spec = SnapshotSpec()
        _check(_lib.dval_snapshot_spec_init(C.byref(spec), C.sizeof(spec)))
        spec.name, spec.image, spec.dockerfile = _b(name), _b(image), _b(dockerfile)
        cmds = _strarray(build_commands)
        spec.build_commands = cmds
        spec.rebuild_failed = 1 if rebuild_failed else 0
        spec.build_timeout_ms = build_timeout_ms
        cbs = _Callbacks()
        fn = DATA_FN(cbs.guard(lambda d, n, _u: on_build_log(C.string_at(d, n)))) \
            if on_build_log else DATA_FN()
        h = C.c_void_p()
        rc = _lib.dval_snapshot_ensure(C.byref(h), self.handle, C.byref(spec), fn, None)
        cbs.reraise()
        _check(rc, _lib.dval_client_errmsg, self.handle)
        return Snapshot(h.value, self)

    def sandbox_acquire(self, name, snapshot=None, image=None, labels=None, env=None,
                        release=RELEASE_KEEP, network=NETWORK_DEFAULT, on_state=None,
                        **numbers):
        o = SandboxOptions()
        _check(_lib.dval_sandbox_options_init(C.byref(o), C.sizeof(o)))
        o.name, o.snapshot, o.image = _b(name), _b(snapshot), _b(image)
        keep = [_strarray(labels), _strarray(env)]
        o.labels, o.env = keep
        o.release, o.network = release, network
        for k, v in numbers.items():
            setattr(o, k, v)
        cbs = _Callbacks()
        fn = None
        if on_state:
            def _st(name_, state, _ud):
                try:
                    on_state(name_.decode() if name_ else "", state)
                except BaseException as e:
                    cbs.pending = cbs.pending or e
            fn = STATE_FN(_st)
            o.on_state = fn
        h = C.c_void_p()
        rc = _lib.dval_sandbox_acquire(C.byref(h), self.handle, C.byref(o))
        cbs.reraise()
        _check(rc, _lib.dval_client_errmsg, self.handle)
        sb = Sandbox(h.value, self)
        sb._state_cb = (fn, cbs)  # on_state may fire again in start/stop
        return sb

    def list_sandboxes(self, labels=None):
        out = []
        cbs = _Callbacks()
        fn = LIST_FN(cbs.guard(lambda i, n, st, _u: out.append(
            (i.decode(), n.decode(), st))))
        rc = _lib.dval_sandbox_list(self.handle, _strarray(labels), fn, None)
        cbs.reraise()
        _check(rc, _lib.dval_client_errmsg, self.handle)
        return out


class Snapshot(_Handle):
    _free = staticmethod(_lib.dval_snapshot_free)

    name = property(lambda self: _lib.dval_snapshot_name(self.handle).decode())
    id = property(lambda self: (_lib.dval_snapshot_id(self.handle) or b"").decode())
    state = property(lambda self: _lib.dval_snapshot_state(self.handle))

    def delete(self):
        _check(_lib.dval_snapshot_delete(self.handle), _lib.dval_client_errmsg, self._parent.handle)


class Sandbox(_Handle):
    _free = staticmethod(_lib.dval_sandbox_free)

    id = property(lambda self: _lib.dval_sandbox_id(self.handle).decode())
    name = property(lambda self: _lib.dval_sandbox_name(self.handle).decode())
    state = property(lambda self: _lib.dval_sandbox_state(self.handle))
    errmsg = property(lambda self: _lib.dval_sandbox_errmsg(self.handle).decode("utf-8", "replace"))

    def _call(self, fn, *args):
        rc = fn(self.handle, *args)
        cbs = getattr(self, "_state_cb", (None, None))[1]
        if cbs:
            cbs.reraise()
        return _check(rc, _lib.dval_sandbox_errmsg, self.handle)

    def refresh(self):
        self._call(_lib.dval_sandbox_refresh)
        return self.state

    def start(self):
        self._call(_lib.dval_sandbox_start)

    def stop(self):
        self._call(_lib.dval_sandbox_stop)

    def delete(self):
        self._call(_lib.dval_sandbox_delete)

    def release(self):
        self._call(_lib.dval_sandbox_release)

    def mkdir(self, path):
        self._call(_lib.dval_sandbox_mkdir, _b(path))

    def upload(self, path, data):
        if isinstance(data, str):
            data = data.encode()
        buf = C.create_string_buffer(data, len(data))
        self._call(_lib.dval_sandbox_upload, _b(path), C.cast(buf, C.c_void_p), len(data))

    def upload_json(self, path, obj):
        self.upload(path, json.dumps(obj).encode())

    def upload_file(self, path, local_path):
        self._call(_lib.dval_sandbox_upload_file, _b(path), _b(local_path))

    def download(self, path):
        p, n = C.c_void_p(), C.c_size_t()
        self._call(_lib.dval_sandbox_download, _b(path), C.byref(p), C.byref(n))
        try:
            return C.string_at(p.value, n.value) if n.value else b""
        finally:
            _lib.dval_free(p)

    def download_to(self, path, sink):
        cbs = _Callbacks()
        fn = DATA_FN(cbs.guard(lambda d, n, _u: sink(C.string_at(d, n))))
        rc = _lib.dval_sandbox_download_to(self.handle, _b(path), fn, None)
        cbs.reraise()
        _check(rc, _lib.dval_sandbox_errmsg, self.handle)

    def download_file(self, path, local_path):
        self._call(_lib.dval_sandbox_download_file, _b(path), _b(local_path))

    def download_json(self, path):
        p = C.c_void_p()
        self._call(_lib.dval_sandbox_download_json, _b(path), C.byref(p))
        try:
            return json.loads(C.string_at(p.value).decode("utf-8"))
        finally:
            _lib.dval_free(p)

    def open_session(self):
        h = C.c_void_p()
        _check(_lib.dval_session_open(C.byref(h), self.handle), _lib.dval_sandbox_errmsg, self.handle)
        return Session(h.value, self)


class Session(_Handle):
    _free = staticmethod(_lib.dval_session_free)

    id = property(lambda self: _lib.dval_session_id(self.handle).decode())
    errmsg = property(lambda self: _lib.dval_session_errmsg(self.handle).decode("utf-8", "replace"))

    def exec(self, command, on_output=None, cwd=None, timeout_ms=0, channel_prefix=None):
        """Runs command; on_output(stream, channel, data: bytes) gets live
        output. Returns the exit code."""
        o = ExecOptions()
        _check(_lib.dval_exec_options_init(C.byref(o), C.sizeof(o)))
        o.cwd, o.channel_prefix, o.timeout_ms = _b(cwd), _b(channel_prefix), timeout_ms
        cbs = _Callbacks()
        fn = OUTPUT_FN(cbs.guard(lambda st, ch, d, n, _u: on_output(
            st, ch.decode() if ch else "", C.string_at(d, n) if n else b""))) \
            if on_output else OUTPUT_FN()
        code = C.c_int(-1)
        rc = _lib.dval_session_exec(self.handle, _b(command), C.byref(o), fn, None, C.byref(code))
        cbs.reraise()
        _check(rc, _lib.dval_session_errmsg, self.handle)
        return code.value

    def cancel(self):
        """Any thread: the running exec raises DvalCanceled."""
        _check(_lib.dval_session_cancel(self.handle))

    def close_remote(self):
        _check(_lib.dval_session_close(self.handle), _lib.dval_session_errmsg, self.handle)

    def __exit__(self, exc_type, *exc):
        try:
            if self._h:
                try:
                    self.close_remote()
                except DvalError:
                    if exc_type is None:
                        raise
        finally:
            self.close()
