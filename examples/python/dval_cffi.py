"""libdaytona-validate for Python through cffi in ABI mode (ffi.dlopen; no
compiler needed at run time). Same API as dval_ctypes.py:

    with Client(executor="local", state_dir="/tmp/st") as c:
        with c.sandbox_acquire("box", image="debian:12-slim") as sb, \\
             sb.open_session() as s:
            s.exec("echo hi", on_output=lambda st, ch, data: print(data))

Callbacks get their Python state through ffi.new_handle() userdata; an
exception in a callback returns 1 to C (stop) and is re-raised after the
call. The library is found through $DVAL_LIB, else the build directory.
"""
import json
import os
import sys

from cffi import FFI

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dval_errors  # noqa: E402
from dval_errors import DvalError, error_for  # noqa: E402,F401

for _n in dval_errors.__all__:
    globals()[_n] = getattr(dval_errors, _n)

STDOUT, STDERR = 1, 2
RELEASE_KEEP, RELEASE_STOP, RELEASE_DELETE = 0, 1, 2
NETWORK_DEFAULT, NETWORK_BLOCK, NETWORK_ALLOW = 0, 1, 2

ffi = FFI()
ffi.cdef("""
typedef struct dval_client dval_client;
typedef struct dval_snapshot dval_snapshot;
typedef struct dval_sandbox dval_sandbox;
typedef struct dval_session dval_session;
typedef void (*dval_log_fn)(int level, const char *msg, void *userdata);
typedef int (*dval_output_fn)(int stream, const char *channel, const char *data, size_t len, void *userdata);
typedef int (*dval_data_fn)(const char *data, size_t len, void *userdata);
typedef void (*dval_state_fn)(const char *sandbox_name, int state, void *userdata);
typedef int (*dval_sandbox_list_fn)(const char *id, const char *name, int state, void *userdata);

typedef struct dval_client_options {
    size_t struct_size;
    const char *api_url; const char *api_key; const char *jwt_token;
    const char *organization_id; const char *target; const char *executor;
    const void *custom_executor;
    dval_log_fn log_fn; void *log_userdata; int32_t log_level;
    int32_t retry_attempts; int64_t retry_base_ms; int32_t retry_factor;
    int64_t retry_cap_ms; int32_t retry_jitter;
    int64_t connect_timeout_ms; int64_t request_timeout_ms;
    const char *ca_bundle; int32_t insecure_skip_tls_verify;
    const char *state_dir; int32_t allow_unisolated;
    int64_t max_download_bytes;
    const void *daytona; const void *local;  /* 0.1.1: executor options */
} dval_client_options;

typedef struct dval_snapshot_spec {
    size_t struct_size;
    const char *name; const char *image;
    const char *const *build_commands; const char *dockerfile;
    int32_t cpu; int32_t memory_gib; int32_t disk_gib;
    const char *target; int32_t rebuild_failed; int64_t build_timeout_ms;
} dval_snapshot_spec;

typedef struct dval_sandbox_options {
    size_t struct_size;
    const char *name; const char *snapshot; const char *image;
    const char *const *labels; const char *const *env;
    int32_t cpu; int32_t memory_gib; int32_t disk_gib;
    int32_t auto_stop_minutes; int32_t auto_archive_minutes; int32_t auto_delete_minutes;
    int32_t network; const char *target; int32_t release;
    int64_t create_timeout_ms; int64_t start_timeout_ms; int64_t zombie_pause_ms;
    int32_t no_recover; dval_state_fn on_state; void *state_userdata;
    int32_t max_pids; int64_t max_memory_bytes; int64_t max_cpu_ms;
} dval_sandbox_options;

typedef struct dval_exec_options {
    size_t struct_size; const char *channel_prefix; const char *cwd; int64_t timeout_ms;
} dval_exec_options;

const char *dval_strerror(int status);
const char *dval_status_name(int status);
const char *dval_version(void);
uint32_t dval_version_num(void);
void dval_free(void *ptr);
int dval_client_options_init(dval_client_options *opts, size_t size);
int dval_client_new(dval_client **out, const dval_client_options *opts);
void dval_client_free(dval_client *client);
const char *dval_client_errmsg(const dval_client *client);
const char *dval_client_executor_name(const dval_client *client);
int dval_snapshot_spec_init(dval_snapshot_spec *spec, size_t size);
int dval_snapshot_ensure(dval_snapshot **out, dval_client *client, const dval_snapshot_spec *spec, dval_data_fn on_build_log, void *userdata);
const char *dval_snapshot_name(const dval_snapshot *snap);
const char *dval_snapshot_id(const dval_snapshot *snap);
int dval_snapshot_state(const dval_snapshot *snap);
int dval_snapshot_delete(dval_snapshot *snap);
void dval_snapshot_free(dval_snapshot *snap);
int dval_sandbox_options_init(dval_sandbox_options *opts, size_t size);
int dval_sandbox_acquire(dval_sandbox **out, dval_client *client, const dval_sandbox_options *opts);
int dval_sandbox_refresh(dval_sandbox *sb);
int dval_sandbox_state(const dval_sandbox *sb);
const char *dval_sandbox_id(const dval_sandbox *sb);
const char *dval_sandbox_name(const dval_sandbox *sb);
const char *dval_sandbox_errmsg(const dval_sandbox *sb);
int dval_sandbox_start(dval_sandbox *sb);
int dval_sandbox_stop(dval_sandbox *sb);
int dval_sandbox_delete(dval_sandbox *sb);
int dval_sandbox_release(dval_sandbox *sb);
void dval_sandbox_free(dval_sandbox *sb);
int dval_sandbox_upload(dval_sandbox *sb, const char *remote_path, const void *data, size_t len);
int dval_sandbox_upload_file(dval_sandbox *sb, const char *remote_path, const char *local_path);
int dval_sandbox_download(dval_sandbox *sb, const char *remote_path, char **data, size_t *len);
int dval_sandbox_download_to(dval_sandbox *sb, const char *remote_path, dval_data_fn sink, void *userdata);
int dval_sandbox_download_file(dval_sandbox *sb, const char *remote_path, const char *local_path);
int dval_sandbox_download_json(dval_sandbox *sb, const char *remote_path, char **json);
int dval_sandbox_mkdir(dval_sandbox *sb, const char *remote_path);
int dval_sandbox_list(dval_client *client, const char *const *labels, dval_sandbox_list_fn each, void *userdata);
int dval_session_open(dval_session **out, dval_sandbox *sb);
const char *dval_session_id(const dval_session *s);
const char *dval_session_errmsg(const dval_session *s);
int dval_exec_options_init(dval_exec_options *opts, size_t size);
int dval_session_exec(dval_session *s, const char *command, const dval_exec_options *opts, dval_output_fn on_output, void *userdata, int *exit_code);
int dval_session_cancel(dval_session *s);
int dval_session_close(dval_session *s);
void dval_session_free(dval_session *s);
""")


def find_library():
    p = os.environ.get("DVAL_LIB")
    if p:
        return p
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    b = os.environ.get("B", "build")
    cand = os.path.join(b if os.path.isabs(b) else os.path.join(root, b), "lib", "libdaytona-validate.so.0")
    return cand if os.path.exists(cand) else "libdaytona-validate.so.0"


lib = ffi.dlopen(find_library())


def version():
    return ffi.string(lib.dval_version()).decode()


def _s(p):
    return ffi.string(p).decode("utf-8", "replace") if p != ffi.NULL else ""


def _b(s):
    return ffi.NULL if s is None else (s if isinstance(s, bytes) else str(s).encode())


def _check(rc, errmsg_fn=None, handle=None):
    if rc >= 0:
        return rc
    msg = _s(errmsg_fn(handle)) if errmsg_fn is not None and handle is not None else ""
    raise error_for(rc, msg or _s(lib.dval_strerror(rc)), _s(lib.dval_status_name(rc)))


class _Call:
    """Per-call callback state reached through ffi.new_handle userdata.
    The handle object must stay referenced for the whole C call."""

    def __init__(self, fn):
        self.fn = fn
        self.pending = None
        self.ud = ffi.new_handle(self)

    def reraise(self):
        e, self.pending = self.pending, None
        if e is not None:
            raise e


def _dispatch(ud, *args):
    call = ffi.from_handle(ud)
    if call.pending is not None:
        return 1
    try:
        r = call.fn(*args)
        return 0 if r is None else int(bool(r))
    except BaseException as e:  # noqa: B902 - re-raised after the call
        call.pending = e
        return 1


# Module-level callbacks (one each, no per-call allocation of trampolines);
# error=1: should anything escape, C sees "stop".
@ffi.callback("int(int, const char *, const char *, size_t, void *)", error=1)
def _on_output(stream, channel, data, n, ud):
    return _dispatch(ud, stream, _s(channel), bytes(ffi.buffer(data, n)) if n else b"")


@ffi.callback("int(const char *, size_t, void *)", error=1)
def _on_data(data, n, ud):
    return _dispatch(ud, bytes(ffi.buffer(data, n)) if n else b"")


@ffi.callback("int(const char *, const char *, int, void *)", error=1)
def _on_list(i, n, st, ud):
    return _dispatch(ud, _s(i), _s(n), st)


@ffi.callback("void(const char *, int, void *)")
def _on_state(name, state, ud):
    _dispatch(ud, _s(name), state)


@ffi.callback("void(int, const char *, void *)")
def _on_log(level, msg, ud):
    try:
        ffi.from_handle(ud)(level, _s(msg))
    except Exception:
        pass  # a log callback cannot stop the call


def _strarray(items, keep):
    if not items:
        return ffi.NULL
    bufs = [ffi.new("char[]", _b(x)) for x in items]
    arr = ffi.new("const char *[]", bufs + [ffi.NULL])
    keep.extend([bufs, arr])
    return arr


class _Handle:
    _free = None

    def __init__(self, ptr, parent=None):
        self._h = ptr
        self._parent = parent

    def close(self):
        h, self._h = self._h, None
        if h is not None:
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
        if self._h is None:
            raise ValueError("%s is closed" % type(self).__name__)
        return self._h


class Client(_Handle):
    _free = staticmethod(lambda h: lib.dval_client_free(h))

    def __init__(self, executor=None, api_url=None, api_key=None, jwt_token=None,
                 organization_id=None, target=None, state_dir=None,
                 allow_unisolated=False, log=None, log_level=0, **numbers):
        o = ffi.new("dval_client_options *")
        _check(lib.dval_client_options_init(o, ffi.sizeof("dval_client_options")))
        keep = []
        for k, v in (("executor", executor), ("api_url", api_url), ("api_key", api_key),
                     ("jwt_token", jwt_token), ("organization_id", organization_id),
                     ("target", target), ("state_dir", state_dir)):
            if v is not None:
                b = ffi.new("char[]", _b(v))
                keep.append(b)
                setattr(o, k, b)
        o.allow_unisolated = 1 if allow_unisolated else 0
        o.log_level = log_level
        for k, v in numbers.items():
            setattr(o, k, v)
        if log is not None:
            self._log_ud = ffi.new_handle(log)  # lives as long as the client
            o.log_fn = _on_log
            o.log_userdata = self._log_ud
        out = ffi.new("dval_client **")
        _check(lib.dval_client_new(out, o))
        super().__init__(out[0])

    errmsg = property(lambda self: _s(lib.dval_client_errmsg(self.handle)))
    executor_name = property(lambda self: _s(lib.dval_client_executor_name(self.handle)))

    def snapshot_ensure(self, name, image=None, build_commands=None, dockerfile=None,
                        on_build_log=None, rebuild_failed=False, build_timeout_ms=0):
        spec = ffi.new("dval_snapshot_spec *")
        _check(lib.dval_snapshot_spec_init(spec, ffi.sizeof("dval_snapshot_spec")))
        keep = [ffi.new("char[]", _b(name))]
        spec.name = keep[0]
        for k, v in (("image", image), ("dockerfile", dockerfile)):
            if v is not None:
                keep.append(ffi.new("char[]", _b(v)))
                setattr(spec, k, keep[-1])
        spec.build_commands = _strarray(build_commands, keep)
        spec.rebuild_failed = 1 if rebuild_failed else 0
        spec.build_timeout_ms = build_timeout_ms
        call = _Call(on_build_log)
        out = ffi.new("dval_snapshot **")
        rc = lib.dval_snapshot_ensure(out, self.handle, spec,
                                      _on_data if on_build_log else ffi.NULL, call.ud)
        call.reraise()
        _check(rc, lib.dval_client_errmsg, self.handle)
        return Snapshot(out[0], self)

    def sandbox_acquire(self, name, snapshot=None, image=None, labels=None, env=None,
                        release=RELEASE_KEEP, network=NETWORK_DEFAULT, on_state=None,
                        **numbers):
        o = ffi.new("dval_sandbox_options *")
        _check(lib.dval_sandbox_options_init(o, ffi.sizeof("dval_sandbox_options")))
        keep = []
        for k, v in (("name", name), ("snapshot", snapshot), ("image", image)):
            if v is not None:
                keep.append(ffi.new("char[]", _b(v)))
                setattr(o, k, keep[-1])
        o.labels = _strarray(labels, keep)
        o.env = _strarray(env, keep)
        o.release, o.network = release, network
        for k, v in numbers.items():
            setattr(o, k, v)
        call = _Call(on_state)
        if on_state:
            o.on_state = _on_state
            o.state_userdata = call.ud
        out = ffi.new("dval_sandbox **")
        rc = lib.dval_sandbox_acquire(out, self.handle, o)
        call.reraise()
        _check(rc, lib.dval_client_errmsg, self.handle)
        sb = Sandbox(out[0], self)
        sb._state_call = call  # on_state may fire again in start/stop
        return sb

    def list_sandboxes(self, labels=None):
        res = []
        keep = []
        call = _Call(lambda i, n, st: res.append((i, n, st)))
        rc = lib.dval_sandbox_list(self.handle, _strarray(labels, keep), _on_list, call.ud)
        call.reraise()
        _check(rc, lib.dval_client_errmsg, self.handle)
        return res


class Snapshot(_Handle):
    _free = staticmethod(lambda h: lib.dval_snapshot_free(h))
    name = property(lambda self: _s(lib.dval_snapshot_name(self.handle)))
    id = property(lambda self: _s(lib.dval_snapshot_id(self.handle)))
    state = property(lambda self: lib.dval_snapshot_state(self.handle))

    def delete(self):
        _check(lib.dval_snapshot_delete(self.handle), lib.dval_client_errmsg, self._parent.handle)


class Sandbox(_Handle):
    _free = staticmethod(lambda h: lib.dval_sandbox_free(h))
    id = property(lambda self: _s(lib.dval_sandbox_id(self.handle)))
    name = property(lambda self: _s(lib.dval_sandbox_name(self.handle)))
    state = property(lambda self: lib.dval_sandbox_state(self.handle))
    errmsg = property(lambda self: _s(lib.dval_sandbox_errmsg(self.handle)))

    def _call(self, fn, *args):
        rc = fn(self.handle, *args)
        c = getattr(self, "_state_call", None)
        if c is not None:
            c.reraise()
        return _check(rc, lib.dval_sandbox_errmsg, self.handle)

    def refresh(self):
        self._call(lib.dval_sandbox_refresh)
        return self.state

    def start(self):
        self._call(lib.dval_sandbox_start)

    def stop(self):
        self._call(lib.dval_sandbox_stop)

    def delete(self):
        self._call(lib.dval_sandbox_delete)

    def release(self):
        self._call(lib.dval_sandbox_release)

    def mkdir(self, path):
        self._call(lib.dval_sandbox_mkdir, _b(path))

    def upload(self, path, data):
        if isinstance(data, str):
            data = data.encode()
        self._call(lib.dval_sandbox_upload, _b(path), ffi.from_buffer(data), len(data))

    def upload_json(self, path, obj):
        self.upload(path, json.dumps(obj).encode())

    def upload_file(self, path, local_path):
        self._call(lib.dval_sandbox_upload_file, _b(path), _b(local_path))

    def download(self, path):
        p, n = ffi.new("char **"), ffi.new("size_t *")
        self._call(lib.dval_sandbox_download, _b(path), p, n)
        try:
            return bytes(ffi.buffer(p[0], n[0])) if n[0] else b""
        finally:
            lib.dval_free(p[0])

    def download_to(self, path, sink):
        call = _Call(sink)
        rc = lib.dval_sandbox_download_to(self.handle, _b(path), _on_data, call.ud)
        call.reraise()
        _check(rc, lib.dval_sandbox_errmsg, self.handle)

    def download_file(self, path, local_path):
        self._call(lib.dval_sandbox_download_file, _b(path), _b(local_path))

    def download_json(self, path):
        p = ffi.new("char **")
        self._call(lib.dval_sandbox_download_json, _b(path), p)
        try:
            return json.loads(ffi.string(p[0]).decode("utf-8"))
        finally:
            lib.dval_free(p[0])

    def open_session(self):
        out = ffi.new("dval_session **")
        _check(lib.dval_session_open(out, self.handle), lib.dval_sandbox_errmsg, self.handle)
        return Session(out[0], self)


class Session(_Handle):
    _free = staticmethod(lambda h: lib.dval_session_free(h))
    id = property(lambda self: _s(lib.dval_session_id(self.handle)))
    errmsg = property(lambda self: _s(lib.dval_session_errmsg(self.handle)))

    def exec(self, command, on_output=None, cwd=None, timeout_ms=0, channel_prefix=None):
        o = ffi.new("dval_exec_options *")
        _check(lib.dval_exec_options_init(o, ffi.sizeof("dval_exec_options")))
        keep = []
        for k, v in (("cwd", cwd), ("channel_prefix", channel_prefix)):
            if v is not None:
                keep.append(ffi.new("char[]", _b(v)))
                setattr(o, k, keep[-1])
        o.timeout_ms = timeout_ms
        call = _Call(on_output)
        code = ffi.new("int *", -1)
        rc = lib.dval_session_exec(self.handle, _b(command), o,
                                   _on_output if on_output else ffi.NULL, call.ud, code)
        call.reraise()
        _check(rc, lib.dval_session_errmsg, self.handle)
        return code[0]

    def cancel(self):
        _check(lib.dval_session_cancel(self.handle))

    def close_remote(self):
        _check(lib.dval_session_close(self.handle), lib.dval_session_errmsg, self.handle)

    def __exit__(self, exc_type, *exc):
        try:
            if self._h is not None:
                try:
                    self.close_remote()
                except DvalError:
                    if exc_type is None:
                        raise
        finally:
            self.close()
