"""ctypes backend (standard library only).

A backend only moves values across the C boundary: it fills option structs
from dicts keyed by C field names, adapts callbacks (already guarded by the
caller: they return an int and never raise) and returns raw status codes.
Every policy (errors, enums, ownership) lives in the shared layer.
ctypes releases the GIL around each foreign call, so other Python threads
run while a call blocks.
"""
import ctypes as C
from typing import Any, Callable, Dict, List, Optional, Tuple

LOG_FN = C.CFUNCTYPE(None, C.c_int, C.c_char_p, C.c_void_p)
OUTPUT_FN = C.CFUNCTYPE(C.c_int, C.c_int, C.c_char_p, C.c_void_p, C.c_size_t, C.c_void_p)
DATA_FN = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_size_t, C.c_void_p)
STATE_FN = C.CFUNCTYPE(None, C.c_char_p, C.c_int, C.c_void_p)
LIST_FN = C.CFUNCTYPE(C.c_int, C.c_char_p, C.c_char_p, C.c_int, C.c_void_p)


class DaytonaOptions(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("api_url", C.c_char_p),
                ("api_key", C.c_char_p), ("jwt_token", C.c_char_p),
                ("organization_id", C.c_char_p), ("target", C.c_char_p),
                ("ca_bundle", C.c_char_p), ("insecure_skip_tls_verify", C.c_int32),
                ("connect_timeout_ms", C.c_int64), ("request_timeout_ms", C.c_int64)]


class LocalOptions(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("state_dir", C.c_char_p),
                ("helper_path", C.c_char_p), ("allow_unisolated", C.c_int32),
                ("max_pids", C.c_int32), ("max_memory_bytes", C.c_int64),
                ("max_cpu_ms", C.c_int64), ("host_root", C.c_int32)]


class ClientOptions(C.Structure):
    _fields_ = [("struct_size", C.c_size_t),
                ("executor", C.c_char_p), ("custom_executor", C.c_void_p),
                ("log_fn", LOG_FN), ("log_userdata", C.c_void_p),
                ("log_level", C.c_int32), ("retry_attempts", C.c_int32),
                ("retry_base_ms", C.c_int64), ("retry_factor", C.c_int32),
                ("retry_cap_ms", C.c_int64), ("retry_jitter", C.c_int32),
                ("max_download_bytes", C.c_int64),
                ("daytona", C.POINTER(DaytonaOptions)), ("local", C.POINTER(LocalOptions))]


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
                ("max_cpu_ms", C.c_int64), ("ttl_minutes", C.c_int32)]


class ExecOptions(C.Structure):
    """dval_exec_options; limits and usage (kept NULL here) exist only in a
    library with per-command limits: the size passed says which."""
    _fields_ = [("struct_size", C.c_size_t), ("channel_prefix", C.c_char_p),
                ("cwd", C.c_char_p), ("timeout_ms", C.c_int64),
                ("env", C.POINTER(C.c_char_p)), ("limits", C.c_void_p),
                ("usage", C.c_void_p)]


_VALIDATION_FIELDS = [
    ("struct_size", C.c_size_t), ("profile", C.c_char_p), ("source_dir", C.c_char_p),
    ("thread_id", C.c_char_p), ("sandbox_name", C.c_char_p),
    ("snapshot_name", C.c_char_p), ("run_command", C.c_char_p),
    ("timeout_ms", C.c_int64), ("release", C.c_int32),
    ("labels", C.POINTER(C.c_char_p)), ("allow_missing_results", C.c_int32)]


class Validation(C.Structure):
    _fields_ = _VALIDATION_FIELDS


class ValidationCancel(C.Structure):
    """dval_validation of a library with the cancel token (appended field)."""
    _fields_ = _VALIDATION_FIELDS + [("cancel", C.c_void_p)]


class ValidationIsolation(C.Structure):
    """dval_validation of a library with the pool: isolation, TTL and the
    sandbox's resources too."""
    _fields_ = _VALIDATION_FIELDS + [("cancel", C.c_void_p), ("isolation", C.c_int32),
                                     ("sandbox_ttl_minutes", C.c_int32), ("cpu", C.c_int32),
                                     ("memory_gib", C.c_int32), ("disk_gib", C.c_int32)]


class ValidationPhases(C.Structure):
    """dval_validation of a library with verdicts: the build phase's command
    too."""
    _fields_ = ValidationIsolation._fields_ + [("build_command", C.c_char_p)]


class ValidationServices(C.Structure):
    """dval_validation of a library with the database services (it exports
    dval_service_names): services and seeds too."""
    _fields_ = ValidationPhases._fields_ + [("services", C.POINTER(C.c_char_p)),
                                            ("seeds", C.POINTER(C.c_char_p))]


class ValidationLimits(C.Structure):
    """dval_validation of a library with per-validation limits and expected
    results (it exports dval_validate_result): those fields too."""
    _fields_ = ValidationServices._fields_ + [
        ("memory_mib", C.c_int32), ("max_processes", C.c_int32),
        ("cpu_time_ms", C.c_int64), ("output_bytes", C.c_int64),
        ("expected", C.c_char_p), ("expected_len", C.c_size_t),
        ("expected_file", C.c_char_p), ("compare", C.c_void_p)]


class ValidationInputs(C.Structure):
    """dval_validation of a library with the run phase's inputs (0.1.7,
    no new function: its dval_validation_init says how big the struct
    is): args, stdin_data, stdin_len and results_bytes too."""
    _fields_ = ValidationLimits._fields_ + [
        ("args", C.POINTER(C.c_char_p)), ("stdin_data", C.c_char_p),
        ("stdin_len", C.c_size_t), ("results_bytes", C.c_int64)]


def _validation_size(lib: Any) -> int:
    """sizeof(dval_validation) of the library: the struct_size its
    dval_validation_init sets in a buffer bigger than any it knows."""
    buf = (C.c_char * 4096)()
    if lib.dval_validation_init(buf, C.sizeof(buf)):
        return 0
    return C.c_size_t.from_buffer(buf).value


class PoolOptions(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("profile", C.c_char_p), ("name", C.c_char_p),
                ("min_warm", C.c_int32), ("max_sandboxes", C.c_int32),
                ("max_per_sandbox", C.c_int32), ("idle_timeout_ms", C.c_int64),
                ("labels", C.POINTER(C.c_char_p)), ("max_queue", C.c_int32),
                ("release", C.c_int32), ("ttl_minutes", C.c_int32)]


class PoolOptionsServices(C.Structure):
    """dval_pool_options of a library with the database services."""
    _fields_ = PoolOptions._fields_ + [("services", C.POINTER(C.c_char_p)),
                                       ("seeds", C.POINTER(C.c_char_p))]


class PoolStats(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("max_sandboxes", C.c_int32),
                ("busy_sandboxes", C.c_int32), ("running", C.c_int32), ("waiting", C.c_int32),
                ("completed", C.c_int64), ("failed", C.c_int64), ("refused", C.c_int64),
                ("canceled_waiting", C.c_int64), ("wait_ms_total", C.c_int64),
                ("wait_ms_max", C.c_int64)]


class Event(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("type", C.c_int32), ("phase", C.c_char_p),
                ("done", C.c_int32), ("status", C.c_int32), ("elapsed_ms", C.c_int64),
                ("stream", C.c_int32), ("channel", C.c_char_p), ("data", C.c_void_p),
                ("len", C.c_size_t), ("state", C.c_int32), ("detail", C.c_char_p)]


EVENT_FN = C.CFUNCTYPE(C.c_int, C.POINTER(Event), C.c_void_p)
STRUCTS = {"dval_client_options": ClientOptions, "dval_daytona_options": DaytonaOptions,
           "dval_local_options": LocalOptions, "dval_snapshot_spec": SnapshotSpec,
           "dval_sandbox_options": SandboxOptions, "dval_exec_options": ExecOptions,
           "dval_validation": Validation, "dval_event": Event,
           "dval_pool_options": PoolOptions, "dval_pool_stats": PoolStats}

V, I, P, S, Z = C.c_void_p, C.c_int, C.POINTER(C.c_void_p), C.c_char_p, C.c_size_t
_PROTOS: List[Tuple[str, Any, List[Any]]] = [
    ("dval_strerror", S, [I]), ("dval_status_name", S, [I]), ("dval_version", S, []),
    ("dval_free", None, [V]), ("dval_sandbox_state_name", S, [I]),
    ("dval_snapshot_state_name", S, [I]),
    ("dval_profile_names", I, [C.POINTER(C.POINTER(C.c_char_p))]),
    ("dval_client_options_init", I, [C.POINTER(ClientOptions), Z]),
    ("dval_daytona_options_init", I, [C.POINTER(DaytonaOptions), Z]),
    ("dval_local_options_init", I, [C.POINTER(LocalOptions), Z]),
    ("dval_client_new", I, [P, C.POINTER(ClientOptions)]),
    ("dval_client_free", None, [V]), ("dval_client_errmsg", S, [V]),
    ("dval_client_executor_name", S, [V]),
    ("dval_snapshot_spec_init", I, [C.POINTER(SnapshotSpec), Z]),
    ("dval_snapshot_ensure", I, [P, V, C.POINTER(SnapshotSpec), DATA_FN, V]),
    ("dval_snapshot_get", I, [P, V, S]),
    ("dval_snapshot_name", S, [V]), ("dval_snapshot_id", S, [V]),
    ("dval_snapshot_state", I, [V]), ("dval_snapshot_delete", I, [V]),
    ("dval_snapshot_free", None, [V]),
    ("dval_sandbox_options_init", I, [C.POINTER(SandboxOptions), Z]),
    ("dval_sandbox_acquire", I, [P, V, C.POINTER(SandboxOptions)]),
    ("dval_sandbox_get", I, [P, V, S]),
    ("dval_sandbox_refresh", I, [V]), ("dval_sandbox_start", I, [V]),
    ("dval_sandbox_stop", I, [V]), ("dval_sandbox_delete", I, [V]),
    ("dval_sandbox_release", I, [V]), ("dval_sandbox_state", I, [V]),
    ("dval_sandbox_id", S, [V]), ("dval_sandbox_name", S, [V]),
    ("dval_sandbox_errmsg", S, [V]), ("dval_sandbox_free", None, [V]),
    ("dval_sandbox_upload", I, [V, S, V, Z]), ("dval_sandbox_upload_file", I, [V, S, S]),
    ("dval_sandbox_download", I, [V, S, P, C.POINTER(Z)]),
    ("dval_sandbox_download_to", I, [V, S, DATA_FN, V]),
    ("dval_sandbox_download_file", I, [V, S, S]),
    ("dval_sandbox_download_json", I, [V, S, P]), ("dval_sandbox_mkdir", I, [V, S]),
    ("dval_sandbox_list", I, [V, C.POINTER(C.c_char_p), LIST_FN, V]),
    ("dval_session_open", I, [P, V]), ("dval_session_id", S, [V]),
    ("dval_session_errmsg", S, [V]),
    ("dval_exec_options_init", I, [C.POINTER(ExecOptions), Z]),
    ("dval_session_exec", I, [V, S, C.POINTER(ExecOptions), OUTPUT_FN, V, C.POINTER(I)]),
    ("dval_session_cancel", I, [V]), ("dval_session_close", I, [V]),
    ("dval_session_free", None, [V]),
    ("dval_validation_init", I, [V, Z]),
    ("dval_validate", I, [V, V, EVENT_FN, V, P]),
]
# The cancel token (newer libraries): used only when exported.
_CANCEL_PROTOS = [("dval_cancel_new", I, [P]), ("dval_cancel_fire", I, [V]),
                  ("dval_cancel_fired", I, [V]), ("dval_cancel_free", None, [V])]
# The pool (newer libraries): used only when exported.
# (the options as void *: the struct is PoolOptions or PoolOptionsServices)
_POOL_PROTOS = [("dval_pool_options_init", I, [V, Z]),
                ("dval_pool_new", I, [P, V, V]),
                ("dval_pool_validate", I, [V, V, EVENT_FN, V, P]),
                ("dval_pool_free", None, [V])]
_POOL_STATS_PROTOS = [("dval_pool_stats_get", I, [V, C.POINTER(PoolStats), Z])]
_SERVICES_PROTOS = [("dval_service_names", I, [C.POINTER(C.POINTER(C.c_char_p))])]
_PROFILE_LOAD_PROTOS = [("dval_profile_load", I, [C.c_char_p, C.POINTER(C.c_char_p),
                                                  C.c_char_p, Z])]


class CompareOptions(C.Structure):
    """dval_compare_options."""
    _fields_ = [("struct_size", Z), ("mode", C.c_int32),
                ("ignore", C.POINTER(C.c_char_p)), ("abs_tolerance", C.c_double),
                ("rel_tolerance", C.c_double), ("max_diffs", C.c_int32)]


_DIFFERENTIAL_PROTOS = [("dval_compare_options_init", I, [V, Z]),
                        ("dval_differential", I, [C.POINTER(C.c_int), C.POINTER(C.c_void_p),
                                                  C.c_char_p, C.c_char_p, V])]


def _b(s: Optional[str]) -> Optional[bytes]:
    return None if s is None else (s if isinstance(s, bytes) else str(s).encode())


def _s(p: Optional[bytes]) -> str:
    return p.decode("utf-8", "replace") if p else ""


def _strarray(items: Optional[List[str]]) -> Any:
    if not items:
        return None
    return (C.c_char_p * (len(items) + 1))(*[_b(x) for x in items], None)


def _fill(st: Any, opts: Dict[str, Any], keep: List[Any]) -> None:
    """Sets fields by C name: str → char *, list → NULL-terminated array,
    int/bool → integer. Unknown names raise (a typo must not pass)."""
    names = {f[0] for f in type(st)._fields_}
    for k, v in opts.items():
        if k not in names:
            raise ValueError("%s has no field %r" % (type(st).__name__, k))
        if v is None:
            continue
        if isinstance(v, (list, tuple)):
            arr = _strarray(list(v))
            keep.append(arr)
            setattr(st, k, arr)
        elif isinstance(v, (str, bytes)):
            setattr(st, k, _b(v))
        elif isinstance(v, float):
            setattr(st, k, v)
        else:
            setattr(st, k, int(v))


class Backend:
    """The library through ctypes."""
    name = "ctypes"

    def __init__(self, path: str) -> None:
        self.path = path
        self.lib = lib = C.CDLL(path)
        for fname, res, args in _PROTOS:
            f = getattr(lib, fname)
            f.restype, f.argtypes = res, args
        self.has_cancel = hasattr(lib, "dval_cancel_new")
        if self.has_cancel:
            for fname, res, args in _CANCEL_PROTOS:
                f = getattr(lib, fname)
                f.restype, f.argtypes = res, args
        self.validation_struct = ValidationCancel if self.has_cancel else Validation
        self.has_pool = hasattr(lib, "dval_pool_new")
        if self.has_pool:   # isolation and TTL fields too
            self.validation_struct = ValidationIsolation
            if hasattr(lib, "dval_verdict_name"):
                self.validation_struct = ValidationPhases
            for fname, res, args in _POOL_PROTOS:
                f = getattr(lib, fname)
                f.restype, f.argtypes = res, args
        self.has_pool_stats = hasattr(lib, "dval_pool_stats_get")
        if self.has_pool_stats:
            for fname, res, args in _POOL_STATS_PROTOS:
                f = getattr(lib, fname)
                f.restype, f.argtypes = res, args
        self.pool_options_struct = PoolOptions
        self.has_services = hasattr(lib, "dval_service_names")
        if self.has_services:   # services and seeds fields too
            self.validation_struct = ValidationServices
            self.pool_options_struct = PoolOptionsServices
            for fname, res, args in _SERVICES_PROTOS:
                f = getattr(lib, fname)
                f.restype, f.argtypes = res, args
        self.has_limits = self.has_services and hasattr(lib, "dval_validate_result")
        if self.has_limits:
            self.validation_struct = ValidationLimits
        self.has_inputs = self.has_limits and \
            _validation_size(lib) >= C.sizeof(ValidationInputs)
        if self.has_inputs:
            self.validation_struct = ValidationInputs
        self.has_profile_load = hasattr(lib, "dval_profile_load")
        if self.has_profile_load:
            for fname, res, args in _PROFILE_LOAD_PROTOS:
                f = getattr(lib, fname)
                f.restype, f.argtypes = res, args
        self.has_differential = hasattr(lib, "dval_differential")
        if self.has_differential:
            for fname, res, args in _DIFFERENTIAL_PROTOS:
                f = getattr(lib, fname)
                f.restype, f.argtypes = res, args

    # ---- layout (tests compare it with the C compiler's)
    def layout(self, struct: str, field: str) -> int:
        cls = self.validation_struct if struct == "dval_validation" else \
            self.pool_options_struct if struct == "dval_pool_options" else STRUCTS[struct]
        return C.sizeof(cls) if field == "sizeof" else getattr(cls, field).offset

    # ---- plain functions
    def version(self) -> str:
        return _s(self.lib.dval_version())

    def strerror(self, rc: int) -> str:
        return _s(self.lib.dval_strerror(rc))

    def status_name(self, rc: int) -> str:
        return _s(self.lib.dval_status_name(rc))

    def sandbox_state_name(self, st: int) -> str:
        return _s(self.lib.dval_sandbox_state_name(st))

    def snapshot_state_name(self, st: int) -> str:
        return _s(self.lib.dval_snapshot_state_name(st))

    def profile_names(self) -> List[str]:
        return self._names("dval_profile_names")

    def service_names(self) -> List[str]:
        return self._names("dval_service_names") if self.has_services else []

    def profile_load(self, path: str) -> Tuple[int, str, str]:
        name = C.c_char_p()
        err = C.create_string_buffer(1024)
        rc = self.lib.dval_profile_load(_b(path), C.byref(name), err, C.sizeof(err))
        return rc, _s(name.value) if rc == 0 else "", _s(err.value)

    def differential(self, original: str, translation: str,
                     opts: Dict[str, Any]) -> Tuple[int, int, Optional[str]]:
        """dval_differential: (status, outcome, report JSON)."""
        o = CompareOptions()
        rc = self.lib.dval_compare_options_init(C.byref(o), C.sizeof(o))
        keep: List[Any] = []
        _fill(o, opts, keep)
        outcome, rep = C.c_int(0), C.c_void_p()
        if rc == 0:
            rc = self.lib.dval_differential(C.byref(outcome), C.byref(rep), _b(original),
                                            _b(translation), C.byref(o))
        try:
            text = C.string_at(rep.value).decode("utf-8") if rep.value else None
        finally:
            self.lib.dval_free(rep)
        return rc, outcome.value, text

    def _names(self, fname: str) -> List[str]:
        p = C.POINTER(C.c_char_p)()
        if getattr(self.lib, fname)(C.byref(p)) != 0 or not p:
            return []
        out, i = [], 0
        while p[i]:
            out.append(_s(p[i]))
            i += 1
        return out

    def getter(self, fname: str, h: Any) -> Any:
        r = getattr(self.lib, fname)(h)
        return _s(r) if isinstance(r, (bytes, type(None))) else r

    def call(self, fname: str, *args: Any) -> int:
        return getattr(self.lib, fname)(*[_b(a) if isinstance(a, str) else a for a in args])

    # ---- client
    def client_new(self, opts: Dict[str, Any], daytona: Dict[str, Any],
                   local: Dict[str, Any], log: Optional[Callable[[int, str], None]]) \
            -> Tuple[int, Any, Any]:
        o, d, lo = ClientOptions(), DaytonaOptions(), LocalOptions()
        rc = self.lib.dval_client_options_init(C.byref(o), C.sizeof(o)) or \
            self.lib.dval_daytona_options_init(C.byref(d), C.sizeof(d)) or \
            self.lib.dval_local_options_init(C.byref(lo), C.sizeof(lo))
        if rc:
            return rc, None, None
        keep: List[Any] = []
        _fill(o, opts, keep)
        _fill(d, daytona, keep)
        _fill(lo, local, keep)
        o.daytona, o.local = C.pointer(d), C.pointer(lo)  # read during the call only
        cb = None
        if log is not None:
            cb = LOG_FN(lambda level, msg, _ud: log(level, _s(msg)))
            o.log_fn = cb
        h = C.c_void_p()
        rc = self.lib.dval_client_new(C.byref(h), C.byref(o))
        return rc, h.value, cb  # the log callback lives as long as the client

    # ---- snapshot
    def snapshot_ensure(self, client: Any, spec: Dict[str, Any],
                        on_log: Optional[Callable[[bytes], int]]) -> Tuple[int, Any]:
        s = SnapshotSpec()
        rc = self.lib.dval_snapshot_spec_init(C.byref(s), C.sizeof(s))
        if rc:
            return rc, None
        keep: List[Any] = []
        _fill(s, spec, keep)
        fn = DATA_FN(lambda d, n, _u: on_log(C.string_at(d, n))) if on_log else DATA_FN()
        h = C.c_void_p()
        rc = self.lib.dval_snapshot_ensure(C.byref(h), client, C.byref(s), fn, None)
        return rc, h.value

    def get(self, what: str, client: Any, name: str) -> Tuple[int, Any]:
        h = C.c_void_p()
        rc = getattr(self.lib, "dval_%s_get" % what)(C.byref(h), client, _b(name))
        return rc, h.value

    # ---- sandbox
    def sandbox_acquire(self, client: Any, opts: Dict[str, Any],
                        on_state: Optional[Callable[[str, int], None]]) -> Tuple[int, Any, Any]:
        o = SandboxOptions()
        rc = self.lib.dval_sandbox_options_init(C.byref(o), C.sizeof(o))
        if rc:
            return rc, None, None
        keep: List[Any] = []
        _fill(o, opts, keep)
        cb = None
        if on_state is not None:
            cb = STATE_FN(lambda name, st, _ud: on_state(_s(name), st))
            o.on_state = cb
        h = C.c_void_p()
        rc = self.lib.dval_sandbox_acquire(C.byref(h), client, C.byref(o))
        return rc, h.value, cb  # on_state fires again in start/stop

    def sandbox_upload(self, sb: Any, path: str, data: bytes) -> int:
        buf = C.create_string_buffer(data, len(data))
        return self.lib.dval_sandbox_upload(sb, _b(path), C.cast(buf, C.c_void_p), len(data))

    def sandbox_download(self, sb: Any, path: str) -> Tuple[int, bytes]:
        p, n = C.c_void_p(), C.c_size_t()
        rc = self.lib.dval_sandbox_download(sb, _b(path), C.byref(p), C.byref(n))
        try:
            return rc, (C.string_at(p.value, n.value) if rc == 0 and n.value else b"")
        finally:
            self.lib.dval_free(p)

    def sandbox_download_to(self, sb: Any, path: str, sink: Callable[[bytes], int]) -> int:
        fn = DATA_FN(lambda d, n, _u: sink(C.string_at(d, n)))
        return self.lib.dval_sandbox_download_to(sb, _b(path), fn, None)

    def sandbox_download_json(self, sb: Any, path: str) -> Tuple[int, str]:
        p = C.c_void_p()
        rc = self.lib.dval_sandbox_download_json(sb, _b(path), C.byref(p))
        try:
            return rc, (C.string_at(p.value).decode("utf-8") if rc == 0 else "")
        finally:
            self.lib.dval_free(p)

    def sandbox_list(self, client: Any, labels: Optional[List[str]],
                     each: Callable[[str, str, int], int]) -> int:
        fn = LIST_FN(lambda i, n, st, _u: each(_s(i), _s(n), st))
        return self.lib.dval_sandbox_list(client, _strarray(labels), fn, None)

    # ---- session
    def session_open(self, sb: Any) -> Tuple[int, Any]:
        h = C.c_void_p()
        rc = self.lib.dval_session_open(C.byref(h), sb)
        return rc, h.value

    def session_exec(self, s: Any, command: str, opts: Dict[str, Any],
                     on_output: Optional[Callable[[int, str, bytes], int]]) -> Tuple[int, int]:
        o = ExecOptions()
        size = C.sizeof(o) if self.has_limits else ExecOptions.limits.offset
        rc = self.lib.dval_exec_options_init(C.byref(o), size)
        if rc:
            return rc, -1
        keep: List[Any] = []
        _fill(o, opts, keep)
        fn = OUTPUT_FN(lambda st, ch, d, n, _u: on_output(
            st, _s(ch), C.string_at(d, n) if n else b"")) if on_output else OUTPUT_FN()
        code = C.c_int(-1)
        rc = self.lib.dval_session_exec(s, _b(command), C.byref(o), fn, None, C.byref(code))
        return rc, code.value

    # ---- validate
    def validate(self, client: Any, req: Dict[str, Any],
                 on_event: Callable[[Tuple[Any, ...]], int],
                 cancel: Any = None, pool: Any = None) -> Tuple[int, Optional[str]]:
        """dval_validate on ``client``, or dval_pool_validate on ``pool``."""
        st = self.validation_struct()
        rc = self.lib.dval_validation_init(C.byref(st), C.sizeof(st))
        if rc:
            return rc, None
        keep: List[Any] = []
        _fill(st, req, keep)
        if cancel is not None:
            st.cancel = cancel

        def ev(p: Any, _ud: Any) -> int:
            e = p.contents
            data = C.string_at(e.data, e.len) if e.data and e.len else b""
            return on_event((e.type, _s(e.phase), e.done, e.status, e.elapsed_ms,
                             e.stream, _s(e.channel), data, e.state,
                             _s(e.detail) if e.detail else None))
        fn = EVENT_FN(ev)
        out = C.c_void_p()
        if pool is not None:
            rc = self.lib.dval_pool_validate(pool, C.byref(st), fn, None, C.byref(out))
        else:
            rc = self.lib.dval_validate(client, C.byref(st), fn, None, C.byref(out))
        try:
            text = C.string_at(out.value).decode("utf-8") if out.value else None
        finally:
            self.lib.dval_free(out)
        return rc, text

    # ---- pool
    def pool_new(self, client: Any, opts: Dict[str, Any]) -> Tuple[int, Any]:
        o = self.pool_options_struct()
        rc = self.lib.dval_pool_options_init(C.byref(o), C.sizeof(o))
        if rc:
            return rc, None
        keep: List[Any] = []
        _fill(o, opts, keep)   # the pool copies the strings
        h = C.c_void_p()
        rc = self.lib.dval_pool_new(C.byref(h), client, C.byref(o))
        return rc, (h.value if rc == 0 else None)

    def pool_stats(self, pool: Any) -> Tuple[int, Dict[str, int]]:
        st = PoolStats()
        rc = self.lib.dval_pool_stats_get(pool, C.byref(st), C.sizeof(st))
        return rc, {f[0]: getattr(st, f[0]) for f in PoolStats._fields_[1:]}

    # ---- cancel token
    def cancel_new(self) -> Tuple[int, Any]:
        h = C.c_void_p()
        rc = self.lib.dval_cancel_new(C.byref(h))
        return rc, h.value
