"""Old man page format, kept only to take in pages written for it.

The man pages are generated from man/src/<name>.<section>.page (see
gen.py). A page(...) call added below (in the old keyword format, with the
shared names T_HANDLE, E_REMOTE, ...) is turned into a page source by
tests/abi/man/convert.py; delete the call afterwards. PAGES must be empty
on main.
"""
from shared import *  # noqa: F401,F403  (T_*, E_*, O_*, R_* for old pages)

_SB_OWN = """Nothing is allocated for the caller; the handle stays owned by
the caller."""

_FILES = """Relative remote paths are relative to the sandbox user's home
directory (/home/daytona on the local executor, the sandbox's working
directory on Daytona). Transient failures are retried with the client's
backoff (see RETRIES in @dval_executor(3))."""


def sees(*names):
    return list(names)


PAGES = []


def page(name, **kw):
    kw["name"] = name
    PAGES.append(kw)
