"""The object API shared by both backends: Client, Snapshot, Sandbox, Session.

Handles follow the C library's rules: children keep their parent alive, so
objects may be closed (or garbage-collected) in any order; ``close()`` frees
memory and never does I/O; remote actions (``delete``, ``stop``,
``close_remote``) are separate calls that can fail.

A callback stops the C call only when it returns :data:`dval.STOP` or
raises; whatever else it returns (a print function's count, ``True``) lets
the call go on. A raised exception is re-raised when the call returns.
"""
import json
import os
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from ._enums import STOP, Network, Release, SandboxState, SnapshotState, Stream, to_enum
from ._loader import get_backend
from .errors import DvalError, error_for

__all__ = ["Client", "Snapshot", "Sandbox", "Session", "SandboxInfo", "version",
           "strerror", "profile_names", "service_names", "profile_load"]

OutputFn = Callable[[Stream, str, bytes], Any]


def version(backend: Optional[str] = None) -> str:
    """The run-time library version, e.g. ``"1.0.0"``."""
    return get_backend(backend).version()


def strerror(status: int, backend: Optional[str] = None) -> str:
    """English text for a status code."""
    return get_backend(backend).strerror(int(status))


def profile_names(backend: Optional[str] = None) -> List[str]:
    """Names of the built-in and registered validation profiles."""
    return get_backend(backend).profile_names()


def service_names(backend: Optional[str] = None) -> List[str]:
    """Names of the services a validation may ask for (``services=``):
    "postgres", "sqlite"; empty with a library that has none."""
    return get_backend(backend).service_names()


def profile_load(path: str, backend: Optional[str] = None) -> str:
    """Loads a profile file (JSON: name, image, run_command, build steps,
    files, services, ...; see dval_profile_load(3)) and registers it for
    this process; returns its name, for ``validate(name, ...)``. Raises
    :class:`DvalError` naming the file and the mistake."""
    b = get_backend(backend)
    if not getattr(b, "has_profile_load", False):
        raise NotImplementedError("this library cannot load profile files "
                                  "(it has no dval_profile_load)")
    rc, name, err = b.profile_load(os.fspath(path))
    if rc:
        _raise(b, rc, err)
    return name


def _raise(b: Any, rc: int, msg: str = "") -> None:
    raise error_for(rc, msg or b.strerror(rc), b.status_name(rc))


class _Guard:
    """Wraps Python callbacks for one C call: an exception becomes a stop
    (return 1) and is re-raised by :meth:`reraise` after the call."""

    def __init__(self) -> None:
        self.pending: Optional[BaseException] = None

    def wrap(self, fn: Callable[..., Any], stops: bool = True) -> Callable[..., int]:
        def wrapper(*a: Any) -> int:
            if self.pending is not None:
                return 1
            try:
                r = fn(*a)
                return 1 if stops and r is STOP else 0
            except BaseException as e:  # re-raised after the call
                self.pending = e
                return 1
        return wrapper

    def reraise(self) -> None:
        e, self.pending = self.pending, None
        if e is not None:
            raise e


class _Handle:
    _free_fn = ""

    def __init__(self, b: Any, h: Any, parent: Any = None) -> None:
        self._b = b
        self._h = h
        self._parent = parent  # the C library keeps its own reference too

    def close(self) -> None:
        """Frees the handle (memory only, no I/O). Idempotent."""
        h, self._h = self._h, None
        if h:
            self._b.call(self._free_fn, h)

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    @property
    def handle(self) -> Any:
        """The C handle (raises ValueError once closed)."""
        if not self._h:
            raise ValueError("%s is closed" % type(self).__name__)
        return self._h

    def _str(self, fname: str) -> str:
        return self._b.getter(fname, self.handle)


class SandboxInfo(Tuple[str, str, Union[SandboxState, int]]):
    """One row of :meth:`Client.list_sandboxes`: (id, name, state)."""

    @property
    def id(self) -> str:
        """Sandbox id."""
        return self[0]

    @property
    def name(self) -> str:
        """Sandbox name."""
        return self[1]

    @property
    def state(self) -> Union[SandboxState, int]:
        """Sandbox state."""
        return self[2]


_DAYTONA_FIELDS = frozenset(("ca_bundle", "insecure_skip_tls_verify",
                             "connect_timeout_ms", "request_timeout_ms"))
_LOCAL_FIELDS = frozenset(("helper_path", "max_pids", "max_memory_bytes", "max_cpu_ms",
                           "host_root"))


class Client(_Handle):
    """A connection to one executor ("daytona" or "local"); thread-safe.

    Args:
        executor: "daytona", "local" or None (daytona when DAYTONA_API_KEY or
            a JWT is configured, else local).
        api_url, api_key, jwt_token, organization_id, target: the daytona
            executor's settings (dval_daytona_options; None: the DAYTONA_*
            environment variables).
        state_dir: the local executor's state directory (dval_local_options).
        allow_unisolated: the local executor may run without namespaces.
        log: ``log(level, message)`` for diagnostics (exceptions ignored).
        log_level: a :class:`LogLevel` (default INFO).
        backend: "ctypes" or "cffi" (default: :func:`dval.backend_name`).
        **numbers: other fields of dval_client_options,
            dval_daytona_options or dval_local_options by C name, e.g.
            ``retry_attempts=3``, ``request_timeout_ms=20000``.
    """
    _free_fn = "dval_client_free"

    def __init__(self, executor: Optional[str] = None, *, api_url: Optional[str] = None,
                 api_key: Optional[str] = None, jwt_token: Optional[str] = None,
                 organization_id: Optional[str] = None, target: Optional[str] = None,
                 state_dir: Optional[str] = None, allow_unisolated: bool = False,
                 log: Optional[Callable[[int, str], Any]] = None, log_level: int = 0,
                 backend: Optional[str] = None, **numbers: int) -> None:
        b = get_backend(backend)
        opts: Dict[str, Any] = dict(executor=executor, log_level=int(log_level))
        daytona: Dict[str, Any] = dict(api_url=api_url, api_key=api_key, jwt_token=jwt_token,
                                       organization_id=organization_id, target=target)
        local: Dict[str, Any] = dict(state_dir=state_dir, allow_unisolated=allow_unisolated)
        for k, v in numbers.items():  # each executor's fields go to its own struct
            (daytona if k in _DAYTONA_FIELDS else local if k in _LOCAL_FIELDS else opts)[k] = v
        safe_log = None
        if log is not None:
            def safe_log(level: int, msg: str) -> None:
                try:
                    log(level, msg)
                except Exception:
                    pass  # a log callback cannot stop the call
        rc, h, self._log_cb = b.client_new(opts, daytona, local, safe_log)
        if rc:
            _raise(b, rc)
        super().__init__(b, h)

    @property
    def backend(self) -> str:
        """The FFI backend this client uses ("ctypes" or "cffi")."""
        return self._b.name

    @property
    def errmsg(self) -> str:
        """The last error message of this client on this thread."""
        return self._str("dval_client_errmsg")

    @property
    def executor_name(self) -> str:
        """"daytona", "local" or a custom executor's name."""
        return self._str("dval_client_executor_name")

    def _check(self, rc: int) -> None:
        if rc:
            _raise(self._b, rc, self.errmsg)

    def snapshot_ensure(self, name: str, image: Optional[str] = None,
                        build_commands: Optional[List[str]] = None,
                        dockerfile: Optional[str] = None,
                        on_build_log: Optional[Callable[[bytes], Any]] = None,
                        rebuild_failed: bool = False, build_timeout_ms: int = 0) -> "Snapshot":
        """Gets or builds a snapshot and waits until it is active; build
        output goes to ``on_build_log(bytes)`` (returning ``dval.STOP`` stops)."""
        g = _Guard()
        spec = dict(name=name, image=image, build_commands=build_commands,
                    dockerfile=dockerfile, rebuild_failed=rebuild_failed,
                    build_timeout_ms=build_timeout_ms)
        rc, h = self._b.snapshot_ensure(self.handle, spec, g.wrap(on_build_log)
                                        if on_build_log else None)
        g.reraise()
        self._check(rc)
        return Snapshot(self._b, h, self)

    def snapshot_get(self, name_or_id: str) -> "Snapshot":
        """Looks a snapshot up without creating it (DvalNotFound if absent)."""
        rc, h = self._b.get("snapshot", self.handle, name_or_id)
        self._check(rc)
        return Snapshot(self._b, h, self)

    def sandbox_acquire(self, name: str, snapshot: Optional[str] = None,
                        image: Optional[str] = None, labels: Optional[List[str]] = None,
                        env: Optional[List[str]] = None, release: Release = Release.KEEP,
                        network: Network = Network.DEFAULT,
                        on_state: Optional[Callable[[str, Union[SandboxState, int]], Any]] = None,
                        **numbers: int) -> "Sandbox":
        """Gets or creates a sandbox and brings it to STARTED.

        ``release`` is what leaving ``with`` (or :meth:`Sandbox.release`)
        does: KEEP (the default) leaves the sandbox running after your
        program ends, for the next run; STOP stops it; DELETE removes it.
        ``labels``/``env`` are "key=value" strings; ``**numbers`` are other
        dval_sandbox_options fields by C name (``create_timeout_ms``, ...).
        """
        g = _Guard()
        opts: Dict[str, Any] = dict(name=name, snapshot=snapshot, image=image, labels=labels,
                                    env=env, release=int(release), network=int(network))
        opts.update(numbers)
        state_cb = None
        if on_state is not None:
            state_cb = g.wrap(lambda n, st: on_state(n, to_enum(SandboxState, st)), stops=False)
        rc, h, keep = self._b.sandbox_acquire(self.handle, opts, state_cb)
        g.reraise()
        self._check(rc)
        sb = Sandbox(self._b, h, self)
        sb._state_keep = (keep, g)
        return sb

    def sandbox_get(self, name_or_id: str) -> "Sandbox":
        """Attaches to an existing sandbox without starting it (e.g. to
        delete it); DvalNotFound if absent. Its release policy is KEEP."""
        rc, h = self._b.get("sandbox", self.handle, name_or_id)
        self._check(rc)
        return Sandbox(self._b, h, self)

    def list_sandboxes(self, labels: Optional[List[str]] = None) -> List[SandboxInfo]:
        """Sandboxes carrying all the given "key=value" labels (None: all)."""
        out: List[SandboxInfo] = []
        g = _Guard()
        rc = self._b.sandbox_list(self.handle, labels, g.wrap(
            lambda i, n, st: out.append(SandboxInfo((i, n, to_enum(SandboxState, st))))))
        g.reraise()
        self._check(rc)
        return out


class Snapshot(_Handle):
    """A snapshot handle (from :meth:`Client.snapshot_ensure`)."""
    _free_fn = "dval_snapshot_free"

    @property
    def name(self) -> str:
        """Snapshot name."""
        return self._str("dval_snapshot_name")

    @property
    def id(self) -> str:
        """Snapshot id."""
        return self._str("dval_snapshot_id")

    @property
    def state(self) -> Union[SnapshotState, int]:
        """State when last read."""
        return to_enum(SnapshotState, self._b.getter("dval_snapshot_state", self.handle))

    def delete(self) -> None:
        """Deletes the snapshot remotely (the handle stays valid)."""
        rc = self._b.call("dval_snapshot_delete", self.handle)
        if rc:
            _raise(self._b, rc, self._parent.errmsg)


class Sandbox(_Handle):
    """A started sandbox. ``with`` applies the release policy chosen at
    acquire time on exit (KEEP by default: the sandbox keeps running), then
    frees the handle. Use one thread at a time; its sessions may run in
    different threads concurrently."""
    _free_fn = "dval_sandbox_free"
    _state_keep: Any = None

    @property
    def id(self) -> str:
        """Sandbox id."""
        return self._str("dval_sandbox_id")

    @property
    def name(self) -> str:
        """Sandbox name."""
        return self._str("dval_sandbox_name")

    @property
    def state(self) -> Union[SandboxState, int]:
        """State when last read (see :meth:`refresh`)."""
        return to_enum(SandboxState, self._b.getter("dval_sandbox_state", self.handle))

    @property
    def errmsg(self) -> str:
        """The last error message on this sandbox."""
        return self._str("dval_sandbox_errmsg")

    def _call(self, fname: str, *args: Any) -> None:
        rc = self._b.call(fname, self.handle, *args)
        if self._state_keep:
            self._state_keep[1].reraise()
        if rc:
            _raise(self._b, rc, self.errmsg)

    def refresh(self) -> Union[SandboxState, int]:
        """Re-reads and returns the state."""
        self._call("dval_sandbox_refresh")
        return self.state

    def start(self) -> None:
        """Starts the sandbox."""
        self._call("dval_sandbox_start")

    def stop(self) -> None:
        """Stops the sandbox."""
        self._call("dval_sandbox_stop")

    def delete(self) -> None:
        """Deletes the sandbox."""
        self._call("dval_sandbox_delete")

    def release(self, policy: Optional[Release] = None) -> None:
        """Applies ``policy``, or the one given at acquire time (KEEP: does
        nothing, the sandbox stays up; STOP; DELETE)."""
        if policy is None:
            self._call("dval_sandbox_release")
        elif policy == Release.STOP:
            self.stop()
        elif policy == Release.DELETE:
            self.delete()

    def mkdir(self, path: str) -> None:
        """Creates a directory (and its parents)."""
        self._call("dval_sandbox_mkdir", path)

    def upload(self, path: str, data: Union[bytes, str]) -> None:
        """Writes ``data`` to ``path`` in the sandbox."""
        raw = data.encode() if isinstance(data, str) else bytes(data)
        rc = self._b.sandbox_upload(self.handle, path, raw)
        if rc:
            _raise(self._b, rc, self.errmsg)

    def upload_json(self, path: str, obj: Any) -> None:
        """Uploads ``obj`` as JSON."""
        self.upload(path, json.dumps(obj).encode())

    def upload_file(self, path: str, local_path: str) -> None:
        """Uploads a local file."""
        self._call("dval_sandbox_upload_file", path, local_path)

    def download(self, path: str) -> bytes:
        """Reads a whole file."""
        rc, data = self._b.sandbox_download(self.handle, path)
        if rc:
            _raise(self._b, rc, self.errmsg)
        return data

    def download_to(self, path: str, sink: Callable[[bytes], Any]) -> None:
        """Streams a file to ``sink(bytes)`` in chunks (returning ``dval.STOP`` stops)."""
        g = _Guard()
        rc = self._b.sandbox_download_to(self.handle, path, g.wrap(sink))
        g.reraise()
        if rc:
            _raise(self._b, rc, self.errmsg)

    def download_file(self, path: str, local_path: str) -> None:
        """Downloads to a local file."""
        self._call("dval_sandbox_download_file", path, local_path)

    def download_json(self, path: str) -> Any:
        """Downloads a file checked as UTF-8 JSON and parses it."""
        rc, text = self._b.sandbox_download_json(self.handle, path)
        if rc:
            _raise(self._b, rc, self.errmsg)
        return json.loads(text)

    def open_session(self) -> "Session":
        """Opens a session named ``<sandbox name>-<uuid4>``."""
        rc, h = self._b.session_open(self.handle)
        if rc:
            _raise(self._b, rc, self.errmsg)
        return Session(self._b, h, self)

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        try:
            if self._h:
                try:
                    self.release()
                except DvalError:
                    if exc_type is None:
                        raise
        finally:
            self.close()


class Session(_Handle):
    """Runs commands one after the other; ``cancel`` works from any thread.
    ``with`` deletes the remote session on exit."""
    _free_fn = "dval_session_free"

    @property
    def id(self) -> str:
        """Session id ``<sandbox name>-<uuid4>``."""
        return self._str("dval_session_id")

    @property
    def errmsg(self) -> str:
        """The last error message on this session."""
        return self._str("dval_session_errmsg")

    def exec(self, command: str, on_output: Optional[OutputFn] = None,
             cwd: Optional[str] = None, timeout_ms: int = 0,
             channel_prefix: Optional[str] = None,
             env: Optional[Dict[str, str]] = None) -> int:
        """Runs ``command`` and returns its exit code; ``on_output(stream,
        channel, data)`` gets live output (returning ``dval.STOP`` stops the call).
        ``env`` adds variables to this command's environment, as data (no
        shell expands the values)."""
        g = _Guard()
        fn = g.wrap(lambda st, ch, d: on_output(to_enum(Stream, st), ch, d)) if on_output else None
        pairs = ["%s=%s" % kv for kv in env.items()] if env else None
        rc, code = self._b.session_exec(self.handle, command, dict(
            cwd=cwd, timeout_ms=timeout_ms, channel_prefix=channel_prefix,
            env=pairs), fn)
        g.reraise()
        if rc:
            _raise(self._b, rc, self.errmsg)
        return code

    def cancel(self) -> None:
        """Any thread: the running exec raises DvalCanceled."""
        rc = self._b.call("dval_session_cancel", self.handle)
        if rc:
            _raise(self._b, rc)

    def close_remote(self) -> None:
        """Deletes the remote session (kills what is left in it)."""
        rc = self._b.call("dval_session_close", self.handle)
        if rc:
            _raise(self._b, rc, self.errmsg)

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        try:
            if self._h:
                try:
                    self.close_remote()
                except DvalError:
                    if exc_type is None:
                        raise
        finally:
            self.close()
