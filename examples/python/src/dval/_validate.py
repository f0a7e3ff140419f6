"""dval.validate(): the whole loop in one call, and its asyncio façade."""
import asyncio
import base64
import functools
import json
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from ._core import Client, _Guard, _raise
from ._enums import STOP, EventType, Release, SandboxState, Status, Stream, to_enum
from ._loader import get_backend
from .errors import DvalError, error_for

__all__ = ["ValidationResult", "Event", "CancelToken", "supports_cancel", "validate",
           "avalidate", "ISOLATION_LEVELS"]

#: isolation levels (``enum dval_isolation``): "session" shares the
#: profile's sandbox (a session and /sandbox/<thread_id> each: keeps honest
#: programs apart, not hostile ones); "sandbox" gives the validation a
#: sandbox of its own, created for it and deleted after it.
ISOLATION_LEVELS: Tuple[str, ...] = ("session", "sandbox")


@dataclass
class Event:
    """A progress event of :func:`validate` (``struct dval_event``)."""
    type: Union[EventType, int]
    phase: str
    done: bool = False
    status: Union[Status, int] = Status.OK
    elapsed_ms: int = 0
    stream: Union[Stream, int] = 0
    channel: str = ""
    data: bytes = b""
    state: Union[SandboxState, int] = SandboxState.UNKNOWN
    detail: Optional[str] = None


@dataclass
class ValidationResult:
    """What a validation produced.

    Attributes:
        status: OK, or ERESULTS when the program ran but its results were
            missing or invalid (the valid ones are still in ``results``).
        exit_code: the program's exit code (128+N for signal N); None when
            it did not run to the end.
        results: ``{"<file>.json": parsed document}`` from
            ``/sandbox/<thread_id>/results/``.
        files: ``{"<file>": bytes}``: every other plain file (not *.json)
            the program wrote there, byte-exact (library 0.1.7 or later;
            empty with an older one). They are no results.
        stdout, stderr: the program's output, decoded as UTF-8 (invalid
            bytes replaced); ``stdout_bytes``/``stderr_bytes`` are raw.
        timings: milliseconds per phase ("snapshot", ..., "total").
        errors: messages about results that could not be read.
        verdict: the one word a pipeline branches on: "passed",
            "compile_error", "runtime_error", "time_limit", "memory_limit",
            "output_limit", "results_missing", "results_invalid",
            "runtime_unsupported", "wrong_results", "canceled" or
            "infrastructure_error"; ``verdict_detail`` says why.
        phases: the summary's ``phases`` ("build", "run": exit_code,
            wall_ms, output and ``usage``: cpu_ms, peak_memory_bytes, ...).
        summary: the library's JSON summary as it gave it (what
            :func:`differential` judges).
    """
    status: Union[Status, int]
    exit_code: Optional[int]
    results: Dict[str, Any]
    stdout_bytes: bytes = b""
    stderr_bytes: bytes = b""
    timings: Dict[str, int] = field(default_factory=dict)
    thread_id: Optional[str] = None
    sandbox: Optional[str] = None
    session: Optional[str] = None
    executor: Optional[str] = None
    profile: Optional[str] = None
    errors: List[str] = field(default_factory=list)
    verdict: Optional[str] = None
    verdict_detail: Optional[str] = None
    phases: Dict[str, Any] = field(default_factory=dict)
    files: Dict[str, bytes] = field(default_factory=dict)
    summary: Optional[str] = None

    @property
    def stdout(self) -> str:
        """Standard output as text."""
        return self.stdout_bytes.decode("utf-8", "replace")

    @property
    def stderr(self) -> str:
        """Standard error as text."""
        return self.stderr_bytes.decode("utf-8", "replace")

    @property
    def ok(self) -> bool:
        """True when the program exited 0 and all its results were valid."""
        return self.status == Status.OK and self.exit_code == 0


def supports_cancel(backend: Optional[str] = None) -> bool:
    """True when the loaded library has the cancel token (dval_cancel_new):
    then :class:`CancelToken` works and :func:`avalidate` cancels promptly."""
    return bool(get_backend(backend).has_cancel)


class CancelToken:
    """A cancel token of the C library: :meth:`fire` from any thread makes a
    :func:`validate` that was given this token return DvalCanceled promptly,
    in any phase. Needs a library that exports dval_cancel_new
    (:func:`supports_cancel`); raises NotImplementedError otherwise."""

    def __init__(self, backend: Optional[str] = None) -> None:
        self._b = get_backend(backend)
        self._h: Any = None
        if not self._b.has_cancel:
            raise NotImplementedError(
                "this libdaytona-validate has no cancel token (dval_cancel_new); "
                "upgrade the library, or stop a validation from its on_event callback")
        rc, self._h = self._b.cancel_new()
        if rc:
            _raise(self._b, rc)

    @property
    def handle(self) -> Any:
        """The C handle."""
        return self._h

    def fire(self) -> None:
        """Cancels every validation using this token (any thread, idempotent)."""
        if self._h:
            self._b.call("dval_cancel_fire", self._h)

    @property
    def fired(self) -> bool:
        """Whether :meth:`fire` was called."""
        return bool(self._h and self._b.getter("dval_cancel_fired", self._h))

    def close(self) -> None:
        """Frees the token (after the calls using it returned)."""
        h, self._h = self._h, None
        if h:
            self._b.call("dval_cancel_free", h)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def _isolation(b: Any, isolation: Optional[str]) -> Optional[int]:
    """The dval_validation.isolation value of ``isolation`` (None: the
    library's default, "session")."""
    if isolation is None:
        return None
    if isolation not in ISOLATION_LEVELS:
        raise ValueError("isolation=%r: expected one of %s" %
                         (isolation, ", ".join(ISOLATION_LEVELS)))
    if not getattr(b, "has_pool", False):
        if isolation == "session":
            return None
        raise NotImplementedError(
            "isolation=%r needs a libdaytona-validate with dval_validation.isolation "
            "(0.1.1, the one that exports dval_pool_new); this one has only \"session\"" %
            isolation)
    return ISOLATION_LEVELS.index(isolation)


def _services(b: Any, req: Dict[str, Any], services: Optional[List[str]],
              seeds: Optional[List[str]]) -> None:
    """Adds ``services`` and ``seeds`` to a request (or pool options)."""
    if not services and not seeds:
        return
    if not getattr(b, "has_services", False):
        raise NotImplementedError(
            "services need a libdaytona-validate with dval_validation.services (the "
            "one that exports dval_service_names)")
    req["services"] = [str(s) for s in services or []]
    req["seeds"] = [str(s) for s in seeds or []]


def _limits(b: Any, req: Dict[str, Any], memory_mib: Optional[int],
            max_processes: Optional[int], cpu_time: Optional[float],
            output_bytes: Optional[int], expected: Optional[Union[str, bytes]],
            expected_file: Optional[str]) -> None:
    """Adds the validation's own limits and expected result to a request."""
    given = dict(memory_mib=memory_mib, max_processes=max_processes,
                 cpu_time_ms=int(cpu_time * 1000) if cpu_time else None,
                 output_bytes=output_bytes, expected_file=expected_file)
    if expected is not None:
        data = expected.encode() if isinstance(expected, str) else bytes(expected)
        given.update(expected=data, expected_len=len(data))
    given = {k: v for k, v in given.items() if v is not None}
    if not given:
        return
    if not getattr(b, "has_limits", False):
        raise NotImplementedError(
            "limits and expected results need a libdaytona-validate with "
            "dval_validation.memory_mib (the one that exports dval_validate_result)")
    req.update(given)


def _inputs(b: Any, req: Dict[str, Any], args: Optional[List[str]],
            stdin: Optional[Union[str, bytes]], results_bytes: Optional[int] = None) -> None:
    """Adds the run phase's arguments and stdin, and the bound on the
    results, to a request."""
    if args is None and stdin is None and results_bytes is None:
        return
    if not getattr(b, "has_inputs", False):
        raise NotImplementedError(
            "args and stdin need a libdaytona-validate with dval_validation.args "
            "(0.1.7)")
    if args:
        req["args"] = [str(a) for a in args]
    if stdin is not None:
        data = stdin.encode() if isinstance(stdin, str) else bytes(stdin)
        req.update(stdin_data=data, stdin_len=len(data))
    if results_bytes is not None:
        req["results_bytes"] = int(results_bytes)


def _files(doc: Dict[str, Any]) -> Dict[str, bytes]:
    """The summary's "files": each entry's text (UTF-8) or base64, as bytes."""
    files = {}
    for name, entry in (doc.get("files") or {}).items():
        if "text" in entry:
            files[name] = entry["text"].encode("utf-8")
        else:
            files[name] = base64.b64decode(entry.get("base64", ""))
    return files


def _result(doc: Dict[str, Any], out: Dict[int, bytearray], status: int,
            summary: Optional[str] = None) -> ValidationResult:
    return ValidationResult(
        status=to_enum(Status, status), exit_code=doc.get("exit_code"),
        results=doc.get("results") or {}, stdout_bytes=bytes(out[1]),
        stderr_bytes=bytes(out[2]), timings=dict(doc.get("timings_ms") or {}),
        thread_id=doc.get("thread_id"), sandbox=doc.get("sandbox"),
        session=doc.get("session"), executor=doc.get("executor"),
        profile=doc.get("profile"), errors=list(doc.get("errors") or []),
        verdict=doc.get("verdict"), verdict_detail=doc.get("verdict_detail"),
        phases=dict(doc.get("phases") or {}), files=_files(doc), summary=summary)


def _event_handler(out: Dict[int, bytearray], timings: Dict[str, int],
                   on_output: Optional[Callable[[Stream, str, bytes], Any]],
                   on_event: Optional[Callable[[Event], Any]],
                   stop: Optional[threading.Event]) -> Callable[..., Any]:
    def handle(t: Tuple[Any, ...]) -> Any:
        if stop is not None and stop.is_set():
            return STOP
        ev = Event(to_enum(EventType, t[0]), t[1], bool(t[2]), to_enum(Status, t[3]), t[4],
                   to_enum(Stream, t[5]), t[6], t[7], to_enum(SandboxState, t[8]), t[9])
        if ev.type == EventType.PHASE and ev.done:
            timings[ev.phase] = ev.elapsed_ms
        stop_now = False
        if ev.type == EventType.OUTPUT and ev.stream in (1, 2):
            out[int(ev.stream)] += ev.data
            if on_output is not None:
                stop_now = on_output(ev.stream, ev.channel, ev.data) is STOP
        if on_event is not None:
            stop_now = on_event(ev) is STOP or stop_now
        return STOP if stop_now else None
    return handle


def validate(profile: str, source_dir: str, *, executor: Optional[str] = None,
             thread_id: Optional[str] = None, timeout: Optional[float] = None,
             isolation: Optional[str] = None,
             on_output: Optional[Callable[[Stream, str, bytes], Any]] = None,
             on_event: Optional[Callable[[Event], Any]] = None,
             release: Release = Release.KEEP, client: Optional[Client] = None,
             sandbox_name: Optional[str] = None, snapshot_name: Optional[str] = None,
             run_command: Optional[str] = None, labels: Optional[List[str]] = None,
             allow_missing_results: bool = False, state_dir: Optional[str] = None,
             cancel: Optional[CancelToken] = None, backend: Optional[str] = None,
             services: Optional[List[str]] = None, seeds: Optional[List[str]] = None,
             memory_mib: Optional[int] = None, max_processes: Optional[int] = None,
             cpu_time: Optional[float] = None, output_bytes: Optional[int] = None,
             expected: Optional[Union[str, bytes]] = None,
             expected_file: Optional[str] = None,
             args: Optional[List[str]] = None,
             stdin: Optional[Union[str, bytes]] = None,
             results_bytes: Optional[int] = None,
             _stop: Optional[threading.Event] = None) -> ValidationResult:
    """Validates one program: snapshot → sandbox → session → upload of
    ``source_dir`` → run (output streamed live) → results → close.

    Args:
        profile: "shell", "java", "dotnet" or a registered profile.
        source_dir: local directory uploaded to ``/sandbox/<thread_id>``.
        executor: "daytona", "local" or None (auto); ignored with ``client``.
        thread_id: safe path component; None → a uuid4.
        timeout: seconds for the program's run (None: no limit).
        isolation: None or "session" (the profile's shared sandbox, one
            session per validation), or "sandbox" (a sandbox created for
            this validation and deleted after it; see ISOLATION_LEVELS).
        on_output: ``on_output(stream, channel, data)`` for live output, on
            the calling thread; returning ``dval.STOP`` stops the validation
            (any other value, e.g. what ``sys.stdout.write`` returns, does not).
        on_event: ``on_event(Event)`` for every progress event.
        release: what happens to the sandbox afterwards. KEEP (the library's
            default) leaves it running after your program ends so the next
            validation starts fast; STOP or DELETE for one-off runs.
        client: reuse a :class:`Client` (recommended for many validations).
        cancel: a :class:`CancelToken` that stops this call from any thread.
        services: services the program gets a fresh database of
            (:func:`service_names`: "postgres", "sqlite"); it finds the
            first one's in ``DVAL_DB_URL``, ``DVAL_DB_ADO``, ``DVAL_DB_JDBC``
            and ``DVAL_DB_HOST/PORT/NAME/USER/PASSWORD``. A service that
            fails makes the program exit 70 with "dval: infrastructure: ..."
            on stderr.
        seeds: host paths of SQL files loaded, in order, into the services'
            seeded data when their snapshot is built (once).
        memory_mib, max_processes, cpu_time (seconds), output_bytes: limits
            of the program's own processes, even in a shared sandbox
            (verdicts "memory_limit", "time_limit", "output_limit"); an
            executor that cannot enforce them raises DvalUnsupported.
        expected: the expected result, compared with the program's stdout
            (text), or with the results file ``expected_file`` (JSON):
            verdict "passed" or "wrong_results".
        args: the program's arguments, appended (each quoted, as it is) to
            the run command; the build gets none.
        stdin: bytes (or text, as UTF-8) given to the run as its stdin;
            None: an empty stdin.
        results_bytes: the most all results files may hold together (as
            the summary holds them; None: the library's 64 MiB); past it
            the verdict is "results_invalid".

    Returns:
        a :class:`ValidationResult` (status OK or ERESULTS; a non-zero exit
        code of the program is not an exception).

    Raises:
        DvalError: any other failure; ``e.result`` holds the output and
        timings collected until then.
    """
    if client is not None and executor is not None:
        raise ValueError("give either client or executor, not both")
    own = client is None
    c = Client(executor, state_dir=state_dir, backend=backend) if own else client
    assert c is not None
    try:
        req: Dict[str, Any] = dict(
            profile=profile, source_dir=str(source_dir), thread_id=thread_id,
            sandbox_name=sandbox_name, snapshot_name=snapshot_name, run_command=run_command,
            timeout_ms=int(timeout * 1000) if timeout else 0, release=int(release),
            labels=labels, allow_missing_results=allow_missing_results)
        _services(c._b, req, services, seeds)
        _limits(c._b, req, memory_mib, max_processes, cpu_time, output_bytes, expected,
                expected_file)
        _inputs(c._b, req, args, stdin, results_bytes)
        return _run(c, None, req, isolation, on_output, on_event, cancel, _stop)
    finally:
        if own:
            c.close()


def _run(c: Client, pool: Any, req: Dict[str, Any], isolation: Optional[str],
         on_output: Optional[Callable[[Stream, str, bytes], Any]],
         on_event: Optional[Callable[[Event], Any]], cancel: Optional[CancelToken],
         stop: Optional[threading.Event]) -> ValidationResult:
    """One dval_validate (``pool`` None) or dval_pool_validate call and its
    result or exception; shared by :func:`validate` and the pool."""
    b = c._b
    iso = _isolation(b, isolation)
    if iso is not None:
        req["isolation"] = iso
    if cancel is not None and not b.has_cancel:
        raise NotImplementedError("this library has no cancel token")
    out = {1: bytearray(), 2: bytearray()}
    timings: Dict[str, int] = {}
    g = _Guard()
    handler = g.wrap(_event_handler(out, timings, on_output, on_event, stop))
    rc, text = b.validate(c.handle, req, handler, cancel.handle if cancel else None, pool=pool)
    msg = c.errmsg if rc else ""
    g.reraise()
    doc = json.loads(text) if text else {}
    if rc in (Status.OK, Status.ERESULTS) and text:
        return _result(doc, out, rc, text)
    err: DvalError = error_for(rc, msg or b.strerror(rc), b.status_name(rc))
    partial = _result(doc, out, rc, text)
    partial.timings.update(timings)
    err.result = partial
    raise err


def _to_loop(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any]) -> Callable[..., None]:
    """A callback that runs ``fn`` on the loop's thread (and never stops the
    validation: it returns None)."""
    def call(*a: Any) -> None:
        loop.call_soon_threadsafe(fn, *a)
    return call


async def avalidate(profile: str, source_dir: str, **kwargs: Any) -> ValidationResult:
    """``await dval.avalidate(...)``: :func:`validate` in a worker thread,
    with the same arguments. ``on_output`` and ``on_event`` are called on the
    event loop's thread (their return value cannot stop the call: cancel the
    task instead).

    Cancelling the task cancels the validation, then waits for it to wind
    down (session closed, sandbox released) before CancelledError
    propagates. With a library that has the cancel token
    (:func:`supports_cancel`) this is prompt in every phase; without it the
    validation stops at its next event (output chunk or phase change), so a
    program that prints nothing runs until it ends or ``timeout``.
    """
    loop = asyncio.get_running_loop()
    stop = threading.Event()
    token: Optional[CancelToken] = None
    if kwargs.get("cancel") is None and supports_cancel(kwargs.get("backend")):
        token = kwargs["cancel"] = CancelToken(kwargs.get("backend"))
    for name in ("on_output", "on_event"):
        fn = kwargs.get(name)
        if fn is not None:
            kwargs[name] = _to_loop(loop, fn)
    fut = loop.run_in_executor(None, functools.partial(
        validate, profile, source_dir, _stop=stop, **kwargs))
    try:
        return await asyncio.shield(fut)
    except asyncio.CancelledError:
        stop.set()
        if token is not None:
            token.fire()
        while not fut.done():  # nothing may keep running after the task ends
            try:
                await asyncio.shield(fut)
            except asyncio.CancelledError:
                continue
            except Exception:
                break
        raise
    finally:
        if token is not None and fut.done():
            token.close()
