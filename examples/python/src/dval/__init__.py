"""dval: Python bindings of libdaytona-validate.

Runs untrusted, machine-generated programs in sandboxes (Daytona, or the
embedded local executor) and brings their results back::

    import dval
    r = dval.validate("shell", "examples/validation/shell",
                      release=dval.Release.DELETE)
    print(r.exit_code, r.results, r.stdout)

Two FFI backends sit behind one API: ``ctypes`` (standard library, the
default) and ``cffi`` (ABI mode); choose with ``DVAL_BACKEND`` or
:func:`use_backend`. The C library is found through ``$DVAL_LIB``, then the
installed SONAME ``libdaytona-validate.so.1``; when neither loads, the first
call raises :class:`LibraryNotFoundError` saying how to fix it. Importing
this package loads nothing.

Sandboxes outlive your program: the release policy is KEEP by default, so
after ``validate()`` or a ``with client.sandbox_acquire(...)`` block the
sandbox (on the local executor, its init process) keeps running for the
next run. Pass ``release=dval.Release.DELETE`` (or ``Release.STOP``) where you call.

Many validations at once: :class:`Pool` shares sandboxes of one profile
between threads::

    with dval.Pool("shell", executor="local", max_sandboxes=2,
                   release=dval.Release.DELETE) as pool:
        r = pool.validate("examples/validation/shell", thread_id="t1")
"""
from ._core import (Client, Sandbox, SandboxInfo, Session, Snapshot, profile_names,
                    profile_load, service_names, strerror, version)
from ._enums import (STOP, EventType, LogLevel, Network, Release, SandboxState, SnapshotState, Status,
                     Stream, to_enum)
from ._differential import Differential, differential, validate_pair
from ._pool import Pool, PoolStats
from ._loader import BACKENDS, SONAME, backend_name, library_path, use_backend
from ._validate import (ISOLATION_LEVELS, CancelToken, Event, ValidationResult, avalidate,
                        supports_cancel, validate)
from .errors import *  # noqa: F401,F403  (DvalError and one class per status)
from .errors import STATUS_CLASSES, DvalError, LibraryNotFoundError, error_for

__version__ = "1.0.0"

__all__ = [
    "STOP", "validate", "avalidate", "differential", "validate_pair", "Differential", "Pool", "PoolStats", "ValidationResult", "Event", "CancelToken", "supports_cancel",
    "ISOLATION_LEVELS", "Client", "Snapshot", "Sandbox", "Session", "SandboxInfo",
    "version", "strerror", "profile_names", "service_names", "profile_load", "Status", "SandboxState", "SnapshotState",
    "Stream", "Release", "Network", "LogLevel", "EventType", "to_enum", "BACKENDS",
    "SONAME", "backend_name", "library_path", "use_backend", "DvalError",
    "LibraryNotFoundError", "error_for", "STATUS_CLASSES",
] + [c.__name__ for c in STATUS_CLASSES.values()]
