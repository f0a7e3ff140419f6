"""Exceptions raised by the dval package.

Every failed library call raises a subclass of :class:`DvalError`, one class
per ``dval_status`` code (``DvalTimeout`` for ``DVAL_ETIMEOUT``, ...), so
``except dval.DvalTimeout`` works. A library that cannot be loaded raises
:class:`LibraryNotFoundError`, whose message says how to fix it.
"""
from typing import Any, Dict, Optional, Type, Union

from ._enums import Status, to_enum

__all__ = ["DvalError", "LibraryNotFoundError", "error_for", "STATUS_CLASSES"]


class LibraryNotFoundError(OSError):
    """libdaytona-validate.so.1 could not be loaded. The message names what
    was tried and how to fix it (install the library, or set DVAL_LIB)."""


class DvalError(Exception):
    """A libdaytona-validate call failed.

    Attributes:
        status: the negative status (a :class:`Status`, or an int from a
            newer library).
        name: its C symbol, e.g. ``"DVAL_ETIMEOUT"``.
        message: the handle's error message, or the status text.
        result: for :func:`dval.validate`, what was collected before the
            failure (a :class:`dval.ValidationResult`), else None.
    """
    status: Union[Status, int] = Status.ERROR
    name: str = "DVAL_ERROR"

    def __init__(self, status: int, message: str = "", name: Optional[str] = None) -> None:
        self.status = to_enum(Status, status)
        if name:
            self.name = name
        self.message = message
        self.result: Any = None
        super().__init__("%s (%d): %s" % (self.name, status, message))


class DvalGenericError(DvalError):
    """Raised for DVAL_ERROR."""
    status = Status.ERROR
    name = "DVAL_ERROR"


class DvalNoMemory(DvalError):
    """Raised for DVAL_ENOMEM."""
    status = Status.ENOMEM
    name = "DVAL_ENOMEM"


class DvalInvalidArgument(DvalError):
    """Raised for DVAL_EINVAL."""
    status = Status.EINVAL
    name = "DVAL_EINVAL"


class DvalAbiError(DvalError):
    """Raised for DVAL_EABI."""
    status = Status.EABI
    name = "DVAL_EABI"


class DvalNotFound(DvalError):
    """Raised for DVAL_ENOTFOUND."""
    status = Status.ENOTFOUND
    name = "DVAL_ENOTFOUND"


class DvalExists(DvalError):
    """Raised for DVAL_EEXISTS."""
    status = Status.EEXISTS
    name = "DVAL_EEXISTS"


class DvalAuthError(DvalError):
    """Raised for DVAL_EAUTH."""
    status = Status.EAUTH
    name = "DVAL_EAUTH"


class DvalForbidden(DvalError):
    """Raised for DVAL_EFORBIDDEN."""
    status = Status.EFORBIDDEN
    name = "DVAL_EFORBIDDEN"


class DvalTimeout(DvalError):
    """Raised for DVAL_ETIMEOUT."""
    status = Status.ETIMEOUT
    name = "DVAL_ETIMEOUT"


class DvalNetworkError(DvalError):
    """Raised for DVAL_ENETWORK."""
    status = Status.ENETWORK
    name = "DVAL_ENETWORK"


class DvalProtocolError(DvalError):
    """Raised for DVAL_EPROTOCOL."""
    status = Status.EPROTOCOL
    name = "DVAL_EPROTOCOL"


class DvalServerError(DvalError):
    """Raised for DVAL_ESERVER."""
    status = Status.ESERVER
    name = "DVAL_ESERVER"


class DvalRateLimited(DvalError):
    """Raised for DVAL_ERATELIMIT."""
    status = Status.ERATELIMIT
    name = "DVAL_ERATELIMIT"


class DvalConflict(DvalError):
    """Raised for DVAL_ECONFLICT."""
    status = Status.ECONFLICT
    name = "DVAL_ECONFLICT"


class DvalStateError(DvalError):
    """Raised for DVAL_ESTATE."""
    status = Status.ESTATE
    name = "DVAL_ESTATE"


class DvalAborted(DvalError):
    """Raised for DVAL_EABORTED."""
    status = Status.EABORTED
    name = "DVAL_EABORTED"


class DvalCanceled(DvalError):
    """Raised for DVAL_ECANCELED."""
    status = Status.ECANCELED
    name = "DVAL_ECANCELED"


class DvalReentrant(DvalError):
    """Raised for DVAL_EREENTRANT."""
    status = Status.EREENTRANT
    name = "DVAL_EREENTRANT"


class DvalExecutorError(DvalError):
    """Raised for DVAL_EEXEC."""
    status = Status.EEXEC
    name = "DVAL_EEXEC"


class DvalPassthrough(DvalError):
    """Raised for DVAL_EPASSTHROUGH."""
    status = Status.EPASSTHROUGH
    name = "DVAL_EPASSTHROUGH"


class DvalUnsupported(DvalError):
    """Raised for DVAL_EUNSUPPORTED."""
    status = Status.EUNSUPPORTED
    name = "DVAL_EUNSUPPORTED"


class DvalIsolationUnavailable(DvalError):
    """Raised for DVAL_EISOLATION."""
    status = Status.EISOLATION
    name = "DVAL_EISOLATION"


class DvalBuildFailed(DvalError):
    """Raised for DVAL_EBUILD."""
    status = Status.EBUILD
    name = "DVAL_EBUILD"


class DvalTooBig(DvalError):
    """Raised for DVAL_ETOOBIG."""
    status = Status.ETOOBIG
    name = "DVAL_ETOOBIG"


class DvalIOError(DvalError):
    """Raised for DVAL_EIO."""
    status = Status.EIO
    name = "DVAL_EIO"


class DvalResultsError(DvalError):
    """Raised for DVAL_ERESULTS."""
    status = Status.ERESULTS
    name = "DVAL_ERESULTS"


class DvalBadRequest(DvalError):
    """Raised for DVAL_EBADREQUEST."""
    status = Status.EBADREQUEST
    name = "DVAL_EBADREQUEST"


class DvalBusy(DvalError):
    """Raised for DVAL_EBUSY."""
    status = Status.EBUSY
    name = "DVAL_EBUSY"


class DvalGone(DvalError):
    """Raised for DVAL_EGONE."""
    status = Status.EGONE
    name = "DVAL_EGONE"


class DvalQuota(DvalError):
    """Raised for DVAL_EQUOTA."""
    status = Status.EQUOTA
    name = "DVAL_EQUOTA"


#: status value → exception class
STATUS_CLASSES: Dict[int, Type[DvalError]] = {
    Status.ERROR: DvalGenericError,
    Status.ENOMEM: DvalNoMemory,
    Status.EINVAL: DvalInvalidArgument,
    Status.EABI: DvalAbiError,
    Status.ENOTFOUND: DvalNotFound,
    Status.EEXISTS: DvalExists,
    Status.EAUTH: DvalAuthError,
    Status.EFORBIDDEN: DvalForbidden,
    Status.ETIMEOUT: DvalTimeout,
    Status.ENETWORK: DvalNetworkError,
    Status.EPROTOCOL: DvalProtocolError,
    Status.ESERVER: DvalServerError,
    Status.ERATELIMIT: DvalRateLimited,
    Status.ECONFLICT: DvalConflict,
    Status.ESTATE: DvalStateError,
    Status.EABORTED: DvalAborted,
    Status.ECANCELED: DvalCanceled,
    Status.EREENTRANT: DvalReentrant,
    Status.EEXEC: DvalExecutorError,
    Status.EPASSTHROUGH: DvalPassthrough,
    Status.EUNSUPPORTED: DvalUnsupported,
    Status.EISOLATION: DvalIsolationUnavailable,
    Status.EBUILD: DvalBuildFailed,
    Status.ETOOBIG: DvalTooBig,
    Status.EIO: DvalIOError,
    Status.ERESULTS: DvalResultsError,
    Status.EBADREQUEST: DvalBadRequest,
    Status.EBUSY: DvalBusy,
    Status.EGONE: DvalGone,
    Status.EQUOTA: DvalQuota,
}
__all__ += [c.__name__ for c in STATUS_CLASSES.values()]


def error_for(status: int, message: str, name: Optional[str] = None) -> DvalError:
    """The exception instance for a status: its class, or DvalError for a
    code this binding does not know (newer library)."""
    return STATUS_CLASSES.get(int(status), DvalError)(status, message, name)
