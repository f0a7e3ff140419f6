"""Man page content for libdaytona-validate (rendered by gen.py).

Keep this accurate to include/dval.h: the SYNOPSIS is taken from the header,
everything else is written here.
"""

# ------------------------------------------------------------ shared text

T_ANY = """Thread-safe: may be called from any thread at any time, also from
inside callbacks. The returned string is static."""

T_CLIENT = """The client may be shared by several threads: its configuration is
immutable after @dval_client_new and shared caches are locked internally.
See @dval_threads(3)."""

T_HANDLE = """The handle (and the objects derived from it) must be used by one
thread at a time; different handles may be used concurrently, also when they
share a client. Called from inside a callback of the same handle tree, the
call returns @DVAL_EREENTRANT. See @dval_threads(3)."""

T_GETTER = """A getter: it reads the handle only and may be called from inside
callbacks of the same handle tree. Do not call it while another thread frees
the handle. See @dval_threads(3)."""

T_FREE = """Must not race with any other use of the same handle; it may run
concurrently with calls on other handles, including its parent."""

T_INIT = """Thread-safe: it touches only the caller's memory."""

O_BORROWED_STR = """The returned string is borrowed from the handle: do not free
it; it stays valid until the handle is freed."""

O_INPUTS = """Input pointers are borrowed for the duration of the call; strings and
arrays the library needs later are copied before it returns."""

E_HANDLE = [("DVAL_EINVAL", "A required pointer argument is NULL.")]

E_REENT = [("DVAL_EREENTRANT", "Called from inside a callback of the same handle tree.")]

E_REMOTE = [
    ("DVAL_EAUTH", "The Daytona credentials are missing or were rejected (HTTP 401)."),
    ("DVAL_EFORBIDDEN", "The server denied permission (HTTP 403)."),
    ("DVAL_ENETWORK", "The connection failed or was reset, after retries where the operation is idempotent."),
    ("DVAL_ETIMEOUT", "A request or wait deadline passed."),
    ("DVAL_EPROTOCOL", "The server's reply could not be understood."),
    ("DVAL_ESERVER", "The server failed (HTTP 5xx) after all retries."),
    ("DVAL_ERATELIMIT", "The server kept answering HTTP 429 after all retries."),
    ("DVAL_EBADREQUEST", "The server rejected the request (HTTP 400 or 422)."),
    ("DVAL_EEXEC", "The executor failed in another way; the handle's error message says how."),
    ("DVAL_EUNSUPPORTED", "The executor does not implement an operation this call needs."),
]

E_ENOMEM = [("DVAL_ENOMEM", "Memory allocation failed.")]

R_STATUS = """Returns @DVAL_OK (0) on success or a negative @dval_status code
on failure."""


def R_ERRMSG(h):
    return R_STATUS + " After a failure, @%s returns a message that describes it." % h


def sees(*names):
    return list(names)


PAGES = []


def page(name, **kw):
    kw["name"] = name
    PAGES.append(kw)


# ------------------------------------------------------------ status

page("dval_strerror",
     summary="describe a status code in English",
     desc="""@dval_strerror returns a short, static English description of
<<status>>, one of the @dval_status values (for example "timed out" for
@DVAL_ETIMEOUT). Unknown values give "unknown status".

The text is generic; the message of the failed call itself comes from
@dval_client_errmsg, @dval_sandbox_errmsg or @dval_session_errmsg.""",
     ret="""A pointer to a static, NUL-terminated string; never NULL.""",
     errors=[],
     own="""The string is static: never free or modify it.""",
     thread=T_ANY,
     see=sees("dval_status_name", "dval_errors", "dval_client_errmsg", "dval(7)"))

page("dval_status_name",
     summary="symbolic name of a status code",
     desc="""@dval_status_name returns the name of the enumerator with the value
<<status>>, for example "DVAL_ETIMEOUT" for -9. Language bindings use it to
map a status onto an exception or error type. Unknown values give
"DVAL_UNKNOWN".""",
     ret="""A pointer to a static, NUL-terminated string; never NULL.""",
     errors=[],
     own="""The string is static: never free or modify it.""",
     thread=T_ANY,
     see=sees("dval_strerror", "dval_errors", "dval(7)"))

# ------------------------------------------------------------ version

page("dval_version",
     summary="run-time version string of the library",
     desc="""@dval_version returns the version of the library loaded at run
time, for example "0.1.0". Compare it with @DVAL_VERSION_STRING, the version
of the header the program was compiled with, to detect a mismatch.""",
     ret="""A static, NUL-terminated string; never NULL.""",
     errors=[],
     own="""Static: never free it.""",
     thread=T_ANY,
     see=sees("dval_version_num", "dval(7)"))

page("dval_version_num",
     summary="run-time version number of the library",
     desc="""@dval_version_num returns the version of the library loaded at
run time encoded as 0xMMmmpp (major, minor, patch), the same encoding as the
header's @DVAL_VERSION_NUM, so the two can be compared with >=. A program
that needs a feature added in a later release checks
@dval_version_num() >= that release's number before using it.""",
     ret="""The version number, for example 0x000100 for 0.1.0.""",
     errors=[],
     own="""Nothing is allocated.""",
     thread=T_ANY,
     see=sees("dval_version", "dval(7)"))

page("dval_global_init",
     names=["dval_global_init", "dval_global_cleanup"],
     protos=["dval_global_init", "dval_global_cleanup"],
     summary="reference-counted process initialisation",
     desc="""@dval_global_init initialises the process-wide state of the
library: on the first call it initialises libcurl
(curl_global_init(CURL_GLOBAL_DEFAULT)). Every call increments a reference
count; @dval_global_cleanup decrements it and, when it reaches zero, releases
the process-wide state again.

Calling it is optional: the first @dval_client_new calls it implicitly and
@dval_client_free drops that reference. A program calls it explicitly when it
wants initialisation to happen at a well-defined point, for example before
starting threads in a process that also uses libcurl directly.

The library never calls it from a constructor or destructor attribute, never
replaces libcurl's or jansson's allocators and never seeds jansson's hash
function, so other users of those libraries in the same process are not
affected.""",
     ret="""@dval_global_init returns the new reference count (>= 1) or a
negative status. @dval_global_cleanup returns the remaining count (0 when
the state was released; it does not go below 0).""",
     errors=[("DVAL_ERROR", "libcurl could not be initialised (dval_global_init only).")],
     own="""Call @dval_global_cleanup once for every successful
@dval_global_init. Do not call @dval_global_cleanup while clients created
without an explicit init are still alive.""",
     thread="""Thread-safe: both functions are serialised internally with a
mutex.""",
     see=sees("dval_client_new", "dval_threads", "dval(7)"))

page("dval_global_cleanup",
     names=["dval_global_cleanup"],
     summary="drop one reference of the process initialisation",
     desc="""@dval_global_cleanup drops one reference taken by
@dval_global_init. When the count reaches zero, the process-wide state
(libcurl's global state) is released. Extra calls when the count is already
zero do nothing. See @dval_global_init(3) for the full contract.""",
     ret="""The remaining reference count (>= 0).""",
     errors=[],
     own="""Pairs with @dval_global_init; clients hold their own reference.""",
     thread="""Thread-safe: serialised internally with @dval_global_init.""",
     see=sees("dval_global_init", "dval(7)"))

page("dval_free",
     summary="release memory returned by the library",
     desc="""@dval_free releases a buffer the library allocated for the
caller: the data of @dval_sandbox_download, the document of
@dval_sandbox_download_json and the summary of @dval_validate. Passing NULL
does nothing.

Always use @dval_free for these buffers, never free(3): the library may use
a different allocator than the program (static linking, Windows DLLs, debug
builds with failure injection).""",
     ret="""None.""",
     errors=[],
     own="""Takes ownership of <<ptr>> and releases it. Only pass pointers the
library documents as "release with dval_free"; never pass borrowed strings
such as those returned by @dval_client_errmsg.""",
     thread="""Thread-safe.""",
     see=sees("dval_sandbox_download", "dval_sandbox_download_json", "dval_validate", "dval(7)"))

# ------------------------------------------------------------ states

page("dval_sandbox_state_name",
     names=["dval_sandbox_state_name", "dval_sandbox_state_parse"],
     protos=["dval_sandbox_state_name", "dval_sandbox_state_parse"],
     types=["dval_sandbox_state"],
     summary="convert sandbox states to and from their wire names",
     desc="""@dval_sandbox_state_name returns the Daytona wire name of a
@dval_sandbox_state value, for example "started" for
@DVAL_SANDBOX_STARTED, "build_failed" for @DVAL_SANDBOX_BUILD_FAILED and
"unknown" for @DVAL_SANDBOX_UNKNOWN or any out-of-range value.

@dval_sandbox_state_parse does the reverse: it returns the value whose wire
name equals <<name>> exactly (case-sensitive), or @DVAL_SANDBOX_UNKNOWN (0)
for NULL and for names it does not know. The numeric values are fixed and
never renumbered; new Daytona states are appended.""",
     ret="""@dval_sandbox_state_name returns a static string, never NULL.
@dval_sandbox_state_parse returns a value >= 0.""",
     errors=[],
     own="""The returned names are static.""",
     thread=T_ANY,
     see=sees("dval_sandbox_state", "dval_snapshot_state_name", "dval(7)"))

page("dval_sandbox_state_parse",
     summary="convert a sandbox state wire name to its value",
     desc="""@dval_sandbox_state_parse returns the @dval_sandbox_state whose
Daytona wire name (for example "stopped") equals <<name>>, or
@DVAL_SANDBOX_UNKNOWN (0) for NULL and unknown names. It is the inverse of
@dval_sandbox_state_name; see @dval_sandbox_state_name(3) for the list of
states.""",
     ret="""A @dval_sandbox_state value (>= 0).""",
     errors=[],
     own="""<<name>> is only read during the call.""",
     thread=T_ANY,
     see=sees("dval_sandbox_state_name", "dval(7)"))

page("dval_snapshot_state_name",
     names=["dval_snapshot_state_name", "dval_snapshot_state_parse"],
     protos=["dval_snapshot_state_name", "dval_snapshot_state_parse"],
     types=["dval_snapshot_state"],
     summary="convert snapshot states to and from their wire names",
     desc="""@dval_snapshot_state_name returns the Daytona wire name of a
@dval_snapshot_state value ("pending", "building", "pulling", "active",
"error", "build_failed", "inactive", "removing"), or "unknown" for
@DVAL_SNAPSHOT_UNKNOWN and out-of-range values.

@dval_snapshot_state_parse returns the value whose wire name equals
<<name>> exactly, or @DVAL_SNAPSHOT_UNKNOWN (0) for NULL and unknown
names.""",
     ret="""@dval_snapshot_state_name returns a static string, never NULL.
@dval_snapshot_state_parse returns a value >= 0.""",
     errors=[],
     own="""The returned names are static.""",
     thread=T_ANY,
     see=sees("dval_snapshot_state", "dval_sandbox_state_name", "dval(7)"))

page("dval_snapshot_state_parse",
     summary="convert a snapshot state wire name to its value",
     desc="""@dval_snapshot_state_parse returns the @dval_snapshot_state whose
wire name equals <<name>>, or @DVAL_SNAPSHOT_UNKNOWN (0) for NULL and
unknown names. See @dval_snapshot_state_name(3).""",
     ret="""A @dval_snapshot_state value (>= 0).""",
     errors=[],
     own="""<<name>> is only read during the call.""",
     thread=T_ANY,
     see=sees("dval_snapshot_state_name", "dval(7)"))

# ------------------------------------------------------------ client

page("dval_client_options_init",
     types=["dval_client_options", "dval_log_fn"],
     summary="initialise client options to their defaults",
     desc="""@dval_client_options_init zeroes the first <<size>> bytes of
*<<opts>> and sets <<opts>>->struct_size. Pass sizeof *opts as the program
knows it: a program compiled against an older header passes a smaller size,
and the library reads only the fields that fit in it.

All-zero fields mean defaults, so a zeroed struct with struct_size set is
equivalent. The defaults are:

- api_url, api_key, jwt_token, organization_id, target: the environment
variables DAYTONA_API_URL, DAYTONA_API_KEY, DAYTONA_JWT_TOKEN,
DAYTONA_ORGANIZATION_ID and DAYTONA_TARGET; the API URL defaults to
https://app.daytona.io/api.
- executor: "daytona" when an API key or JWT is configured, else "local".
custom_executor, when set, wins over executor (see @dval_executor(3)).
- log_level @DVAL_LOG_INFO; no log callback.
- retries: retry_attempts 5, retry_base_ms 1000, retry_factor 2,
retry_cap_ms 60000: the delay before retry n is min(cap, base * factor^n),
with full jitter when retry_jitter is 1.
- connect_timeout_ms 10000, request_timeout_ms 120000.
- ca_bundle: the system store; insecure_skip_tls_verify 0.
- state_dir (local executor): $XDG_STATE_HOME/daytona-validate or
~/.local/state/daytona-validate; allow_unisolated 0 (fail closed with
@DVAL_EISOLATION when namespaces are unavailable).
- max_download_bytes: 64 MiB.""",
     ret=R_STATUS,
     errors=[("DVAL_EINVAL", "<<opts>> is NULL."),
             ("DVAL_EABI", "<<size>> is smaller than struct_size itself.")],
     own="""Only writes to *<<opts>>, which the caller owns.""",
     thread=T_INIT,
     see=sees("dval_client_new", "dval(7)"))

page("dval_client_new",
     summary="create a client",
     desc="""@dval_client_new creates a client from <<opts>> (NULL means all
defaults; see @dval_client_options_init(3) for them) and stores it in
*<<out>>. It resolves the configuration (options first, then the DAYTONA_*
environment variables) and sets up the executor: "daytona" (HTTP to the
Daytona API at api_url), "local" (the embedded executor using Linux
namespaces, with state in state_dir), or the host's custom_executor, whose
struct is copied.

No network I/O happens here: problems with the server surface in the first
call that talks to it. The first client initialises the library as
@dval_global_init does.

When the options carry a log callback, a failure is also reported through it
at @DVAL_LOG_ERROR.""",
     ret="""Returns @DVAL_OK and stores the client in *<<out>>, or a negative
status and stores NULL in *<<out>>. As there is no client yet, the reason of
a failure goes to the log callback of <<opts>> only.""",
     errors=[("DVAL_EINVAL", "<<out>> is NULL, the API URL does not start with http:// or https://, executor names an unknown executor, or JWT authentication lacks an organization id."),
             ("DVAL_EABI", "<<opts>>->struct_size or the custom executor's struct_size is not one the library knows, or a newer struct has non-zero fields this library does not know."),
             ("DVAL_EAUTH", "The daytona executor was selected explicitly but neither an API key nor a JWT is configured."),
             ("DVAL_EISOLATION", "The local executor cannot isolate programs on this machine and allow_unisolated is 0."),
             ("DVAL_ENOMEM", "Memory allocation failed."),
             ("DVAL_ERROR", "Process initialisation (libcurl) failed.")],
     own=O_INPUTS + """ The client belongs to the caller, who releases it with
@dval_client_free. Snapshots, sandboxes and sessions created from it hold a
reference to it, so they may be freed before or after the client.""",
     thread=T_CLIENT,
     see=sees("dval_client_options_init", "dval_client_free", "dval_client_errmsg", "dval_executor", "dval(7)"))

page("dval_client_free",
     summary="release a client",
     desc="""@dval_client_free drops the caller's reference to <<client>>.
The client is destroyed when its last child (snapshot, sandbox or session
handle) is freed too; a custom executor's destroy member is then called
exactly once. NULL does nothing.

Freeing never does network I/O and never calls user callbacks other than the
custom executor's destroy. Remote objects (sandboxes, sessions) are left as
they are; release them first with @dval_sandbox_release,
@dval_sandbox_delete or @dval_session_close if they should not outlive the
program.""",
     ret="""None.""",
     errors=[],
     own="""Consumes the caller's reference; <<client>> must not be used
afterwards (children remain usable).""",
     thread=T_FREE,
     see=sees("dval_client_new", "dval(7)"))

page("dval_client_errmsg",
     summary="message of the last failed call on a client",
     desc="""@dval_client_errmsg returns a human-readable message describing
the last failure of a call made on <<client>> by the calling thread
(@dval_snapshot_ensure, @dval_sandbox_acquire, @dval_sandbox_list,
@dval_validate), for example "snapshot validation-snapshot-java:
build_failed: step 2 exited with 1". It is "" when there was none.

The message is kept per client (not thread-local), so Go and Python bindings
need no thread pinning to read it.""",
     ret="""A NUL-terminated string; never NULL (also for a NULL client).""",
     errors=[],
     own="""Borrowed from the client: valid until the next call on the client
from the same thread, or until the client is freed. Copy it to keep it.""",
     thread=T_GETTER,
     see=sees("dval_strerror", "dval_sandbox_errmsg", "dval_session_errmsg", "dval(7)"))

page("dval_client_executor_name",
     summary="name of the executor a client uses",
     desc="""@dval_client_executor_name returns "daytona", "local" or, for a
custom executor, its name member ("custom" when that was NULL). Programs
use it to report which backend ran their code.""",
     ret="""A NUL-terminated string; never NULL.""",
     errors=[],
     own=O_BORROWED_STR.replace("handle", "client"),
     thread=T_GETTER,
     see=sees("dval_client_new", "dval_executor", "dval(7)"))

# ------------------------------------------------------------ snapshot

page("dval_snapshot_spec_init",
     types=["dval_snapshot_spec"],
     summary="initialise a snapshot specification",
     desc="""@dval_snapshot_spec_init zeroes the first <<size>> bytes of
*<<spec>> and sets struct_size. Zero fields mean: no build commands, the
server's default resources, the client's target, report a failed build as
@DVAL_EBUILD instead of rebuilding (rebuild_failed 0), and a build timeout of
60 minutes. name is required by @dval_snapshot_ensure; image, or a
dockerfile, describes the base.""",
     ret=R_STATUS,
     errors=[("DVAL_EINVAL", "<<spec>> is NULL."),
             ("DVAL_EABI", "<<size>> is smaller than struct_size itself.")],
     own="""Only writes to *<<spec>>.""",
     thread=T_INIT,
     see=sees("dval_snapshot_ensure", "dval(7)"))

page("dval_snapshot_ensure",
     types=["dval_data_fn"],
     summary="get or create a snapshot and wait until it is active",
     desc="""@dval_snapshot_ensure makes sure a snapshot named
<<spec>>->name exists and is active, and returns a handle to it in *<<out>>:

- when it exists and is active, nothing else happens;
- when it is pending, building or pulling, it waits for the build,
following the build log;
- when it is inactive, it activates it;
- when it is in error or build_failed: with rebuild_failed set it deletes
and rebuilds it, else it fails with @DVAL_EBUILD and the server's
errorReason as message;
- when it does not exist, it creates it from image and build_commands (on
Daytona: a generated Dockerfile with one RUN line per command; locally:
shell commands run in the snapshot layer), or from dockerfile, and waits.

Transient failures (connection errors, HTTP 429 and 5xx) are retried with
the client's backoff; every attempt is reported to the client's log
callback. Build output is passed to <<on_build_log>> (may be NULL) with
<<userdata>>; a non-zero return from it stops the call with
@DVAL_EABORTED. The whole call is bounded by build_timeout_ms.""",
     ret=R_ERRMSG("dval_client_errmsg"),
     errors=[("DVAL_EINVAL", "<<out>>, <<client>> or <<spec>> is NULL, or name is missing or not a valid name."),
             ("DVAL_EABI", "<<spec>>->struct_size is unknown."),
             ("DVAL_EBUILD", "The build failed (error or build_failed) and rebuild_failed is 0, or the rebuild failed too."),
             ("DVAL_ETIMEOUT", "The snapshot was not active within build_timeout_ms."),
             ("DVAL_EABORTED", "<<on_build_log>> returned non-zero."),
             ("DVAL_ECONFLICT", "Another client kept changing the snapshot's state.")]
            + E_REENT + E_REMOTE + E_ENOMEM,
     own=O_INPUTS + """ The snapshot handle belongs to the caller (release with
@dval_snapshot_free) and holds a reference to <<client>>. The data passed to
<<on_build_log>> is valid only during the callback.""",
     thread=T_CLIENT + """ <<on_build_log>> runs on the calling thread, inside
this call.""",
     see=sees("dval_snapshot_spec_init", "dval_snapshot_free", "dval_snapshot_delete", "dval_sandbox_acquire", "dval(7)"))

for _n, _what, _ret in (
        ("dval_snapshot_name", "the snapshot's name, as given in the spec", "A string, or NULL when <<snap>> is NULL."),
        ("dval_snapshot_id", "the executor's identifier of the snapshot (on Daytona, its id; locally, the layer's id)", "A string, or NULL when <<snap>> is NULL.")):
    page(_n,
         summary="%s of a snapshot" % ("name" if _n.endswith("name") else "identifier"),
         desc="""@%s returns %s.""" % (_n, _what),
         ret=_ret,
         errors=[],
         own=O_BORROWED_STR,
         thread=T_GETTER,
         see=sees("dval_snapshot_ensure", "dval_snapshot_state", "dval(7)"))

page("dval_snapshot_get",
     summary="look a snapshot up without creating it",
     desc="""@dval_snapshot_get asks the executor for the snapshot named (or
identified by) <<name_or_id>> and returns a handle recording its current
state. Unlike @dval_snapshot_ensure it never creates, activates, rebuilds or
waits: a snapshot that is still building is returned in state
@DVAL_SNAPSHOT_BUILDING. Transient failures (429, 5xx, resets) are retried
with the client's backoff. Use it to inspect or delete snapshots.""",
     ret=R_ERRMSG("dval_client_errmsg") + " On failure *<<out>> is NULL.",
     errors=E_HANDLE + [("DVAL_EINVAL", "<<name_or_id>> is empty, too long, or contains '..', control characters or invalid UTF-8."),
                        ("DVAL_ENOTFOUND", "No such snapshot.")] + E_ENOMEM + E_REMOTE,
     own="""On success *<<out>> belongs to the caller: release it with
@dval_snapshot_free. The handle holds a reference to the client.""",
     thread=T_CLIENT,
     see=sees("dval_snapshot_ensure", "dval_snapshot_delete", "dval_snapshot_free", "dval(7)"))

page("dval_snapshot_state",
     summary="state of a snapshot",
     desc="""@dval_snapshot_state returns the state recorded in the handle
when @dval_snapshot_ensure returned (normally @DVAL_SNAPSHOT_ACTIVE), or
after @dval_snapshot_delete. It does no I/O.""",
     ret="""A @dval_snapshot_state value (>= 0), or @DVAL_EINVAL when <<snap>>
is NULL.""",
     errors=[("DVAL_EINVAL", "<<snap>> is NULL.")],
     own="""Nothing is allocated.""",
     thread=T_GETTER,
     see=sees("dval_snapshot_state_name", "dval_snapshot_ensure", "dval(7)"))

page("dval_snapshot_delete",
     summary="delete a snapshot remotely",
     desc="""@dval_snapshot_delete asks the executor to delete the snapshot.
Sandboxes already created from it are not affected. The handle stays valid
(its state becomes @DVAL_SNAPSHOT_REMOVING or unknown) and must still be
freed with @dval_snapshot_free. Deleting a snapshot that is already gone
succeeds.""",
     ret=R_ERRMSG("dval_client_errmsg"),
     errors=E_HANDLE + [("DVAL_ECONFLICT", "The snapshot is changing state; try again later.")] + E_REENT + E_REMOTE,
     own="""The handle still belongs to the caller.""",
     thread=T_HANDLE,
     see=sees("dval_snapshot_ensure", "dval_snapshot_free", "dval(7)"))

page("dval_snapshot_free",
     summary="release a snapshot handle",
     desc="""@dval_snapshot_free releases the handle and its reference to the
client. The remote snapshot is not touched (see @dval_snapshot_delete).
NULL does nothing. No I/O, no callbacks.""",
     ret="""None.""",
     errors=[],
     own="""Consumes the handle.""",
     thread=T_FREE,
     see=sees("dval_snapshot_ensure", "dval(7)"))

# ------------------------------------------------------------ sandbox

page("dval_sandbox_options_init",
     types=["dval_sandbox_options", "dval_state_fn"],
     summary="initialise sandbox options",
     desc="""@dval_sandbox_options_init zeroes the first <<size>> bytes of
*<<opts>> and sets struct_size. Zero fields mean: resources from the
snapshot, auto-stop after 60 minutes (-1: never), the server's auto-archive
default, no auto-delete, network @DVAL_NETWORK_DEFAULT (allowed on Daytona,
blocked locally), the client's target, release policy
@DVAL_RELEASE_KEEP, create and start timeouts of 180 s, a 5 s pause after
deleting a zombie sandbox (-1: none), recovery allowed, no state callback,
and local limits of 512 processes, 2 GiB of memory and 600 s of CPU time.
name is required by @dval_sandbox_acquire.""",
     ret=R_STATUS,
     errors=[("DVAL_EINVAL", "<<opts>> is NULL."),
             ("DVAL_EABI", "<<size>> is smaller than struct_size itself.")],
     own="""Only writes to *<<opts>>.""",
     thread=T_INIT,
     see=sees("dval_sandbox_acquire", "dval(7)"))

page("dval_sandbox_acquire",
     summary="get or create a sandbox and bring it to started",
     desc="""@dval_sandbox_acquire finds the sandbox named <<opts>>->name
(creating it from snapshot, or image, when it does not exist) and brings it
to the started state whatever state it was left in. The recovery ladder is:

= started :: use it.
= creating, starting, restoring, pulling_snapshot, building_snapshot, pending_build :: wait (create_timeout_ms / start_timeout_ms).
= stopped, archived, paused :: start it and wait.
= stopping, archiving, pausing, resizing, snapshotting, forking :: wait for the transition, then start.
= error (recoverable) :: recover it server-side, unless no_recover is set.
= error, build_failed, or an init that died (zombie) :: delete it, pause zombie_pause_ms, create it again.
= destroying, destroyed :: wait until it is gone, then create it again.
= name taken during creation (@DVAL_EEXISTS) :: another client won the race: get it and continue on the ladder.

Transitions are reported to on_state (with state_userdata) as they are
observed. Labels and environment variables are applied only when the sandbox
is created.""",
     ret=R_ERRMSG("dval_client_errmsg"),
     errors=[("DVAL_EINVAL", "<<out>>, <<client>> or <<opts>> is NULL, or name, labels or env are malformed."),
             ("DVAL_EABI", "<<opts>>->struct_size is unknown."),
             ("DVAL_ENOTFOUND", "The snapshot named in <<opts>> does not exist."),
             ("DVAL_ETIMEOUT", "The sandbox did not reach started within create_timeout_ms / start_timeout_ms."),
             ("DVAL_ESTATE", "The sandbox is in a state the ladder cannot leave (for example stuck after recovery)."),
             ("DVAL_ECONFLICT", "The sandbox kept changing state under another client."),
             ("DVAL_EISOLATION", "Local executor: isolation is unavailable and allow_unisolated is 0.")]
            + E_REENT + E_REMOTE + E_ENOMEM,
     own=O_INPUTS + """ The sandbox handle belongs to the caller (release with
@dval_sandbox_free) and holds a reference to the client. The options are
copied, including the release policy used later by @dval_sandbox_release.""",
     thread=T_CLIENT + """ on_state runs on the calling thread, inside this
call. Two programs acquiring the same name concurrently end up sharing one
sandbox.""",
     see=sees("dval_sandbox_options_init", "dval_sandbox_release", "dval_sandbox_free", "dval_session_open", "dval(7)"))

page("dval_sandbox_get",
     summary="attach to an existing sandbox without starting it",
     desc="""@dval_sandbox_get looks the sandbox named (or identified by)
<<name_or_id>> up and returns a handle recording its current state. Unlike
@dval_sandbox_acquire it never creates, starts, recovers or waits, so a
stopped sandbox stays stopped: this is how a reaper stops or deletes leaked
sandboxes (@dval_sandbox_stop, @dval_sandbox_delete). Transient failures are
retried with the client's backoff.""",
     ret=R_ERRMSG("dval_client_errmsg") + " On failure *<<out>> is NULL.",
     errors=E_HANDLE + [("DVAL_EINVAL", "<<name_or_id>> is empty, too long, or contains '/', '..', control characters or invalid UTF-8."),
                        ("DVAL_ENOTFOUND", "No such sandbox.")] + E_ENOMEM + E_REMOTE,
     own="""On success *<<out>> belongs to the caller: release it with
@dval_sandbox_free. The handle holds a reference to the client.""",
     thread=T_CLIENT,
     see=sees("dval_sandbox_acquire", "dval_sandbox_list", "dval_sandbox_stop", "dval_sandbox_delete", "dval(7)"))

page("dval_sandbox_refresh",
     summary="re-read a sandbox's state",
     desc="""@dval_sandbox_refresh asks the executor for the sandbox's
current state and stores it in the handle, where @dval_sandbox_state reads
it. A sandbox deleted behind the program's back yields @DVAL_ENOTFOUND and
the state @DVAL_SANDBOX_DESTROYED.""",
     ret=R_ERRMSG("dval_sandbox_errmsg"),
     errors=E_HANDLE + [("DVAL_ENOTFOUND", "The sandbox no longer exists.")] + E_REENT + E_REMOTE,
     own="""Nothing is allocated for the caller.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_state", "dval_sandbox_acquire", "dval(7)"))

page("dval_sandbox_state",
     summary="last known state of a sandbox",
     desc="""@dval_sandbox_state returns the state recorded in the handle by
the last call that observed it (@dval_sandbox_acquire,
@dval_sandbox_refresh, @dval_sandbox_start, @dval_sandbox_stop,
@dval_sandbox_delete). It does no I/O.""",
     ret="""A @dval_sandbox_state value (>= 0), or @DVAL_EINVAL when <<sb>> is
NULL.""",
     errors=[("DVAL_EINVAL", "<<sb>> is NULL.")],
     own="""Nothing is allocated.""",
     thread=T_GETTER,
     see=sees("dval_sandbox_refresh", "dval_sandbox_state_name", "dval(7)"))

page("dval_sandbox_id",
     summary="executor identifier of a sandbox",
     desc="""@dval_sandbox_id returns the identifier the executor assigned to
the sandbox (a UUID on Daytona). It does no I/O.""",
     ret="""A string, or NULL when <<sb>> is NULL.""",
     errors=[],
     own=O_BORROWED_STR,
     thread=T_GETTER,
     see=sees("dval_sandbox_name", "dval_sandbox_acquire", "dval(7)"))

page("dval_sandbox_name",
     summary="name of a sandbox",
     desc="""@dval_sandbox_name returns the sandbox's name, as given in
@dval_sandbox_options when it was acquired. Session ids are derived from
it.""",
     ret="""A string, or NULL when <<sb>> is NULL.""",
     errors=[],
     own=O_BORROWED_STR,
     thread=T_GETTER,
     see=sees("dval_sandbox_id", "dval_session_open", "dval(7)"))

page("dval_sandbox_errmsg",
     summary="message of the last failed call on a sandbox",
     desc="""@dval_sandbox_errmsg returns a message that describes the last
failure of a call on <<sb>> (refresh, start, stop, delete, release, file
transfers, mkdir), including the HTTP status and server message where there
was one. "" when there was none.""",
     ret="""A NUL-terminated string; never NULL (also for NULL).""",
     errors=[],
     own="""Borrowed: valid until the next call on the sandbox or until it is
freed.""",
     thread=T_GETTER,
     see=sees("dval_client_errmsg", "dval_session_errmsg", "dval_strerror", "dval(7)"))

for _n, _verb, _desc, _extra in (
        ("dval_sandbox_start", "start a stopped sandbox",
         """@dval_sandbox_start starts the sandbox and waits until it is
started (start_timeout_ms of its options). A sandbox that is already started
is left alone; one in a transition is waited for first.""",
         [("DVAL_ETIMEOUT", "The sandbox did not reach started in time."),
          ("DVAL_ESTATE", "The sandbox is in a state that cannot be started (error, destroyed).")]),
        ("dval_sandbox_stop", "stop a sandbox",
         """@dval_sandbox_stop stops the sandbox ("pause") and waits until it
is stopped. Files in the sandbox are kept; running commands are killed.
Stopping a stopped sandbox succeeds.""",
         [("DVAL_ETIMEOUT", "The sandbox did not reach stopped in time."),
          ("DVAL_ESTATE", "The sandbox is in a state that cannot be stopped.")]),
        ("dval_sandbox_delete", "delete a sandbox",
         """@dval_sandbox_delete deletes the sandbox and its files and waits
until it is gone. A sandbox that is already gone counts as deleted. The
handle stays valid (state @DVAL_SANDBOX_DESTROYED) and must still be freed;
sessions opened on it fail from then on.""",
         [("DVAL_ETIMEOUT", "The sandbox was not gone in time.")])):
    page(_n,
         summary=_verb,
         desc=_desc + """ Transitions are reported to the on_state callback of the
options the sandbox was acquired with.""",
         ret=R_ERRMSG("dval_sandbox_errmsg"),
         errors=E_HANDLE + _extra + [("DVAL_ECONFLICT", "A state change was already in progress and did not settle.")] + E_REENT + E_REMOTE,
         own="""Nothing is allocated for the caller; the handle stays owned by
the caller.""",
         thread=T_HANDLE,
         see=sees("dval_sandbox_acquire", "dval_sandbox_release", "dval_sandbox_state", "dval(7)"))

page("dval_sandbox_release",
     summary="apply a sandbox's release policy",
     desc="""@dval_sandbox_release does what the release field of the
options given to @dval_sandbox_acquire says: @DVAL_RELEASE_KEEP leaves the
sandbox running (its auto-stop timer still applies), @DVAL_RELEASE_STOP
stops it as @dval_sandbox_stop ("pause on exit": the next acquire starts it
again quickly), @DVAL_RELEASE_DELETE deletes it as @dval_sandbox_delete.
Call it when the program is done with the sandbox, before
@dval_sandbox_free.""",
     ret=R_ERRMSG("dval_sandbox_errmsg"),
     errors=E_HANDLE + [("DVAL_ETIMEOUT", "Stopping or deleting did not finish in time.")] + E_REENT + E_REMOTE,
     own="""The handle stays owned by the caller.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_stop", "dval_sandbox_delete", "dval_sandbox_free", "dval(7)"))

page("dval_sandbox_free",
     summary="release a sandbox handle",
     desc="""@dval_sandbox_free releases the handle and its reference to the
client. The remote sandbox is left as it is: use @dval_sandbox_release first
to stop or delete it. NULL does nothing. No I/O, no callbacks. Session
handles opened on the sandbox hold their own reference and stay usable.""",
     ret="""None.""",
     errors=[],
     own="""Consumes the handle.""",
     thread=T_FREE,
     see=sees("dval_sandbox_acquire", "dval_sandbox_release", "dval(7)"))

E_PATH = [("DVAL_EINVAL", """A pointer argument is NULL, or <<remote_path>> is empty or contains "..", NUL or
control characters.""")]

page("dval_sandbox_upload",
     summary="write a buffer to a file in a sandbox",
     desc="""@dval_sandbox_upload writes <<len>> bytes at <<data>> to
<<remote_path>> in the sandbox, replacing the file if it exists and creating
missing parent directories. Relative paths are relative to the sandbox's
working directory. <<data>> may be NULL when <<len>> is 0 (an empty
file).""",
     ret=R_ERRMSG("dval_sandbox_errmsg"),
     errors=E_HANDLE[:0] + E_PATH + [("DVAL_ETOOBIG", "The file is over a configured size limit."),
                                      ("DVAL_EIO", "Local executor: the file could not be written.")] + E_REENT + E_REMOTE,
     own="""<<data>> is read during the call only.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_upload_file", "dval_sandbox_download", "dval_sandbox_mkdir", "dval(7)"))

page("dval_sandbox_upload_file",
     summary="copy a local file into a sandbox",
     desc="""@dval_sandbox_upload_file streams the local file <<local_path>>
to <<remote_path>> in the sandbox, with bounded memory, creating missing
parent directories and replacing an existing file.""",
     ret=R_ERRMSG("dval_sandbox_errmsg"),
     errors=E_PATH + [("DVAL_EIO", "<<local_path>> could not be opened or read."),
                      ("DVAL_ETOOBIG", "The file is over a configured size limit.")] + E_REENT + E_REMOTE,
     own="""Paths are read during the call only.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_upload", "dval_sandbox_download_file", "dval(7)"))

page("dval_sandbox_download",
     summary="read a file from a sandbox into memory",
     desc="""@dval_sandbox_download reads the whole file <<remote_path>> and
stores a newly allocated buffer in *<<data>> and its length in *<<len>>. For
convenience the buffer is NUL-terminated; the terminator is not counted in
*<<len>>. The file may contain NUL bytes. Files larger than the client's
max_download_bytes are refused.""",
     ret=R_ERRMSG("dval_sandbox_errmsg") + """ On failure *<<data>> is NULL and
*<<len>> is 0.""",
     errors=E_PATH + [("DVAL_ENOTFOUND", "There is no such file."),
                      ("DVAL_ETOOBIG", "The file is larger than max_download_bytes.")] + E_REENT + E_REMOTE + E_ENOMEM,
     own="""*<<data>> belongs to the caller: release it with @dval_free.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_download_to", "dval_sandbox_download_json", "dval_free", "dval(7)"))

page("dval_sandbox_download_to",
     types=["dval_data_fn"],
     summary="stream a file from a sandbox to a callback",
     desc="""@dval_sandbox_download_to reads <<remote_path>> and passes its
bytes, in order, to <<sink>> with <<userdata>>, in chunks of at most 64
KiB, so memory stays bounded whatever the file size. A non-zero return from
<<sink>> stops the transfer with @DVAL_EABORTED. If the call fails, part of
the file may already have been delivered.""",
     ret=R_ERRMSG("dval_sandbox_errmsg"),
     errors=E_PATH + [("DVAL_ENOTFOUND", "There is no such file."),
                      ("DVAL_EABORTED", "<<sink>> returned non-zero."),
                      ("DVAL_ETOOBIG", "The file is larger than max_download_bytes.")] + E_REENT + E_REMOTE,
     own="""The data passed to <<sink>> is valid only during that callback.""",
     thread=T_HANDLE + """ <<sink>> runs on the calling thread, inside this
call.""",
     see=sees("dval_sandbox_download", "dval_sandbox_download_file", "dval(7)"))

page("dval_sandbox_download_file",
     summary="copy a file from a sandbox to a local file",
     desc="""@dval_sandbox_download_file streams <<remote_path>> into the
local file <<local_path>>, created or truncated, with bounded memory. After
a failure the local file may be incomplete: remove it.""",
     ret=R_ERRMSG("dval_sandbox_errmsg"),
     errors=E_PATH + [("DVAL_ENOTFOUND", "There is no such remote file."),
                      ("DVAL_EIO", "<<local_path>> could not be written."),
                      ("DVAL_ETOOBIG", "The file is larger than max_download_bytes.")] + E_REENT + E_REMOTE,
     own="""Paths are read during the call only.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_download_to", "dval_sandbox_upload_file", "dval(7)"))

page("dval_sandbox_download_json",
     summary="download a JSON results file and check it",
     desc="""@dval_sandbox_download_json downloads <<remote_path>>, checks
that it is valid UTF-8 and a single valid JSON document, and stores the
document as NUL-terminated text in *<<json>>. Programs under validation
write their results this way; @dval_validate uses it for every results
file.""",
     ret=R_ERRMSG("dval_sandbox_errmsg") + """ On failure *<<json>> is NULL.""",
     errors=E_PATH + [("DVAL_ENOTFOUND", "There is no such file."),
                      ("DVAL_ERESULTS", "The file is not UTF-8 or not valid JSON; the message gives the position."),
                      ("DVAL_ETOOBIG", "The file is larger than max_download_bytes.")] + E_REENT + E_REMOTE + E_ENOMEM,
     own="""*<<json>> belongs to the caller: release it with @dval_free.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_download", "dval_validate", "dval_free", "dval(7)"))

page("dval_sandbox_mkdir",
     summary="create a directory in a sandbox",
     desc="""@dval_sandbox_mkdir creates <<remote_path>> and any missing
parents. An existing directory is not an error.""",
     ret=R_ERRMSG("dval_sandbox_errmsg"),
     errors=E_PATH + [("DVAL_EEXISTS", "A non-directory is in the way.")] + E_REENT + E_REMOTE,
     own="""<<remote_path>> is read during the call only.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_upload", "dval(7)"))

page("dval_sandbox_list",
     types=["dval_sandbox_list_fn"],
     summary="list sandboxes by label",
     desc="""@dval_sandbox_list asks the executor for the sandboxes that carry
all the "key=value" labels in the NULL-terminated array <<labels>> (NULL
lists all) and calls <<each>> once per sandbox with its id, name and state
(a @dval_sandbox_state) and <<userdata>>. A non-zero return from <<each>>
stops the listing with @DVAL_EABORTED. It is used to find and clean up
sandboxes left behind by earlier runs.""",
     ret=R_ERRMSG("dval_client_errmsg"),
     errors=[("DVAL_EINVAL", "<<client>> or <<each>> is NULL, or a label is not key=value."),
             ("DVAL_EABORTED", "<<each>> returned non-zero.")] + E_REENT + E_REMOTE + E_ENOMEM,
     own="""The strings passed to <<each>> are valid only during that
callback.""",
     thread=T_CLIENT + """ <<each>> runs on the calling thread, inside this
call.""",
     see=sees("dval_sandbox_acquire", "dval_sandbox_state_name", "dval(7)"))

# ------------------------------------------------------------ session

page("dval_session_open",
     summary="open a command session in a sandbox",
     desc="""@dval_session_open creates a new remote session in the sandbox,
named "<sandbox name>-<uuid4>" (a random UUID), and returns its handle.
Commands of a session run one after the other; each runs in a child
shell of the session, so a command cannot end the session (and "cd" or
"export" in one command do not carry over to the next: use the cwd option
of @dval_session_exec or prefix the command). The sandbox must be started.""",
     ret=R_ERRMSG("dval_sandbox_errmsg"),
     errors=[("DVAL_EINVAL", "<<out>> or <<sb>> is NULL."),
             ("DVAL_ESTATE", "The sandbox is not started (or was deleted)."),
             ("DVAL_ENOTFOUND", "The sandbox no longer exists.")] + E_REENT + E_REMOTE + E_ENOMEM,
     own="""The session handle belongs to the caller (release with
@dval_session_free after @dval_session_close) and holds a reference to the
sandbox handle.""",
     thread=T_HANDLE + """ Several sessions of one sandbox may be used from
different threads at the same time.""",
     see=sees("dval_session_exec", "dval_session_close", "dval_session_free", "dval(7)"))

page("dval_session_id",
     summary="identifier of a session",
     desc="""@dval_session_id returns the session's id, "<sandbox
name>-<uuid4>".""",
     ret="""A string, or NULL when <<s>> is NULL.""",
     errors=[],
     own=O_BORROWED_STR,
     thread=T_GETTER,
     see=sees("dval_session_open", "dval(7)"))

page("dval_session_errmsg",
     summary="message of the last failed call on a session",
     desc="""@dval_session_errmsg returns a message describing the last
failure of @dval_session_exec or @dval_session_close on <<s>>, or "".""",
     ret="""A NUL-terminated string; never NULL.""",
     errors=[],
     own="""Borrowed: valid until the next call on the session or until it is
freed.""",
     thread=T_GETTER,
     see=sees("dval_client_errmsg", "dval_sandbox_errmsg", "dval(7)"))

page("dval_exec_options_init",
     types=["dval_exec_options"],
     summary="initialise command execution options",
     desc="""@dval_exec_options_init zeroes the first <<size>> bytes of
*<<opts>> and sets struct_size. Zero fields mean: channel prefix "" (output
channels are then "COMMAND_EXECUTION_STDOUT" and
"COMMAND_EXECUTION_STDERR"), the session's current directory, and no
timeout.""",
     ret=R_STATUS,
     errors=[("DVAL_EINVAL", "<<opts>> is NULL."),
             ("DVAL_EABI", "<<size>> is smaller than struct_size itself.")],
     own="""Only writes to *<<opts>>.""",
     thread=T_INIT,
     see=sees("dval_session_exec", "dval(7)"))

page("dval_session_exec",
     types=["dval_output_fn"],
     summary="run a command in a session with live output",
     desc="""@dval_session_exec runs <<command>> (a shell command line) in
the session and returns when it has exited. The command runs in a child
shell of the session, so "exit" or a crash does not end the session;
<<opts>>->cwd sets its working directory (default: the session's current
directory). <<opts>> may be NULL for defaults.

While it runs, its output is passed live to <<on_output>> (may be NULL)
with <<userdata>>: <<stream>> is @DVAL_STDOUT or @DVAL_STDERR,
<<channel>> is the channel prefix followed by
"COMMAND_EXECUTION_STDOUT" or "COMMAND_EXECUTION_STDERR", and
<<data>>/<<len>> is a chunk of at most 64 KiB that is not NUL-terminated
and never ends inside a UTF-8 sequence (invalid bytes are passed through
unchanged). Every byte is delivered exactly once, also when the log stream
had to be reconnected. A non-zero return from <<on_output>> stops the call
with @DVAL_EABORTED and kills the command.

The exit code is stored in *<<exit_code>> (may be NULL): the command's
status, or 128+N when it was killed by signal N. A non-zero exit code is
not an error of this call.

When timeout_ms passes, the command is killed and the call returns
@DVAL_ETIMEOUT. @dval_session_cancel, called from another thread, makes the
call return @DVAL_ECANCELED.""",
     ret=R_ERRMSG("dval_session_errmsg") + """ *<<exit_code>> is set only on
success.""",
     errors=[("DVAL_EINVAL", "<<s>> or <<command>> is NULL or empty."),
             ("DVAL_EABI", "<<opts>>->struct_size is unknown."),
             ("DVAL_ETIMEOUT", "The command ran longer than timeout_ms and was killed."),
             ("DVAL_ECANCELED", "@dval_session_cancel was called."),
             ("DVAL_EABORTED", "<<on_output>> returned non-zero."),
             ("DVAL_ESTATE", "The session was closed or its sandbox stopped.")] + E_REENT + E_REMOTE,
     own="""<<command>> and <<opts>> are read during the call. The data passed
to <<on_output>> is valid only during that callback.""",
     thread=T_HANDLE + """ <<on_output>> runs on the calling thread, inside
this call. Only @dval_session_cancel may be called on the session from
another thread while this call runs.""",
     see=sees("dval_exec_options_init", "dval_session_cancel", "dval_session_open", "dval(7)"))

page("dval_session_cancel",
     summary="cancel a running command from any thread",
     desc="""@dval_session_cancel makes a @dval_session_exec that is running
on <<s>> (in another thread, or in the same thread from inside its
on_output callback) kill its command and return @DVAL_ECANCELED soon after.
It is idempotent and coalescing: several calls have the effect of one.
After a cancel, close the session with @dval_session_close instead of
running further commands in it. This is how Go's context
cancellation and Python's KeyboardInterrupt reach the library.""",
     ret=R_STATUS,
     errors=[("DVAL_EINVAL", "<<s>> is NULL.")],
     own="""Nothing is allocated.""",
     thread="""Thread-safe and async-safe with respect to the session: may be
called from any thread, including from inside callbacks, while another
thread is inside @dval_session_exec. Not while the session is being
freed.""",
     see=sees("dval_session_exec", "dval_threads", "dval(7)"))

page("dval_session_close",
     summary="delete a remote session",
     desc="""@dval_session_close deletes the session on the executor, killing
whatever is still running in it. The handle stays valid and must still be
freed with @dval_session_free. Closing a session that is already gone
succeeds.""",
     ret=R_ERRMSG("dval_session_errmsg"),
     errors=[("DVAL_EINVAL", "<<s>> is NULL.")] + E_REENT + E_REMOTE,
     own="""The handle stays owned by the caller.""",
     thread=T_HANDLE,
     see=sees("dval_session_open", "dval_session_free", "dval(7)"))

page("dval_session_free",
     summary="release a session handle",
     desc="""@dval_session_free releases the handle and its reference to the
sandbox handle. The remote session is not deleted (see
@dval_session_close); it ends with its sandbox. NULL does nothing. No I/O,
no callbacks.""",
     ret="""None.""",
     errors=[],
     own="""Consumes the handle.""",
     thread=T_FREE,
     see=sees("dval_session_open", "dval_session_close", "dval(7)"))

# ------------------------------------------------------------ profiles

page("dval_profile_find",
     types=["dval_profile"],
     summary="look up a validation profile",
     desc="""@dval_profile_find returns the built-in or registered profile
called <<name>> ("dotnet", "java", "shell", ...). A profile describes how
to validate programs of one kind: the sandbox and snapshot names, the base
image and build steps of the snapshot, the output channel prefix, and the
shell command that runs the program in /sandbox/<thread_id> with
$DVAL_THREAD_ID, $DVAL_WORKDIR and $DVAL_RESULTS_DIR set. The local_*
fields adapt it to the local executor.""",
     ret="""A pointer to the profile, or NULL when <<name>> is NULL or
unknown.""",
     errors=[],
     own="""The profile is borrowed: do not modify or free it. It stays valid
until a profile of the same name is registered.""",
     thread="""Safe to call concurrently with other lookups; not against
@dval_profile_register of the same name.""",
     see=sees("dval_profile_register", "dval_profile_names", "dval_validate", "dval(7)"))

page("dval_profile_register",
     types=["dval_profile"],
     summary="register a host-defined validation profile",
     desc="""@dval_profile_register copies *<<profile>> (all strings and
arrays) into the process-wide profile table, so that @dval_validate and
@dval_profile_find can use it by name. A profile with the same name,
built-in or registered, is replaced. name, sandbox_name, snapshot_name and
run_command are required.""",
     ret=R_STATUS,
     errors=[("DVAL_EINVAL", "<<profile>> is NULL or a required field is missing or malformed."),
             ("DVAL_EABI", "<<profile>>->struct_size is unknown.")] + E_ENOMEM,
     own="""The profile is copied; the caller keeps ownership of its own
struct and strings.""",
     thread="""Serialised internally, but invalidates pointers previously
returned by @dval_profile_find for the same name and the array of
@dval_profile_names: register profiles at start-up, before other threads
use them.""",
     see=sees("dval_profile_find", "dval_profile_names", "dval(7)"))

page("dval_profile_names",
     summary="list the names of all validation profiles",
     desc="""@dval_profile_names stores in *<<names>> a NULL-terminated array
with the names of all built-in and registered profiles.""",
     ret="""The number of names (>= 0), or a negative status.""",
     errors=[("DVAL_EINVAL", "<<names>> is NULL.")] + E_ENOMEM,
     own="""The array and its strings are static and borrowed: do not free
them.""",
     thread="""Not thread-safe against @dval_profile_register, which may
replace the array.""",
     see=sees("dval_profile_find", "dval_profile_register", "dval(7)"))

# ------------------------------------------------------------ validate

page("dval_validation_init",
     types=["dval_validation"],
     summary="initialise a validation request",
     desc="""@dval_validation_init zeroes the first <<size>> bytes of
*<<req>> and sets struct_size. Zero fields mean: a random UUID as thread
id, the profile's sandbox name, snapshot name and run command, no exec
timeout, release policy @DVAL_RELEASE_KEEP, no extra labels, and missing
results are an error. profile and source_dir are required by
@dval_validate.""",
     ret=R_STATUS,
     errors=[("DVAL_EINVAL", "<<req>> is NULL."),
             ("DVAL_EABI", "<<size>> is smaller than struct_size itself.")],
     own="""Only writes to *<<req>>.""",
     thread=T_INIT,
     see=sees("dval_validate", "dval(7)"))

page("dval_validate",
     types=["dval_event", "dval_event_fn"],
     summary="run a program in a sandbox and collect its results",
     desc="""@dval_validate performs the whole validation loop for the
program in the local directory <<req>>->source_dir, using the profile
<<req>>->profile:

- snapshot: @dval_snapshot_ensure for the profile's snapshot;
- sandbox: @dval_sandbox_acquire of the profile's sandbox (or
sandbox_name), with the extra labels;
- session: @dval_session_open;
- upload: source_dir is copied to /sandbox/<thread_id>;
- exec: the run command runs there, output streamed live;
- download: every file in the results directory is fetched with
@dval_sandbox_download_json;
- close: the session is closed and the sandbox released according to
release.

Progress is reported to <<on_event>> (may be NULL) with <<userdata>>:
@DVAL_EVENT_PHASE when a phase starts and finishes (with its status and
duration), @DVAL_EVENT_OUTPUT for each output chunk (as in
@dval_session_exec), @DVAL_EVENT_BUILD_LOG for snapshot build logs and
@DVAL_EVENT_STATE for sandbox state changes. A non-zero return stops the
call with @DVAL_EABORTED; the session is still closed.

On success *<<result_json>> is a JSON summary:

  {"exit_code":N,"results":{"<file>":<json>,...},"thread_id":"...",
   "sandbox":"...","session":"...","timings_ms":{...}}""",
     ret="""Returns @DVAL_OK when the program ran, whatever its exit code, and
its results are valid JSON (or missing with allow_missing_results). Else a
negative status; @dval_client_errmsg describes it and *<<result_json>> is
NULL.""",
     errors=[("DVAL_EINVAL", "A required argument or field is missing, or thread_id is not a safe path component."),
             ("DVAL_ENOTFOUND", "The profile is unknown."),
             ("DVAL_EUNSUPPORTED", "The profile cannot run with this executor (its local_requires test failed)."),
             ("DVAL_EIO", "source_dir could not be read."),
             ("DVAL_ERESULTS", "No results were written, or a results file is not UTF-8 JSON."),
             ("DVAL_EBUILD", "The profile's snapshot failed to build."),
             ("DVAL_ETIMEOUT", "The program ran longer than timeout_ms."),
             ("DVAL_EABORTED", "<<on_event>> returned non-zero.")] + E_REENT + E_REMOTE + E_ENOMEM,
     own=O_INPUTS + """ *<<result_json>> belongs to the caller: release it with
@dval_free. Event fields are valid only during the callback.""",
     thread=T_CLIENT + """ Concurrent validations on one client are supported
(each uses its own session); <<on_event>> runs on the calling thread.""",
     see=sees("dval_validation_init", "dval_profile_find", "dval_session_exec", "dval_free", "dval(7)"))

# ------------------------------------------------------------ executor

page("dval_executor_init",
     types=["dval_executor"],
     summary="initialise a custom executor vtable",
     desc="""@dval_executor_init zeroes the first <<size>> bytes of *<<ex>>
(every member NULL) and sets struct_size. Fill in name, userdata, destroy
and the members the executor implements, then pass the struct as
custom_executor in @dval_client_options. Members left NULL make the core
return @DVAL_EUNSUPPORTED for operations that need them. The contract of
every member is in @dval_executor(3).""",
     ret=R_STATUS,
     errors=[("DVAL_EINVAL", "<<ex>> is NULL."),
             ("DVAL_EABI", "<<size>> does not even cover the fixed head (struct_size, name, userdata, destroy).")],
     own="""Only writes to *<<ex>>. @dval_client_new copies the struct; the
caller's copy may be discarded afterwards.""",
     thread=T_INIT,
     see=sees("dval_executor", "dval_client_new", "dval(7)"))

# ------------------------------------------------------------ overview pages

import re as _re  # noqa: E402
import os as _os  # noqa: E402

_HDR = open(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)),
                          "..", "..", "..", "include", "dval.h"), encoding="utf-8").read()
_CODES = _re.findall(r"^\s*(DVAL_[A-Z]+)\s*=\s*(-?\d+),?\s*/\*\s*(.*?)\s*\*/", _HDR, _re.M)
_CODES = [("DVAL_OK", "0", "success")] + [c for c in _CODES if c[0] != "DVAL_OK" and int(c[1]) < 0]

_MORE = {
    "DVAL_OK": "The call succeeded.",
    "DVAL_ERROR": "A failure with no more specific code, for example when process initialisation fails.",
    "DVAL_ENOMEM": "An allocation failed. The call had no other effect.",
    "DVAL_EINVAL": "A required pointer was NULL, or a name, path, label or option value is malformed. Nothing was sent to the executor.",
    "DVAL_EABI": "The struct_size of an options struct or of the executor vtable is smaller than the library accepts, or a struct from a newer header has non-zero fields this library does not know. Rebuild against the installed header or upgrade the library.",
    "DVAL_ENOTFOUND": "The snapshot, sandbox, session, remote file or profile does not exist.",
    "DVAL_EEXISTS": "The name is already taken (executor members report it from snapshot_create and sandbox_create; the core resolves the race).",
    "DVAL_EAUTH": "Credentials are missing (no API key or JWT for the daytona executor) or the server rejected them with HTTP 401.",
    "DVAL_EFORBIDDEN": "The server answered HTTP 403: the credentials lack permission for the organisation or object.",
    "DVAL_ETIMEOUT": "A deadline passed: a request timeout, a state wait (create, start, build), or an exec timeout_ms.",
    "DVAL_ENETWORK": "The connection could not be made or was reset, after the retries allowed for the operation.",
    "DVAL_EPROTOCOL": "The server's reply was not what the protocol allows (invalid JSON, missing fields, bad WebSocket framing).",
    "DVAL_ESERVER": "The server failed with HTTP 5xx, after retries on idempotent requests.",
    "DVAL_ERATELIMIT": "The server answered HTTP 429 until all retries (honouring Retry-After) were used.",
    "DVAL_ECONFLICT": "The server answered HTTP 409: a state change of the object is in progress.",
    "DVAL_ESTATE": "The object is in a state that forbids the call, for example exec on a closed session or a sandbox that cannot be started.",
    "DVAL_EABORTED": "A callback of the program returned non-zero. Errors raised inside callbacks always come back as this code.",
    "DVAL_ECANCELED": "dval_session_cancel() was called for the session: the blocked dval_session_exec() killed its command and returned.",
    "DVAL_EREENTRANT": "A dval_* function was called from inside a callback on the same handle tree. Getters, the *_errmsg functions and dval_session_cancel() are allowed there.",
    "DVAL_EEXEC": "The executor failed in a way no other code describes; the handle's error message has the details.",
    "DVAL_EPASSTHROUGH": "Returned by a custom executor member only: the core should use its built-in behaviour. Never returned to the program.",
    "DVAL_EUNSUPPORTED": "The executor does not implement the operation (a NULL vtable member), or the build lacks the feature.",
    "DVAL_EISOLATION": "The local executor cannot create the namespaces it needs and allow_unisolated is not set: it fails closed.",
    "DVAL_EBUILD": "The snapshot build failed (state error or build_failed); the message carries the server's errorReason.",
    "DVAL_ETOOBIG": "A download or results body is larger than max_download_bytes, or an upload over a limit.",
    "DVAL_EIO": "Reading or writing a local file or directory failed.",
    "DVAL_ERESULTS": "The results are missing, not UTF-8, or not valid JSON.",
    "DVAL_EBADREQUEST": "The server rejected the request with HTTP 400 or 422 (for example an invalid snapshot image).",
}

page("dval_errors",
     section="3",
     protos=["dval_strerror", "dval_status_name"],
     summary="status codes of libdaytona-validate",
     desc="""Every fallible function returns an int: @DVAL_OK (0) on success or
one of the negative values below. The values are fixed: they are never
renumbered or reused, and new codes are added with new values. Programs
should treat unknown negative values as @DVAL_ERROR.

@dval_strerror gives a short English text for a code, @dval_status_name its
symbolic name. The message of the failed call itself comes from the handle
it was made on: @dval_client_errmsg, @dval_sandbox_errmsg,
@dval_session_errmsg. These are per handle, not thread-local.

"""
     + "\n".join("= %s (%s) :: %s" % (n, v, _MORE[n])
                 for n, v, t in _CODES)
     + """

Errors that start in a callback are always reported as @DVAL_EABORTED,
never as a transport error. When a function that takes a callback fails
before starting work (for example with @DVAL_EINVAL), the callback is never
called.""",
     extra=[("HTTP STATUS MAPPING", """The daytona executor maps HTTP replies as
follows: 400 and 422 @DVAL_EBADREQUEST, 401 @DVAL_EAUTH, 403
@DVAL_EFORBIDDEN, 404 @DVAL_ENOTFOUND, 409 @DVAL_ECONFLICT, 429
@DVAL_ERATELIMIT (after retries), other 5xx @DVAL_ESERVER (after retries on
idempotent requests); connection failures @DVAL_ENETWORK.""")],
     see=sees("dval_strerror", "dval_status_name", "dval_client_errmsg", "dval(7)"))

page("dval_threads",
     protos=[],
     summary="threading rules of libdaytona-validate",
     desc="""The library starts no threads of its own. Every callback runs on
the thread that called the dval_* function that takes it, during that call.

= dval_client :: May be shared by any number of threads. Its configuration is immutable after @dval_client_new; shared state (connection cache, retry random state, profile table) is locked internally. Each request in flight uses its own connection handle.
= dval_snapshot, dval_sandbox, dval_session :: Used by one thread at a time. Different handles, also of the same client or sandbox, may be used concurrently: several threads may each run a session of the same sandbox.
= dval_session_cancel :: Callable from any thread at any time (except while the session is being freed), including from inside callbacks. It is idempotent; the blocked @dval_session_exec returns @DVAL_ECANCELED.
= status and version functions :: @dval_strerror, @dval_status_name, @dval_version, @dval_version_num and the state name functions are callable from any thread.
= option initialisers :: Touch only the caller's memory.
= dval_global_init, dval_global_cleanup :: Thread-safe, reference counted.
= profiles :: @dval_profile_register is serialised, but invalidates pointers returned by @dval_profile_find and @dval_profile_names; register profiles before other threads use them.

Reentrancy: inside a callback, any dval_* call on the same handle tree
returns @DVAL_EREENTRANT, except getters, the *_errmsg functions and
@dval_session_cancel.

Error messages are stored per handle, not in thread-local storage. A Go
goroutine that moves to another OS thread between a failing call and
@dval_client_errmsg still reads the right message; no LockOSThread is
needed. A message is valid until the next call on the same handle.

Handles hold atomic references to their parents, so handles may be freed in
any order, from any thread, as long as each handle is freed once and not
while in use. Finalizers of garbage-collected languages may therefore run
in any order.

libcurl is initialised once by @dval_global_init (implicitly by the first
@dval_client_new). Debian 12's libcurl is built thread-safe
(CURL_VERSION_THREADSAFE); with a libcurl that is not, call
@dval_global_init before starting threads.

The local executor forks helper processes; it does only async-signal-safe
work between fork and exec, so it is safe in multi-threaded hosts such as
Go and Python programs.""",
     see=sees("dval_session_cancel", "dval_global_init", "dval_errors", "dval(7)"))

page("dval_executor",
     types=["dval_call", "dval_snapshot_info", "dval_sandbox_info", "dval_chunk_fn", "dval_sandbox_info_fn", "dval_executor"],
     protos=["dval_executor_init"],
     summary="the executor vtable a host can plug in",
     desc="""An executor performs primitive remote operations; the core
implements every policy on top of them: retries with backoff and
Retry-After, the sandbox recovery ladder, state waits with deadlines,
session naming, log demultiplexing and UTF-8 chunking, results download
and JSON checks, and cancellation. The built-in "daytona" and "local"
executors use the same vtable.

To plug in an executor, initialise a struct with @dval_executor_init, fill
in name, userdata, destroy and the members it implements, and pass it as
custom_executor in @dval_client_options. @dval_client_new copies the
struct; destroy(userdata) is called exactly once, when the client is
finally freed (never when @dval_client_new fails: the caller then keeps
ownership of userdata).""",
     extra=[("GENERAL CONTRACT", """- Every member returns @DVAL_OK or a negative status. On failure it
writes a message into c->errmsg (at most @DVAL_ERRMSG_MAX bytes, NUL
terminated) and, where known, c->http_status and c->retry_after_ms (the
server's hint; -1 for none). The core uses these to decide on retries.
- "Not found" is @DVAL_ENOTFOUND; a taken name in snapshot_create or
sandbox_create is @DVAL_EEXISTS.
- A NULL member means the operation is unsupported (@DVAL_EUNSUPPORTED).
A member may return @DVAL_EPASSTHROUGH to ask for the built-in behaviour
where there is one (for example command_cancel: the core then deletes the
session).
- Members are called on the thread that called the dval_* function, never
concurrently for the same handle, but possibly concurrently for different
sessions or sandboxes: the executor must be thread-safe across handles.
- Members may block up to c->timeout_ms (0: no limit) and must return
@DVAL_ECANCELED soon after c->cancel_fd becomes readable (-1: cannot be
canceled). Poll it together with your own descriptors.
- Diagnostics may go to c->log_fn(level, msg, c->log_userdata) when it is
not NULL.
- Input strings and structs are borrowed for the call. Output structs
(dval_snapshot_info, dval_sandbox_info) are owned by the core; fill id,
name, state, error_reason (and recoverable) with NUL-terminated strings
within @DVAL_ID_MAX / @DVAL_REASON_MAX.
- Members must not call dval_* functions on the same client."""),
            ("MEMBERS", """= snapshot_get :: Looks up a snapshot by name or id and fills *out.
= snapshot_create :: Creates a snapshot from the spec. May build synchronously, delivering build output to log with stream @DVAL_STDOUT; @DVAL_EEXISTS when the name is taken.
= snapshot_activate :: Reactivates an inactive snapshot.
= snapshot_delete :: Deletes a snapshot; gone already is @DVAL_ENOTFOUND.
= snapshot_logs :: Follows the build log from byte offset from until it ends (@DVAL_OK) or c->timeout_ms passes (@DVAL_ETIMEOUT).
= sandbox_get, sandbox_create, sandbox_start, sandbox_stop, sandbox_delete, sandbox_recover :: Lifecycle primitives; each reports the resulting dval_sandbox_info without waiting for a transition to finish (the core waits). sandbox_recover asks the server to recover a recoverable error state.
= sandbox_list :: Calls each(info, each_ud) per sandbox carrying all labels; stop when it returns non-zero and return @DVAL_EABORTED.
= session_create, session_delete :: Create and delete a named session in a sandbox.
= command_start :: Starts a command asynchronously and writes its id (shorter than @DVAL_ID_MAX) into cmd_id.
= command_status :: Sets *finished = 1 and *exit_code once the command has exited.
= stream_open, stream_read, stream_close :: A live log stream of the command from its first byte. stream_read waits up to c->timeout_ms and passes what arrived to sink (stream @DVAL_STDOUT/@DVAL_STDERR, or @DVAL_STREAM_RAW for Daytona-multiplexed bytes the core demultiplexes); it returns @DVAL_OK also when nothing arrived and sets *closed = 1 when the stream ended normally. The core de-duplicates replayed bytes after a reconnect.
= command_logs :: The whole log so far, not following (used to reconcile after the stream).
= file_upload :: Pulls bytes from src (a @dval_read_fn) and writes remote_path, creating parents; size is -1 when unknown.
= file_download :: Passes the file's bytes to sink.
= folder_create :: Creates a directory and its parents.
= command_cancel :: Kills a running command's process group. NULL or @DVAL_EPASSTHROUGH: the core deletes the session instead.""")],
     ret="""@dval_executor_init returns @DVAL_OK, or @DVAL_EINVAL for NULL, or
@DVAL_EABI when size does not cover the fixed head.""",
     errors=[("DVAL_EABI", "@dval_client_new: the custom executor's struct_size is smaller than the head or larger than this library knows."),
             ("DVAL_EPASSTHROUGH", "Returned by members only, never to programs.")],
     own="""The vtable struct is copied by @dval_client_new; function pointers
and userdata must stay valid until destroy is called.""",
     thread="""See GENERAL CONTRACT and @dval_threads(3).""",
     see=sees("dval_executor_init", "dval_client_new", "dval_errors", "dval(7)"))

page("dval",
     section="7",
     protos=[],
     summary="run untrusted programs in Daytona or local sandboxes",
     desc="""libdaytona-validate runs untrusted, machine-generated programs
inside isolated sandboxes and brings their results back. It drives either a
Daytona server (cloud or self-hosted) over HTTP, or an embedded local
executor that builds the same objects from Linux namespaces and overlay
layers, or an executor supplied by the host program. The only public header
is <dval.h>; the library is libdaytona-validate.so.0.""",
     extra=[("LIFECYCLE", """A typical program goes through these steps; @dval_validate runs
all of them for a profile:

  dval_client_new(&c, &opts)             configuration, executor choice
  dval_snapshot_ensure(&snap, c, &spec)  get or build the image, wait
  dval_sandbox_acquire(&sb, c, &sbopts)  get or create, bring to started
  dval_session_open(&s, sb)              "<sandbox>-<uuid4>"
  dval_sandbox_upload(sb, path, ...)     put the program in place
  dval_session_exec(s, cmd, ...)         run it, output streamed live
  dval_sandbox_download_json(sb, ...)    fetch and check its results
  dval_session_close(s)                  delete the remote session
  dval_sandbox_release(sb)               keep, stop or delete
  dval_*_free(...)                       release the handles, any order

Objects: a snapshot is a prepared image (a base image plus build steps); a
sandbox is an isolated machine created from a snapshot, which persists and
moves between states (@dval_sandbox_state_name(3)); a session is a shell in
a sandbox in which commands run one after the other."""),
            ("CONVENTIONS", """- Every fallible function returns int: @DVAL_OK (0) or a negative
status (@dval_errors(3)). The detail is in @dval_client_errmsg,
@dval_sandbox_errmsg or @dval_session_errmsg of the handle the call was made
on.
- Handles are opaque. Output parameters come first and are set to NULL on
failure. Each handle is released with its _free function, which accepts
NULL, does no I/O and calls no callbacks; children keep their parent alive,
so handles may be freed in any order. Remote actions (delete, stop, close)
are separate functions that can fail.
- Options are size-prefixed structs: call dval_X_init(&o, sizeof o), or
zero the struct and set struct_size. All-zero fields mean defaults, and
fields are only ever appended, so a program built against an older header
keeps working.
- Strings are UTF-8. Durations are int64_t milliseconds. Arrays of strings
are NULL-terminated.
- Callbacks return int (non-zero stops the call, which returns
@DVAL_EABORTED), take userdata last, and run on the calling thread inside
the call (@dval_threads(3)).
- Memory the library returns to the caller is released with @dval_free.
Strings returned by getters are borrowed from their handle.
- No variadic functions; no types of dependencies (libcurl, jansson) in the
header. Language bindings (ctypes, cffi, cgo) need no C shims."""),
            ("CONFIGURATION", """Without options, a client reads DAYTONA_API_URL, DAYTONA_API_KEY,
DAYTONA_JWT_TOKEN, DAYTONA_ORGANIZATION_ID and DAYTONA_TARGET, and uses the
daytona executor when a key or JWT is set, else the local executor (state
under $XDG_STATE_HOME/daytona-validate). See @dval_client_options_init(3)."""),
            ("ABI", """The library follows semantic versioning with a stable ABI
within a SONAME: exported functions are never removed or changed, status
codes and enum values never renumbered, and structs grow only at the tail
of size-prefixed structs. New behaviour comes as new functions. Use
@dval_version_num at run time to check for features.""")],
     see=sees("dval_client_new", "dval_snapshot_ensure", "dval_sandbox_acquire",
              "dval_session_exec", "dval_validate", "dval_errors", "dval_threads",
              "dval_executor", "daytona-validate(1)"))
