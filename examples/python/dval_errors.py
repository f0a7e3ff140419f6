"""Exception classes shared by the ctypes and cffi bindings of
libdaytona-validate: one class per dval_status code, all derived from
DvalError, which carries the status, its symbolic name and the message."""

# (value, symbolic name, class name); values are fixed by include/dval.h.
STATUSES = [
    (-1, "DVAL_ERROR", "DvalGenericError"),
    (-2, "DVAL_ENOMEM", "DvalNoMemory"),
    (-3, "DVAL_EINVAL", "DvalInvalidArgument"),
    (-4, "DVAL_EABI", "DvalAbiError"),
    (-5, "DVAL_ENOTFOUND", "DvalNotFound"),
    (-6, "DVAL_EEXISTS", "DvalExists"),
    (-7, "DVAL_EAUTH", "DvalAuthError"),
    (-8, "DVAL_EFORBIDDEN", "DvalForbidden"),
    (-9, "DVAL_ETIMEOUT", "DvalTimeout"),
    (-10, "DVAL_ENETWORK", "DvalNetworkError"),
    (-11, "DVAL_EPROTOCOL", "DvalProtocolError"),
    (-12, "DVAL_ESERVER", "DvalServerError"),
    (-13, "DVAL_ERATELIMIT", "DvalRateLimited"),
    (-14, "DVAL_ECONFLICT", "DvalConflict"),
    (-15, "DVAL_ESTATE", "DvalStateError"),
    (-16, "DVAL_EABORTED", "DvalAborted"),
    (-17, "DVAL_ECANCELED", "DvalCanceled"),
    (-18, "DVAL_EREENTRANT", "DvalReentrant"),
    (-19, "DVAL_EEXEC", "DvalExecutorError"),
    (-20, "DVAL_EPASSTHROUGH", "DvalPassthrough"),
    (-21, "DVAL_EUNSUPPORTED", "DvalUnsupported"),
    (-22, "DVAL_EISOLATION", "DvalIsolationUnavailable"),
    (-23, "DVAL_EBUILD", "DvalBuildFailed"),
    (-24, "DVAL_ETOOBIG", "DvalTooBig"),
    (-25, "DVAL_EIO", "DvalIOError"),
    (-26, "DVAL_ERESULTS", "DvalResultsError"),
    (-27, "DVAL_EBADREQUEST", "DvalBadRequest"),
]


class DvalError(Exception):
    """A libdaytona-validate call failed. status is the negative dval_status
    value, name its symbol ("DVAL_ETIMEOUT"), message the handle's error
    message (or dval_strerror() text when the handle had none)."""
    status = -1
    name = "DVAL_ERROR"

    def __init__(self, status, message="", name=None):
        self.status = status
        if name:
            self.name = name
        self.message = message
        super().__init__("%s (%d): %s" % (self.name, status, message))


BY_STATUS = {}
for _value, _name, _cls in STATUSES:
    _c = type(_cls, (DvalError,), {"status": _value, "name": _name,
                                   "__doc__": "%s (%d)" % (_name, _value)})
    globals()[_cls] = _c
    BY_STATUS[_value] = _c
__all__ = ["DvalError", "error_for"] + [c for _, _, c in STATUSES]


def error_for(status, message, name=None):
    """The exception instance for a status: its class, or DvalError for
    codes this binding does not know (newer library)."""
    return BY_STATUS.get(status, DvalError)(status, message, name)
