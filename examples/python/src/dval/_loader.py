"""Finds libdaytona-validate and picks the FFI backend.

The library is looked up, in order, at ``$DVAL_LIB`` (a path), then by its
SONAME ``libdaytona-validate.so.1`` through the dynamic loader (what
``make install`` + ldconfig, or ``LD_LIBRARY_PATH``, provide). Nothing is
loaded at import time: the first call that needs the library loads it.
"""
import os
import threading
from typing import Any, Dict, Optional

from .errors import LibraryNotFoundError

__all__ = ["SONAME", "BACKENDS", "library_path", "get_backend", "use_backend",
           "backend_name"]

SONAME = "libdaytona-validate.so.1"
#: the backends this package ships
BACKENDS = ("ctypes", "cffi")

_lock = threading.Lock()
_loaded: Dict[str, Any] = {}
_default: Optional[str] = None


def library_path() -> str:
    """What will be passed to the loader: ``$DVAL_LIB`` or the SONAME."""
    return os.environ.get("DVAL_LIB") or SONAME


def not_found(path: str, why: BaseException) -> LibraryNotFoundError:
    """The error for a library that failed to load, with how to fix it."""
    if os.environ.get("DVAL_LIB"):
        msg = ("DVAL_LIB=%s could not be loaded (%s). Point DVAL_LIB at a "
               "built library (e.g. build/lib/%s) or unset it to use the "
               "installed one." % (path, why, SONAME))
    else:
        msg = ("%s was not found by the dynamic loader (%s). Install it "
               "(`make && sudo make install`, which runs ldconfig), or set "
               "DVAL_LIB=/path/to/%s, or add its directory to "
               "LD_LIBRARY_PATH." % (SONAME, why, SONAME))
    return LibraryNotFoundError(msg)


def _make(name: str) -> Any:
    if name == "ctypes":
        from ._ctypes_backend import Backend
    elif name == "cffi":
        try:
            from ._cffi_backend import Backend  # type: ignore[assignment]
        except ImportError as e:
            raise ImportError("the cffi backend needs the cffi module "
                              "(Debian: apt install python3-cffi; pip: "
                              "pip install cffi): %s" % e) from e
    else:
        raise ValueError("unknown backend %r (choose one of %s)" % (name, ", ".join(BACKENDS)))
    path = library_path()
    try:
        return Backend(path)
    except OSError as e:
        raise not_found(path, e) from e


def backend_name() -> str:
    """The default backend: set by :func:`use_backend`, else ``$DVAL_BACKEND``,
    else ``"ctypes"`` (standard library only)."""
    return _default or os.environ.get("DVAL_BACKEND") or "ctypes"


def get_backend(name: Optional[str] = None) -> Any:
    """The loaded backend ``name`` (default: :func:`backend_name`); loads the
    library on first use. Raises LibraryNotFoundError with a fix."""
    name = name or backend_name()
    with _lock:
        b = _loaded.get(name)
        if b is None:
            b = _loaded[name] = _make(name)
        return b


def use_backend(name: str) -> None:
    """Makes ``name`` ("ctypes" or "cffi") the default backend for objects
    created from now on, loading it now so a missing library or module
    fails here."""
    global _default
    get_backend(name)
    _default = name
