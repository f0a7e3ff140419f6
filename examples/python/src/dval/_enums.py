"""The C library's enums as :class:`enum.IntEnum` classes.

Values are fixed by ``include/dval.h`` (never renumbered). A newer library may
report a value this module does not know yet: :func:`to_enum` then returns the
plain ``int`` instead of raising.
"""
from enum import IntEnum
from typing import Type, TypeVar, Union

__all__ = ["Status", "SandboxState", "SnapshotState", "Stream", "Release",
           "Network", "LogLevel", "EventType", "to_enum"]


class Status(IntEnum):
    """``enum dval_status``: 0 or a negative failure code."""
    OK = 0
    ERROR = -1
    ENOMEM = -2
    EINVAL = -3
    EABI = -4
    ENOTFOUND = -5
    EEXISTS = -6
    EAUTH = -7
    EFORBIDDEN = -8
    ETIMEOUT = -9
    ENETWORK = -10
    EPROTOCOL = -11
    ESERVER = -12
    ERATELIMIT = -13
    ECONFLICT = -14
    ESTATE = -15
    EABORTED = -16
    ECANCELED = -17
    EREENTRANT = -18
    EEXEC = -19
    EPASSTHROUGH = -20
    EUNSUPPORTED = -21
    EISOLATION = -22
    EBUILD = -23
    ETOOBIG = -24
    EIO = -25
    ERESULTS = -26
    EBADREQUEST = -27
    EBUSY = -28
    EGONE = -29
    EQUOTA = -30

    @property
    def c_name(self) -> str:
        """The C symbol, e.g. ``"DVAL_ETIMEOUT"``."""
        return "DVAL_" + self.name


class SandboxState(IntEnum):
    """``enum dval_sandbox_state``: every Daytona SandboxState plus UNKNOWN."""
    UNKNOWN = 0
    CREATING = 1
    RESTORING = 2
    DESTROYED = 3
    DESTROYING = 4
    STARTED = 5
    STOPPED = 6
    STARTING = 7
    STOPPING = 8
    ERROR = 9
    BUILD_FAILED = 10
    PENDING_BUILD = 11
    BUILDING_SNAPSHOT = 12
    PULLING_SNAPSHOT = 13
    ARCHIVED = 14
    ARCHIVING = 15
    RESIZING = 16
    SNAPSHOTTING = 17
    FORKING = 18
    PAUSED = 19
    PAUSING = 20
    RESUMING = 21


class SnapshotState(IntEnum):
    """``enum dval_snapshot_state``."""
    UNKNOWN = 0
    PENDING = 1
    BUILDING = 2
    PULLING = 3
    ACTIVE = 4
    ERROR = 5
    BUILD_FAILED = 6
    INACTIVE = 7
    REMOVING = 8
    SNAPSHOTTING = 9


class Stream(IntEnum):
    """Which stream a chunk of program output came from."""
    STDOUT = 1
    STDERR = 2


class Release(IntEnum):
    """What happens to a sandbox when it is released (``enum dval_release``).

    KEEP is the library's default: the sandbox (on the local executor, its
    init process) keeps running after your program ends, so the next run
    starts fast. Use DELETE for one-off runs and tests.
    """
    KEEP = 0
    STOP = 1
    DELETE = 2


class Network(IntEnum):
    """Sandbox network policy (daytona default: allowed; local: blocked)."""
    DEFAULT = 0
    BLOCK = 1
    ALLOW = 2


class LogLevel(IntEnum):
    """Diagnostic levels of the client's log callback."""
    ERROR = 1
    WARN = 2
    INFO = 3
    DEBUG = 4


class EventType(IntEnum):
    """``enum dval_event_type`` of validation progress events."""
    PHASE = 1
    OUTPUT = 2
    BUILD_LOG = 3
    STATE = 4
    RESTART = 5


class _Stop:
    """The type of :data:`STOP`: one value, compared by identity."""
    __slots__ = ()

    def __repr__(self) -> str:
        return "dval.STOP"


#: Return this from a callback (``on_output``, ``on_event``, a log or file
#: sink) to stop the call. Any other return value, ``True`` or the number of
#: characters ``sys.stdout.write`` returns included, lets it go on; raising an
#: exception stops it too (the exception is re-raised when the call returns).
STOP = _Stop()


E = TypeVar("E", bound=IntEnum)


def to_enum(cls: Type[E], value: int) -> Union[E, int]:
    """``cls(value)``, or the plain int when a newer library reports a value
    this binding does not know."""
    try:
        return cls(value)
    except ValueError:
        return int(value)
