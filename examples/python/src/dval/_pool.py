"""dval.Pool: sandboxes of one profile shared by many threads (dval_pool_*)."""
import threading
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Union

from ._core import Client, _raise
from ._enums import Release, Stream
from ._validate import CancelToken, Event, ValidationResult, _inputs, _run, _services

__all__ = ["Pool", "PoolStats"]


@dataclass(frozen=True)
class PoolStats:
    """What a :class:`Pool` is doing now and has done since it was made
    (dval_pool_stats_get): slots (``max_sandboxes``), slots with a
    validation on them, validations running and callers queued now;
    validations completed (any status) and failed, calls refused with
    DvalBusy, calls canceled while queued, and the queue's total and
    longest wait in milliseconds."""
    max_sandboxes: int
    busy_sandboxes: int
    running: int
    waiting: int
    completed: int
    failed: int
    refused: int
    canceled_waiting: int
    wait_ms_total: int
    wait_ms_max: int


class Pool:
    """A pool of at most ``max_sandboxes`` sandboxes of one profile, shared
    by any number of threads: each :meth:`validate` leases a sandbox (at
    most ``max_per_sandbox`` validations on one at a time), runs the program
    on it and gives it back. Callers wait in arrival order when every
    sandbox is busy; beyond ``max_queue`` waiting, :meth:`validate` raises
    DvalBusy at once. The pool starts no thread of its own.

    Use it as a context manager: leaving ``with`` (or :meth:`close`) applies
    ``release`` to every sandbox the pool used. The default, KEEP, leaves
    them running after your program ends so the next pool starts warm; pass
    ``release=dval.Release.DELETE`` (or STOP) for one-off runs.

    Args:
        profile: "shell", "java", "dotnet" or a registered profile.
        client: the :class:`Client` to use (the pool keeps it alive); None:
            one made from ``executor``/``state_dir``/``backend``, closed
            with the pool.
        name: sandbox name prefix (None: "pool-<profile>"); the sandboxes
            are "<name>-0", "<name>-1", ... labelled dval.pool=<name>.
        min_warm: sandboxes acquired now (0: all on first use).
        max_sandboxes: at most this many sandboxes (0: 4).
        max_per_sandbox: concurrent validations on one sandbox (0: 1).
        idle_timeout: seconds after which an unused sandbox is released at
            the next lease (None: never).
        labels: extra "key=value" labels of every pool sandbox.
        max_queue: callers allowed to wait (0: 256, -1: unbounded).
        release: what happens to idle sandboxes and at :meth:`close`.
        ttl_minutes: TTL of every sandbox the pool creates on Daytona (0:
            24 h, -1: none).
        services, seeds: as for :func:`dval.validate`, for every validation
            on the pool; its sandboxes keep the services running.
    """

    def __init__(self, profile: str, *, client: Optional[Client] = None,
                 executor: Optional[str] = None, name: Optional[str] = None,
                 min_warm: int = 0, max_sandboxes: int = 0, max_per_sandbox: int = 0,
                 idle_timeout: Optional[float] = None, labels: Optional[List[str]] = None,
                 max_queue: int = 0, release: Release = Release.KEEP, ttl_minutes: int = 0,
                 state_dir: Optional[str] = None, backend: Optional[str] = None,
                 services: Optional[List[str]] = None,
                 seeds: Optional[List[str]] = None) -> None:
        if client is not None and executor is not None:
            raise ValueError("give either client or executor, not both")
        self._h: Any = None
        self._own = client is None
        self._client = Client(executor, state_dir=state_dir, backend=backend) \
            if client is None else client
        self._b = self._client._b
        self._profile = profile
        self._lock = threading.Lock()
        self._running = 0
        try:
            if not getattr(self._b, "has_pool", False):
                raise NotImplementedError(
                    "this libdaytona-validate has no pool (dval_pool_new, 0.1.1); "
                    "upgrade the library, or call dval.validate() per program")
            opts = dict(
                profile=profile, name=name, min_warm=min_warm, max_sandboxes=max_sandboxes,
                max_per_sandbox=max_per_sandbox, labels=labels, max_queue=max_queue,
                idle_timeout_ms=int(idle_timeout * 1000) if idle_timeout else 0,
                release=int(release), ttl_minutes=ttl_minutes)
            _services(self._b, opts, services, seeds)
            rc, self._h = self._b.pool_new(self._client.handle, opts)
            if rc:
                _raise(self._b, rc, self._client.errmsg)
        except BaseException:
            self._close_client()
            raise

    @property
    def profile(self) -> str:
        """The pool's profile."""
        return self._profile

    @property
    def client(self) -> Client:
        """The :class:`Client` the pool runs on."""
        return self._client

    def validate(self, source_dir: str, *, thread_id: Optional[str] = None,
                 timeout: Optional[float] = None, isolation: Optional[str] = None,
                 on_output: Optional[Callable[[Stream, str, bytes], Any]] = None,
                 on_event: Optional[Callable[[Event], Any]] = None,
                 run_command: Optional[str] = None, labels: Optional[List[str]] = None,
                 allow_missing_results: bool = False,
                 cancel: Optional[CancelToken] = None,
                 args: Optional[List[str]] = None,
                 stdin: Optional[Union[str, bytes]] = None) -> ValidationResult:
        """Validates one program on a leased pool sandbox; safe to call from
        many threads at once (callbacks run on the calling thread).

        Args and result as for :func:`dval.validate` (the pool chooses the
        sandbox, so there is no ``sandbox_name``). ``cancel`` also stops a
        call still waiting for a sandbox. ``args`` and ``stdin`` are the
        program's, as for :func:`dval.validate`.

        Raises:
            DvalBusy: every sandbox is busy and ``max_queue`` callers wait.
            DvalError: any other failure (``e.result``: partial output).
            ValueError: the pool is closed.
        """
        with self._lock:
            if not self._h:
                raise ValueError("Pool is closed")
            self._running += 1   # close() must not free what a call uses
            h = self._h
        try:
            req = dict(profile=self._profile, source_dir=str(source_dir), thread_id=thread_id,
                       run_command=run_command,
                       timeout_ms=int(timeout * 1000) if timeout else 0, labels=labels,
                       allow_missing_results=allow_missing_results)
            _inputs(self._client._b, req, args, stdin)
            return _run(self._client, h, req, isolation, on_output, on_event, cancel, None)
        finally:
            with self._lock:
                self._running -= 1

    def stats(self) -> PoolStats:
        """The pool's counts at one moment; safe from any thread while
        other threads validate.

        Raises:
            NotImplementedError: the library predates dval_pool_stats_get.
            ValueError: the pool is closed.
        """
        if not getattr(self._b, "has_pool_stats", False):
            raise NotImplementedError("this libdaytona-validate has no dval_pool_stats_get; "
                                      "upgrade the library")
        with self._lock:
            if not self._h:
                raise ValueError("Pool is closed")
            rc, st = self._b.pool_stats(self._h)
        if rc:
            _raise(self._b, rc, self._client.errmsg)
        return PoolStats(**st)

    def close(self) -> None:
        """Applies the release policy to the pool's sandboxes and frees the
        pool (then the client it made). Idempotent; raises RuntimeError
        while a :meth:`validate` still runs."""
        with self._lock:
            if self._running:
                raise RuntimeError("Pool.close() while %d validations run" % self._running)
            h, self._h = self._h, None
        if h:
            self._b.call("dval_pool_free", h)
        self._close_client()

    def _close_client(self) -> None:
        if self._own and self._client is not None:
            self._client.close()

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if not self._running:
                self.close()
        except Exception:
            pass
