"""Shared text of the man pages: the thread-safety classes a page names in
its "thread:" line, the error tables it pulls in with "@errors NAME", and
the wording generated from the code (reentrancy). gen.py expands them.

Markup: see gen.py.
"""

# ------------------------------------------------------------ shared text

T_ANY = """Thread-safe: may be called from any thread at any time, also from
inside callbacks. The returned string is static."""

T_CLIENT = """The client may be shared by several threads: its configuration is
immutable after @dval_client_new and shared caches are locked internally.
Error messages are kept per thread: @dval_client_errmsg on the thread that
made a failed call returns that call's message even when other threads fail
on the same client meanwhile (other threads read the newest message from a
ring of recent ones). {reentrancy} See @dval_threads(3)."""

T_HANDLE = """The handle (and the objects derived from it) must be used by one
thread at a time; different handles may be used concurrently, also when they
share a client. {reentrancy} See @dval_threads(3)."""

T_GETTER = """A getter: it reads the handle only, does no I/O and may be called
from inside callbacks of the same handle tree. It takes no lock: do not call
it while another thread uses or frees the handle. See @dval_threads(3)."""

T_FREE = """Must not race with any other use of the same handle; it may run
concurrently with calls on other handles, including its parent. When the
handle held the last reference to its client, the client is destroyed here
as described in @dval_client_free(3)."""

T_INIT = """Thread-safe: it touches only the caller's memory."""

O_BORROWED_STR = """The returned string is borrowed from the handle: do not free
it; it stays valid until the handle is freed."""

O_INPUTS = """Input pointers are borrowed for the duration of the call; strings and
arrays the library needs later are copied before it returns."""

E_HANDLE = [("DVAL_EINVAL", "A required pointer argument is NULL.")]

E_REMOTE = [
    ("DVAL_EAUTH", "Daytona rejected the credentials (HTTP 401)."),
    ("DVAL_EFORBIDDEN", "Daytona denied permission (HTTP 403), or the local executor was refused access to a file (EACCES, EPERM)."),
    ("DVAL_ENETWORK", "The connection failed or was reset (after the retries this call makes; see RETRIES in @dval_executor(3))."),
    ("DVAL_ETIMEOUT", "A request took longer than request_timeout_ms, the server answered HTTP 408, or the local executor waited too long for a lock."),
    ("DVAL_EPROTOCOL", "The server's reply could not be understood, or it had an HTTP status the call does not expect (a 3xx or an unlisted 4xx)."),
    ("DVAL_ESERVER", "The server failed (HTTP 5xx) (after the retries this call makes)."),
    ("DVAL_ERATELIMIT", "The server answered HTTP 429 to all retry_attempts attempts."),
    ("DVAL_EBADREQUEST", "The server rejected the request (HTTP 400 or 422)."),
    ("DVAL_EEXEC", "The executor failed in another way (for example the local helper could not be run); the error message says how."),
    ("DVAL_EUNSUPPORTED", "The executor lacks a member this call needs (custom executors)."),
]

E_ENOMEM = [("DVAL_ENOMEM", "Memory allocation failed.")]

R_STATUS = """Returns @DVAL_OK (0) on success or a negative @dval_status code
on failure."""


def R_ERRMSG(h):
    return R_STATUS + " After a failure, @%s returns a message that describes it." % h

E_PATH = [("DVAL_EINVAL", """<<sb>> or another required pointer is NULL, or <<remote_path>> is empty,
4096 bytes or longer, contains control characters or invalid UTF-8, or has
a ".." component.""")]

E_LOCALFS = [("DVAL_ESTATE", "Local executor: the sandbox is not started.")]


# thread: <class> in a page source -> THREAD SAFETY text
THREAD = {
    "any": T_ANY,
    "client": T_CLIENT,
    "handle": T_HANDLE,
    "getter": T_GETTER,
    "free": T_FREE,
    "init": T_INIT,
}

# @errors <name> in an ERRORS section -> these entries
ERRORS = {
    "handle": E_HANDLE,
    "remote": E_REMOTE,
    "enomem": E_ENOMEM,
    "path": E_PATH,
    "localfs": E_LOCALFS,
}

# The {reentrancy} sentence of the classes above, chosen by whether the
# function checks the reentrancy guard (facts.py reads that from lib/*.c).
REENTRANCY_GUARDED = """Called from inside a callback that the library is
running for the same client (output, state, build log, download, list or
event callbacks), it returns @DVAL_EREENTRANT and does nothing."""
REENTRANCY_UNGUARDED = """It does not check the reentrancy guard: it may be
called from inside a callback, and acts as it would outside one."""

# Added to ERRORS of every function that checks the reentrancy guard.
E_REENTRANT = ("DVAL_EREENTRANT", "Called from inside a callback the library was running for the same client; nothing was done.")
