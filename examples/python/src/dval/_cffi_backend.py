"""cffi backend, ABI mode (``ffi.dlopen``: no compiler at run time).

Same contract as the ctypes backend: values across the C boundary only,
raw status codes back. cffi releases the GIL around foreign calls.
"""
from typing import Any, Callable, Dict, List, Optional, Tuple

from cffi import FFI

_STRUCTS = """
typedef struct dval_client dval_client;
typedef struct dval_snapshot dval_snapshot;
typedef struct dval_sandbox dval_sandbox;
typedef struct dval_session dval_session;
typedef struct dval_cancel dval_cancel;
typedef void (*dval_log_fn)(int level, const char *msg, void *userdata);
typedef int (*dval_output_fn)(int stream, const char *channel, const char *data, size_t len, void *userdata);
typedef int (*dval_data_fn)(const char *data, size_t len, void *userdata);
typedef void (*dval_state_fn)(const char *sandbox_name, int state, void *userdata);
typedef int (*dval_sandbox_list_fn)(const char *id, const char *name, int state, void *userdata);

typedef struct dval_daytona_options {
    size_t struct_size;
    const char *api_url; const char *api_key; const char *jwt_token;
    const char *organization_id; const char *target;
    const char *ca_bundle; int32_t insecure_skip_tls_verify;
    int64_t connect_timeout_ms; int64_t request_timeout_ms;
} dval_daytona_options;

typedef struct dval_local_options {
    size_t struct_size;
    const char *state_dir; const char *helper_path; int32_t allow_unisolated;
    int32_t max_pids; int64_t max_memory_bytes; int64_t max_cpu_ms;
    int32_t host_root;
} dval_local_options;

typedef struct dval_client_options {
    size_t struct_size;
    const char *executor;
    const void *custom_executor;
    dval_log_fn log_fn; void *log_userdata; int32_t log_level;
    int32_t retry_attempts; int64_t retry_base_ms; int32_t retry_factor;
    int64_t retry_cap_ms; int32_t retry_jitter;
    int64_t max_download_bytes;
    const dval_daytona_options *daytona; const dval_local_options *local;
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
    int32_t ttl_minutes;
} dval_sandbox_options;

typedef struct dval_exec_options {
    size_t struct_size; const char *channel_prefix; const char *cwd; int64_t timeout_ms;
    const char *const *env; const void *limits; void *usage;
} dval_exec_options;

typedef struct dval_event {
    size_t struct_size; int32_t type; const char *phase; int32_t done; int32_t status;
    int64_t elapsed_ms; int32_t stream; const char *channel; const char *data; size_t len;
    int32_t state; const char *detail;
} dval_event;
typedef int (*dval_event_fn)(const dval_event *event, void *userdata);
"""

_VALIDATION = """
typedef struct dval_validation {
    size_t struct_size;
    const char *profile; const char *source_dir; const char *thread_id;
    const char *sandbox_name; const char *snapshot_name; const char *run_command;
    int64_t timeout_ms; int32_t release; const char *const *labels;
    int32_t allow_missing_results;%s
} dval_validation;
"""

_FUNCS = """
const char *dval_strerror(int status);
const char *dval_status_name(int status);
const char *dval_version(void);
void dval_free(void *ptr);
const char *dval_sandbox_state_name(int state);
const char *dval_snapshot_state_name(int state);
int dval_profile_names(const char *const **names);
int dval_client_options_init(dval_client_options *opts, size_t size);
int dval_daytona_options_init(dval_daytona_options *opts, size_t size);
int dval_local_options_init(dval_local_options *opts, size_t size);
int dval_client_new(dval_client **out, const dval_client_options *opts);
void dval_client_free(dval_client *client);
const char *dval_client_errmsg(const dval_client *client);
const char *dval_client_executor_name(const dval_client *client);
int dval_snapshot_spec_init(dval_snapshot_spec *spec, size_t size);
int dval_snapshot_ensure(dval_snapshot **out, dval_client *client, const dval_snapshot_spec *spec, dval_data_fn on_build_log, void *userdata);
int dval_snapshot_get(dval_snapshot **out, dval_client *client, const char *name_or_id);
const char *dval_snapshot_name(const dval_snapshot *snap);
const char *dval_snapshot_id(const dval_snapshot *snap);
int dval_snapshot_state(const dval_snapshot *snap);
int dval_snapshot_delete(dval_snapshot *snap);
void dval_snapshot_free(dval_snapshot *snap);
int dval_sandbox_options_init(dval_sandbox_options *opts, size_t size);
int dval_sandbox_acquire(dval_sandbox **out, dval_client *client, const dval_sandbox_options *opts);
int dval_sandbox_get(dval_sandbox **out, dval_client *client, const char *name_or_id);
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
int dval_validation_init(dval_validation *req, size_t size);
int dval_validate(dval_client *client, const dval_validation *req, dval_event_fn on_event, void *userdata, char **result_json);
"""

_POOL = """
typedef struct dval_pool dval_pool;
typedef struct dval_pool_options {
    size_t struct_size;
    const char *profile; const char *name;
    int32_t min_warm; int32_t max_sandboxes; int32_t max_per_sandbox;
    int64_t idle_timeout_ms; const char *const *labels;
    int32_t max_queue; int32_t release; int32_t ttl_minutes;%s
} dval_pool_options;
int dval_pool_options_init(dval_pool_options *opts, size_t size);
int dval_pool_new(dval_pool **out, dval_client *client, const dval_pool_options *opts);
int dval_pool_validate(dval_pool *pool, const dval_validation *req, dval_event_fn on_event, void *userdata, char **result_json);
void dval_pool_free(dval_pool *pool);
"""

_POOL_STATS = """
typedef struct dval_pool_stats {
    size_t struct_size;
    int32_t max_sandboxes; int32_t busy_sandboxes; int32_t running; int32_t waiting;
    int64_t completed; int64_t failed; int64_t refused; int64_t canceled_waiting;
    int64_t wait_ms_total; int64_t wait_ms_max;
} dval_pool_stats;
int dval_pool_stats_get(dval_pool *pool, dval_pool_stats *stats, size_t size);
"""

_SERVICES_FUNCS = """
int dval_service_names(const char *const **names);
"""
_PROFILE_LOAD_FUNCS = """
int dval_profile_load(const char *path, const char **name, char *errbuf, size_t errcap);
"""
_DIFFERENTIAL_FUNCS = """
typedef struct dval_compare_options {
    size_t struct_size; int32_t mode; const char *const *ignore;
    double abs_tolerance; double rel_tolerance; int32_t max_diffs;
} dval_compare_options;
int dval_compare_options_init(dval_compare_options *opts, size_t size);
int dval_differential(int *outcome, char **report, const char *original_summary,
                      const char *translation_summary, const dval_compare_options *opts);
"""
# the fields a library with the database services appends
_SERVICES_FIELDS = "\n    const char *const *services; const char *const *seeds;"
# ... and one with per-validation limits and expected results after them
_LIMITS_FIELDS = ("\n    int32_t memory_mib; int32_t max_processes; int64_t cpu_time_ms;"
                  "\n    int64_t output_bytes; const char *expected; size_t expected_len;"
                  "\n    const char *expected_file; const void *compare;")
# ... and one with the run phase's inputs (0.1.7: no new function, its
# dval_validation_init says how big the struct is)
_INPUTS_FIELDS = ("\n    const char *const *args; const char *stdin_data;"
                  " size_t stdin_len; int64_t results_bytes;")

_CANCEL_FUNCS = """
int dval_cancel_new(dval_cancel **out);
int dval_cancel_fire(dval_cancel *c);
int dval_cancel_fired(const dval_cancel *c);
void dval_cancel_free(dval_cancel *c);
"""


def _validation_size(path: str) -> int:
    """sizeof(dval_validation) of the library: the struct_size its
    dval_validation_init sets in a buffer bigger than any it knows."""
    probe = FFI()
    probe.cdef("int dval_validation_init(void *req, size_t size);")
    lib = probe.dlopen(path)
    buf = probe.new("size_t[512]")
    if lib.dval_validation_init(buf, probe.sizeof(buf)):
        return 0
    return int(buf[0])


def _sizeof_validation(fields: str) -> int:
    probe = FFI()
    probe.cdef(_STRUCTS + _VALIDATION % fields)
    return int(probe.sizeof("dval_validation"))


def _has_symbol(path: str, name: str) -> bool:
    probe = FFI()
    probe.cdef("void %s(void);" % name)
    lib = probe.dlopen(path)
    try:
        getattr(lib, name)
        return True
    except AttributeError:
        return False


class Backend:
    """The library through cffi (ABI mode)."""
    name = "cffi"

    def __init__(self, path: str) -> None:
        self.path = path
        self.has_cancel = _has_symbol(path, "dval_cancel_new")
        # libraries with the pool also have the isolation and TTL fields
        self.has_isolation = self.has_pool = _has_symbol(path, "dval_pool_new")
        self.has_pool_stats = self.has_pool and _has_symbol(path, "dval_pool_stats_get")
        tail = "\n    dval_cancel *cancel;" if self.has_cancel else ""
        if self.has_isolation:
            tail += ("\n    int32_t isolation; int32_t sandbox_ttl_minutes;"
                     "\n    int32_t cpu; int32_t memory_gib; int32_t disk_gib;")
        # libraries with verdicts also have the build phase's command
        self.has_verdicts = self.has_isolation and _has_symbol(path, "dval_verdict_name")
        if self.has_verdicts:
            tail += "\n    const char *build_command;"
        # ... and those with services their services and seeds after it
        self.has_services = self.has_verdicts and _has_symbol(path, "dval_service_names")
        more = _SERVICES_FIELDS if self.has_services else ""
        self.has_limits = self.has_services and _has_symbol(path, "dval_validate_result")
        limits = _LIMITS_FIELDS if self.has_limits else ""
        with_inputs = tail + more + limits + _INPUTS_FIELDS
        self.has_inputs = self.has_limits and \
            _validation_size(path) >= _sizeof_validation(with_inputs)
        if self.has_inputs:
            limits += _INPUTS_FIELDS
        self.has_profile_load = _has_symbol(path, "dval_profile_load")
        self.has_differential = _has_symbol(path, "dval_differential")
        self.ffi = ffi = FFI()
        ffi.cdef(_STRUCTS + _VALIDATION % (tail + more + limits)
                 + _FUNCS + (_CANCEL_FUNCS if self.has_cancel else "")
                 + (_POOL % more if self.has_pool else "")
                 + (_POOL_STATS if self.has_pool_stats else "")
                 + (_SERVICES_FUNCS if self.has_services else "")
                 + (_PROFILE_LOAD_FUNCS if self.has_profile_load else "")
                 + (_DIFFERENTIAL_FUNCS if self.has_differential else ""))
        self.lib = ffi.dlopen(path)
        self.NULL = ffi.NULL

    def _s(self, p: Any) -> str:
        return self.ffi.string(p).decode("utf-8", "replace") if p != self.ffi.NULL else ""

    def _b(self, s: Optional[str]) -> Any:
        return self.ffi.NULL if s is None else (s if isinstance(s, bytes) else str(s).encode())

    def _fill(self, st: Any, ctype: str, opts: Dict[str, Any], keep: List[Any]) -> None:
        names = {f[0] for f in self.ffi.typeof(ctype).fields}
        for k, v in opts.items():
            if k not in names:
                raise ValueError("%s has no field %r" % (ctype, k))
            if v is None:
                continue
            if isinstance(v, (list, tuple)):
                if not v:
                    continue
                items = [self.ffi.new("char[]", self._b(x)) for x in v]
                arr = self.ffi.new("char *[]", items + [self.ffi.NULL])
                keep += items + [arr]
                setattr(st, k, arr)
            elif isinstance(v, (str, bytes)):
                p = self.ffi.new("char[]", self._b(v))
                keep.append(p)
                setattr(st, k, p)
            else:
                setattr(st, k, int(v))

    def _new(self, ctype: str, init: str) -> Tuple[int, Any]:
        st = self.ffi.new(ctype + " *")
        return getattr(self.lib, init)(st, self.ffi.sizeof(ctype)), st

    def layout(self, struct: str, field: str) -> int:
        return self.ffi.sizeof(struct) if field == "sizeof" else self.ffi.offsetof(struct, field)

    def version(self) -> str:
        return self._s(self.lib.dval_version())

    def strerror(self, rc: int) -> str:
        return self._s(self.lib.dval_strerror(rc))

    def status_name(self, rc: int) -> str:
        return self._s(self.lib.dval_status_name(rc))

    def sandbox_state_name(self, st: int) -> str:
        return self._s(self.lib.dval_sandbox_state_name(st))

    def snapshot_state_name(self, st: int) -> str:
        return self._s(self.lib.dval_snapshot_state_name(st))

    def profile_names(self) -> List[str]:
        return self._names(self.lib.dval_profile_names)

    def service_names(self) -> List[str]:
        return self._names(self.lib.dval_service_names) if self.has_services else []

    def profile_load(self, path: str) -> Tuple[int, str, str]:
        name = self.ffi.new("const char **")
        err = self.ffi.new("char[]", 1024)
        rc = self.lib.dval_profile_load(path.encode(), name, err, 1024)
        return rc, self._s(name[0]) if rc == 0 else "", self._s(err)

    def differential(self, original: str, translation: str,
                     opts: Dict[str, Any]) -> Tuple[int, int, Optional[str]]:
        """dval_differential: (status, outcome, report JSON)."""
        o = self.ffi.new("dval_compare_options *")
        rc = self.lib.dval_compare_options_init(o, self.ffi.sizeof("dval_compare_options"))
        keep = []
        ignore = opts.get("ignore")
        if ignore:
            keep = [self.ffi.new("char[]", i.encode()) for i in ignore]
            arr = self.ffi.new("const char *[]", keep + [self.ffi.NULL])
            keep.append(arr)
            o.ignore = arr
        for k in ("abs_tolerance", "rel_tolerance", "max_diffs"):
            if opts.get(k) is not None:
                setattr(o, k, opts[k])
        outcome, rep = self.ffi.new("int *"), self.ffi.new("char **")
        if rc == 0:
            rc = self.lib.dval_differential(outcome, rep, original.encode(),
                                            translation.encode(), o)
        text = self._s(rep[0]) if rep[0] != self.ffi.NULL else None
        if rep[0] != self.ffi.NULL:
            self.lib.dval_free(rep[0])
        return rc, outcome[0], text

    def _names(self, fn: Any) -> List[str]:
        p = self.ffi.new("const char *const **")
        if fn(p) != 0 or p[0] == self.ffi.NULL:
            return []
        out, i = [], 0
        while p[0][i] != self.ffi.NULL:
            out.append(self._s(p[0][i]))
            i += 1
        return out

    def getter(self, fname: str, h: Any) -> Any:
        r = getattr(self.lib, fname)(h)
        return self._s(r) if isinstance(r, self.ffi.CData) else r

    def call(self, fname: str, *args: Any) -> int:
        return getattr(self.lib, fname)(*[self._b(a) if isinstance(a, str) else a for a in args])

    def client_new(self, opts: Dict[str, Any], daytona: Dict[str, Any],
                   local: Dict[str, Any], log: Optional[Callable[[int, str], None]]) \
            -> Tuple[int, Any, Any]:
        rc, o = self._new("dval_client_options", "dval_client_options_init")
        rc2, d = self._new("dval_daytona_options", "dval_daytona_options_init")
        rc3, lo = self._new("dval_local_options", "dval_local_options_init")
        if rc or rc2 or rc3:
            return rc or rc2 or rc3, None, None
        keep: List[Any] = []
        self._fill(o, "dval_client_options", opts, keep)
        self._fill(d, "dval_daytona_options", daytona, keep)
        self._fill(lo, "dval_local_options", local, keep)
        o.daytona, o.local = d, lo  # read during the call only
        cb = None
        if log is not None:
            def logfn(level: int, msg: Any, _ud: Any) -> None:
                log(level, self._s(msg))
            cb = self.ffi.callback("dval_log_fn", logfn)
            o.log_fn = cb
        out = self.ffi.new("dval_client **")
        rc = self.lib.dval_client_new(out, o)
        return rc, (out[0] if rc == 0 else None), cb

    def snapshot_ensure(self, client: Any, spec: Dict[str, Any],
                        on_log: Optional[Callable[[bytes], int]]) -> Tuple[int, Any]:
        rc, s = self._new("dval_snapshot_spec", "dval_snapshot_spec_init")
        if rc:
            return rc, None
        keep: List[Any] = []
        self._fill(s, "dval_snapshot_spec", spec, keep)
        fn = self.ffi.callback("dval_data_fn", lambda d, n, _u: on_log(self.ffi.buffer(d, n)[:]),
                               error=1) if on_log else self.ffi.NULL
        out = self.ffi.new("dval_snapshot **")
        rc = self.lib.dval_snapshot_ensure(out, client, s, fn, self.ffi.NULL)
        return rc, (out[0] if rc == 0 else None)

    def get(self, what: str, client: Any, name: str) -> Tuple[int, Any]:
        out = self.ffi.new("dval_%s **" % what)
        rc = getattr(self.lib, "dval_%s_get" % what)(out, client, self._b(name))
        return rc, (out[0] if rc == 0 else None)

    def sandbox_acquire(self, client: Any, opts: Dict[str, Any],
                        on_state: Optional[Callable[[str, int], None]]) -> Tuple[int, Any, Any]:
        rc, o = self._new("dval_sandbox_options", "dval_sandbox_options_init")
        if rc:
            return rc, None, None
        keep: List[Any] = []
        self._fill(o, "dval_sandbox_options", opts, keep)
        cb = None
        if on_state is not None:
            def state(n: Any, st: int, _ud: Any) -> None:
                on_state(self._s(n), st)  # void: the result is dropped
            cb = self.ffi.callback("dval_state_fn", state)
            o.on_state = cb
        out = self.ffi.new("dval_sandbox **")
        rc = self.lib.dval_sandbox_acquire(out, client, o)
        return rc, (out[0] if rc == 0 else None), cb

    def sandbox_upload(self, sb: Any, path: str, data: bytes) -> int:
        return self.lib.dval_sandbox_upload(sb, self._b(path), self.ffi.from_buffer(data), len(data))

    def sandbox_download(self, sb: Any, path: str) -> Tuple[int, bytes]:
        p, n = self.ffi.new("char **"), self.ffi.new("size_t *")
        rc = self.lib.dval_sandbox_download(sb, self._b(path), p, n)
        try:
            return rc, (self.ffi.buffer(p[0], n[0])[:] if rc == 0 and n[0] else b"")
        finally:
            self.lib.dval_free(p[0])

    def sandbox_download_to(self, sb: Any, path: str, sink: Callable[[bytes], int]) -> int:
        fn = self.ffi.callback("dval_data_fn", lambda d, n, _u: sink(self.ffi.buffer(d, n)[:]),
                               error=1)
        return self.lib.dval_sandbox_download_to(sb, self._b(path), fn, self.ffi.NULL)

    def sandbox_download_json(self, sb: Any, path: str) -> Tuple[int, str]:
        p = self.ffi.new("char **")
        rc = self.lib.dval_sandbox_download_json(sb, self._b(path), p)
        try:
            return rc, (self.ffi.string(p[0]).decode("utf-8") if rc == 0 else "")
        finally:
            self.lib.dval_free(p[0])

    def sandbox_list(self, client: Any, labels: Optional[List[str]],
                     each: Callable[[str, str, int], int]) -> int:
        keep: List[Any] = []
        arr = self.ffi.NULL
        if labels:
            keep = [self.ffi.new("char[]", self._b(x)) for x in labels]
            arr = self.ffi.new("char *[]", keep + [self.ffi.NULL])
        fn = self.ffi.callback("dval_sandbox_list_fn",
                               lambda i, n, st, _u: each(self._s(i), self._s(n), st), error=1)
        return self.lib.dval_sandbox_list(client, arr, fn, self.ffi.NULL)

    def session_open(self, sb: Any) -> Tuple[int, Any]:
        out = self.ffi.new("dval_session **")
        rc = self.lib.dval_session_open(out, sb)
        return rc, (out[0] if rc == 0 else None)

    def session_exec(self, s: Any, command: str, opts: Dict[str, Any],
                     on_output: Optional[Callable[[int, str, bytes], int]]) -> Tuple[int, int]:
        o = self.ffi.new("dval_exec_options *")
        # limits and usage (kept NULL) exist only in a library with limits
        size = self.ffi.sizeof("dval_exec_options") if self.has_limits else \
            self.ffi.offsetof("dval_exec_options", "limits")
        rc = self.lib.dval_exec_options_init(o, size)
        if rc:
            return rc, -1
        keep: List[Any] = []
        self._fill(o, "dval_exec_options", opts, keep)
        fn = self.ffi.callback("dval_output_fn", lambda st, ch, d, n, _u: on_output(
            st, self._s(ch), self.ffi.buffer(d, n)[:] if n else b""),
            error=1) if on_output else self.ffi.NULL
        code = self.ffi.new("int *", -1)
        rc = self.lib.dval_session_exec(s, self._b(command), o, fn, self.ffi.NULL, code)
        return rc, code[0]

    def validate(self, client: Any, req: Dict[str, Any],
                 on_event: Callable[[Tuple[Any, ...]], int],
                 cancel: Any = None, pool: Any = None) -> Tuple[int, Optional[str]]:
        """dval_validate on ``client``, or dval_pool_validate on ``pool``."""
        rc, st = self._new("dval_validation", "dval_validation_init")
        if rc:
            return rc, None
        keep: List[Any] = []
        self._fill(st, "dval_validation", req, keep)
        if cancel is not None:
            st.cancel = cancel
        N = self.ffi.NULL

        def ev(e: Any, _ud: Any) -> int:
            data = self.ffi.buffer(e.data, e.len)[:] if e.data != N and e.len else b""
            return on_event((e.type, self._s(e.phase), e.done, e.status, e.elapsed_ms,
                             e.stream, self._s(e.channel), data, e.state,
                             self._s(e.detail) if e.detail != N else None))
        fn = self.ffi.callback("dval_event_fn", ev, error=1)
        out = self.ffi.new("char **")
        if pool is not None:
            rc = self.lib.dval_pool_validate(pool, st, fn, N, out)
        else:
            rc = self.lib.dval_validate(client, st, fn, N, out)
        try:
            text = self.ffi.string(out[0]).decode("utf-8") if out[0] != N else None
        finally:
            self.lib.dval_free(out[0])
        return rc, text

    def pool_new(self, client: Any, opts: Dict[str, Any]) -> Tuple[int, Any]:
        rc, o = self._new("dval_pool_options", "dval_pool_options_init")
        if rc:
            return rc, None
        keep: List[Any] = []
        self._fill(o, "dval_pool_options", opts, keep)   # the pool copies the strings
        out = self.ffi.new("dval_pool **")
        rc = self.lib.dval_pool_new(out, client, o)
        return rc, (out[0] if rc == 0 else None)

    def pool_stats(self, pool: Any) -> Tuple[int, Dict[str, int]]:
        st = self.ffi.new("dval_pool_stats *")
        rc = self.lib.dval_pool_stats_get(pool, st, self.ffi.sizeof("dval_pool_stats"))
        names = [f[0] for f in self.ffi.typeof("dval_pool_stats").fields][1:]
        return rc, {n: int(getattr(st, n)) for n in names}

    def cancel_new(self) -> Tuple[int, Any]:
        out = self.ffi.new("dval_cancel **")
        rc = self.lib.dval_cancel_new(out)
        return rc, (out[0] if rc == 0 else None)
