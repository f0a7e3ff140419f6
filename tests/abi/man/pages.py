"""Man page content for libdaytona-validate (rendered by gen.py).

Keep this accurate to include/dval.h: the SYNOPSIS is taken from the header,
everything else is written here.
"""

# ------------------------------------------------------------ shared text

T_ANY = """Thread-safe: may be called from any thread at any time, also from
inside callbacks. The returned string is static."""

T_CLIENT = """The client may be shared by several threads: its configuration is
immutable after @dval_client_new and shared caches are locked internally.
The client has a single error message, shared by all threads: when several
threads fail on one client at the same time, @dval_client_errmsg may show
another thread's message. There is no reentrancy guard: calling this from
inside a callback of the same client is not detected. See
@dval_threads(3)."""

T_HANDLE = """The handle (and the objects derived from it) must be used by one
thread at a time; different handles may be used concurrently, also when they
share a client. Called from inside a callback that the library is running
for the same client (output, state, build log, download, list or event
callbacks), it returns @DVAL_EREENTRANT and does nothing. See
@dval_threads(3)."""

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
variables DAYTONA_API_URL (then DAYTONA_SERVER_URL), DAYTONA_API_KEY,
DAYTONA_JWT_TOKEN, DAYTONA_ORGANIZATION_ID and DAYTONA_TARGET; empty
variables count as unset. The API URL defaults to
https://app.daytona.io/api. A JWT, when set, is used instead of the API key
and needs an organization id.
- executor: "daytona" when an API key or JWT is configured, else "local".
custom_executor, when set, wins over executor (see @dval_executor(3)).
- log_level @DVAL_LOG_INFO (messages up to that level reach log_fn); no
log callback.
- retries: retry_attempts 5 (attempts in all, the first one included),
retry_base_ms 1000, retry_factor 2, retry_cap_ms 60000: the delay after
failed attempt n (n = 1, 2, ...) is min(cap, base * factor^(n-1)), so 1, 2,
4 and 8 s by default. With retry_jitter non-zero each delay is drawn
uniformly from [0, delay) ("full jitter"). A server Retry-After hint
replaces the computed delay (it is not capped). Zero or negative values
mean the default.
- connect_timeout_ms 10000, request_timeout_ms 120000.
- ca_bundle: the system store; insecure_skip_tls_verify 0.
- state_dir (local executor): $XDG_STATE_HOME/daytona-validate when
XDG_STATE_HOME is an absolute path, else $HOME/.local/state/daytona-validate;
allow_unisolated 0 (fail closed with @DVAL_EISOLATION when namespaces are
unavailable).
- max_download_bytes: 64 MiB.""",
     ret=R_STATUS,
     errors=[("DVAL_EINVAL", "<<opts>> is NULL."),
             ("DVAL_EABI", "<<size>> is smaller than sizeof(size_t), the struct_size field itself.")],
     own="""Only writes to *<<opts>> (all <<size>> bytes), which the caller
owns.""",
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

No network I/O happens here: problems with the server or the credentials
surface in the first call that talks to it. The local executor creates its
state directory (state_dir/sandboxes and state_dir/snapshots) here, but
checks isolation only when it first builds a snapshot or creates or starts
a sandbox. Every client takes a reference of the process initialisation, as
@dval_global_init does, and drops it when it is destroyed.

When the options carry a log callback, a failure found after the options
were accepted is also reported through it at @DVAL_LOG_ERROR.""",
     ret="""Returns @DVAL_OK and stores the client in *<<out>>, or a negative
status and stores NULL in *<<out>> (when <<out>> is not NULL). As there is
no client yet, the reason of a failure goes to the log callback of
<<opts>> only.""",
     errors=[("DVAL_EINVAL", "<<out>> is NULL, the API URL does not start with http:// or https://, executor names an unknown executor, a JWT is configured without an organization id, or (local executor) neither an absolute XDG_STATE_HOME nor HOME is set and state_dir is NULL."),
             ("DVAL_EABI", "<<opts>>->struct_size is smaller than sizeof(size_t), or larger than this library knows with non-zero bytes in the unknown tail; or the custom executor's struct_size is smaller than its head or larger than this library knows."),
             ("DVAL_EAUTH", "The daytona executor was selected explicitly but neither an API key nor a JWT is configured."),
             ("DVAL_EIO", "Local executor: the state directory could not be created."),
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
handle) is freed too; the executor's destroy member is then called exactly
once. NULL does nothing.

Freeing never does network I/O and never calls user callbacks other than the
custom executor's destroy. Remote objects are left as they are; release
them first with @dval_sandbox_release, @dval_sandbox_delete or
@dval_session_close if they should not outlive the program. Exception: the
local executor keeps its sessions in the client's process, so destroying
the client kills every command still running in a session of it (the
sandboxes and their files stay).""",
     ret="""None.""",
     errors=[],
     own="""Consumes the caller's reference; <<client>> must not be used
afterwards (children remain usable).""",
     thread=T_FREE,
     see=sees("dval_client_new", "dval(7)"))

page("dval_client_errmsg",
     summary="message of the last failed call on a client",
     desc="""@dval_client_errmsg returns a human-readable message describing
the last failure recorded on <<client>>, for example "snapshot
validation-snapshot-java: snapshot validation-snapshot-java is build_failed:
...". The calls that record their failures here are @dval_snapshot_ensure,
@dval_snapshot_get, @dval_snapshot_delete, @dval_sandbox_acquire,
@dval_sandbox_get, @dval_sandbox_list, @dval_session_open and
@dval_validate (which sets it to "" when it succeeds). The other calls on snapshots, sandboxes and sessions
use @dval_sandbox_errmsg and @dval_session_errmsg. It is "" when no failure
was recorded.

A successful call does not clear the message, and not every failure sets
it: @DVAL_ENOMEM, a NULL argument other than the client, and
@DVAL_EUNSUPPORTED from @dval_snapshot_delete leave the previous message in
place. Check the status first.

A thread reads back the last message it caused itself on this client, so
threads sharing a client never see each other's failures; that string
stays valid until the thread's next failure on any client. A thread whose
last failure was on another client, or that caused none (for example a Go
goroutine that moved to another OS thread between the two calls), reads
the newest message recorded on the client, which stays intact until 15
newer ones were recorded. Bindings therefore need no thread pinning; copy
the string soon.""",
     ret="""A NUL-terminated string; never NULL. For a NULL client it is the
static string "no client".""",
     errors=[],
     own="""Borrowed from the client: it is overwritten by the next failure
recorded on the client, by any thread, and freed with the client. Copy it
to keep it.""",
     thread="""May be called from any thread and from inside callbacks. It reads
the buffer without a lock: when another thread records a failure on the
same client at the same time, the text read may be that thread's message
or a mix of both. Programs that share a client between threads and need
exact messages should serialise their calls on it. See @dval_threads(3).""",
     see=sees("dval_strerror", "dval_sandbox_errmsg", "dval_session_errmsg", "dval(7)"))

page("dval_client_executor_name",
     summary="name of the executor a client uses",
     desc="""@dval_client_executor_name returns "daytona", "local" or, for a
custom executor, its name member ("custom" when that was NULL), truncated
to 63 bytes. Programs use it to report which backend ran their code.""",
     ret="""A NUL-terminated string; never NULL. For a NULL client it is
"".""",
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
server's default resources, the client's target, report a snapshot found in
a failed state as @DVAL_EBUILD instead of rebuilding it (rebuild_failed 0),
and a build timeout of 60 minutes per attempt. name is required by
@dval_snapshot_ensure; image, or a dockerfile, describes the base.

On Daytona, build_commands become a generated Dockerfile ("FROM image"
plus one RUN line per command) and dockerfile replaces it; with neither,
the snapshot is created from image directly; target is sent as the
region. The local executor ignores dockerfile and the resources; image
names the snapshot's root filesystem: debian:12*, debian:bookworm* and the
built-in profiles' images map to a Debian 12 root built once per machine
with mmdebstrap (the java profile's to Debian 12 with OpenJDK 17 and Maven),
"dir:/path", "tar:/path.tar[.gz]" and "oci:/layout[:tag]" import a root the
user has, and any other image fails with @DVAL_EUNSUPPORTED. build_commands
then run with /bin/sh inside that root, as root, with the network (see
dval(7)).""",
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
<<spec>>->name exists and is active, and returns a handle to it in *<<out>>.
It looks the snapshot up and acts on its state:

- active: nothing else happens;
- pending, building or pulling: it waits, polling once a second and
following the build log;
- inactive: it activates it and waits;
- removing: it waits until it is gone, then creates it;
- error or build_failed, found on arrival: with rebuild_failed set it
deletes it, waits until it is gone and builds it again; else it fails with
@DVAL_EBUILD and the server's errorReason as message;
- absent: it creates it (see @dval_snapshot_spec_init(3) for how the spec
is used) and waits. When another client creates it at the same moment
(@DVAL_EEXISTS), it uses that one.

A build that this call started itself and that fails is deleted and built
again, whatever rebuild_failed says, until retry_attempts builds have
failed; a @DVAL_ECONFLICT is also retried that way. The delay between these
attempts follows the client's backoff. Each executor request is retried on
its own as well (see RETRIES in @dval_executor(3)). Failed attempts are
reported to the client's log callback at @DVAL_LOG_WARN.

Build output is passed to <<on_build_log>> (may be NULL) with <<userdata>>
while the snapshot is building or pulling (and, on the local executor,
during the build itself); a non-zero return from it stops the call with
@DVAL_EABORTED, but the build itself goes on. build_timeout_ms bounds the
waits of each attempt, not the whole call. The call cannot be canceled.""",
     ret=R_ERRMSG("dval_client_errmsg") + " On failure *<<out>> is NULL.",
     errors=[("DVAL_EINVAL", "<<out>>, <<client>> or <<spec>> is NULL, or name is empty, 256 bytes or longer, or contains '..', a backslash, '?', '#', '%', a space, control characters or invalid UTF-8."),
             ("DVAL_EABI", "<<spec>>->struct_size is smaller than sizeof(size_t), or larger than this library knows with non-zero unknown fields."),
             ("DVAL_EBUILD", "The snapshot was found in error or build_failed and rebuild_failed is 0, or the builds this call started failed retry_attempts times."),
             ("DVAL_ETIMEOUT", "The snapshot was not active (or not gone) within build_timeout_ms."),
             ("DVAL_EABORTED", "<<on_build_log>> returned non-zero."),
             ("DVAL_ECONFLICT", "The server answered HTTP 409 on every attempt."),
             ("DVAL_ESTATE", "The snapshot kept changing state (eight rounds of the ladder without reaching active)."),
             ("DVAL_ENOTFOUND", "The snapshot was deleted by someone else while this call waited for it."),
             ("DVAL_EISOLATION", "Local executor: isolation is unavailable and allow_unisolated is 0."),
             ("DVAL_EIO", "Local executor: the snapshot's state or build log could not be read or written.")]
            + E_REMOTE + E_ENOMEM,
     own=O_INPUTS + """ The snapshot handle belongs to the caller (release with
@dval_snapshot_free) and holds a reference to <<client>>. The data passed to
<<on_build_log>> is valid only during the callback.""",
     thread=T_CLIENT + """ <<on_build_log>> runs on the calling thread, inside
this call.""",
     see=sees("dval_snapshot_spec_init", "dval_snapshot_free", "dval_snapshot_delete", "dval_sandbox_acquire", "dval(7)"))

for _n, _what, _ret in (
        ("dval_snapshot_name", "the snapshot's name as the executor reported it (the name of the spec, or the name_or_id given to @dval_snapshot_get, when the executor reported none). It does no I/O", "A NUL-terminated string, never NULL; \"\" when <<snap>> is NULL."),
        ("dval_snapshot_id", "the executor's identifier of the snapshot (on Daytona, its id; on the local executor, its name). It does no I/O", "A NUL-terminated string, never NULL; \"\" when <<snap>> is NULL, or when the executor reported no id.")):
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
     errors=[("DVAL_EINVAL", "<<out>>, <<client>> or <<name_or_id>> is NULL, or <<name_or_id>> is empty, 256 bytes or longer, or contains '..', a backslash, '?', '#', '%', a space, control characters or invalid UTF-8."),
             ("DVAL_ENOTFOUND", "No such snapshot.")] + E_ENOMEM + E_REMOTE,
     own="""On success *<<out>> belongs to the caller: release it with
@dval_snapshot_free. The handle holds a reference to the client.""",
     thread=T_CLIENT,
     see=sees("dval_snapshot_ensure", "dval_snapshot_delete", "dval_snapshot_free", "dval(7)"))

page("dval_snapshot_state",
     summary="state of a snapshot",
     desc="""@dval_snapshot_state returns the state recorded in the handle
when @dval_snapshot_ensure (normally @DVAL_SNAPSHOT_ACTIVE) or
@dval_snapshot_get returned, or @DVAL_SNAPSHOT_REMOVING after a successful
@dval_snapshot_delete. It does no I/O: the state is not refreshed.""",
     ret="""A @dval_snapshot_state value (>= 0); @DVAL_SNAPSHOT_UNKNOWN (0)
when <<snap>> is NULL.""",
     errors=[],
     own="""Nothing is allocated.""",
     thread=T_GETTER,
     see=sees("dval_snapshot_state_name", "dval_snapshot_ensure", "dval(7)"))

page("dval_snapshot_delete",
     summary="delete a snapshot remotely",
     desc="""@dval_snapshot_delete asks the executor to delete the snapshot
and returns without waiting for it to be gone. Sandboxes already created
from it are not affected. Transient failures are retried with the client's
backoff. The handle stays valid (its state becomes
@DVAL_SNAPSHOT_REMOVING) and must still be freed with @dval_snapshot_free.
Deleting a snapshot that is already gone succeeds.""",
     ret=R_STATUS + """ After a failure, @dval_client_errmsg of the snapshot's
client describes it (not for @DVAL_EINVAL and @DVAL_EUNSUPPORTED, which
leave it unchanged).""",
     errors=[("DVAL_EINVAL", "<<snap>> is NULL."),
             ("DVAL_ECONFLICT", "The server answered HTTP 409: the snapshot is changing state; try again later.")] + E_REMOTE
            + [("DVAL_EIO", "Local executor: the snapshot's files could not be removed.")],
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
deleting a broken sandbox (any negative value: none), recovery allowed, no
state callback, and local limits of 512 processes, 2 GiB of memory and
600 s of CPU time. name is required by @dval_sandbox_acquire.

create_timeout_ms is the time limit of the create request itself;
start_timeout_ms limits the start, stop and recover requests and every wait
for a state to settle (the waits of @dval_sandbox_acquire after a create
included); each wait gets the whole budget. Zero or negative timeouts mean
the default.

cpu, memory_gib and disk_gib are sent only when the sandbox is created from
image without snapshot (Daytona refuses resources together with a
snapshot). The local executor ignores them, image and auto-archive, and
applies max_pids, max_memory_bytes and max_cpu_ms instead; Daytona ignores
those three. The local executor implements auto-stop itself: a sandbox idle
for longer than auto_stop_minutes is stopped when it is next looked at.""",
     ret=R_STATUS,
     errors=[("DVAL_EINVAL", "<<opts>> is NULL."),
             ("DVAL_EABI", "<<size>> is smaller than sizeof(size_t), the struct_size field itself.")],
     own="""Only writes to *<<opts>>.""",
     thread=T_INIT,
     see=sees("dval_sandbox_acquire", "dval(7)"))

page("dval_sandbox_acquire",
     summary="get or create a sandbox and bring it to started",
     desc="""@dval_sandbox_acquire finds the sandbox named <<opts>>->name
(creating it from snapshot, or image, when it does not exist) and brings it
to the started state whatever state it was left in. It observes the state,
acts on it, waits until the state is stable (polling every 100 ms, slowing
to once a second after 5 s, at most start_timeout_ms per wait) and looks
again, for at most 32 rounds. The recovery ladder is:

= started :: use it.
= stopped, archived, paused :: start it (a 409 reply means a change is in progress: wait and look again).
= every other state except error, build_failed and destroyed (creating, starting, restoring, stopping, pending_build, ...) :: wait until it is stable, then look again.
= error, build_failed :: when the sandbox reports its error as recoverable, the state is error, no_recover is 0 and the executor can recover, recover it server-side; else (or when recovery fails) delete it, pause zombie_pause_ms and create it again. This is done at most twice per call. The local executor reports a sandbox whose init process died as error.
= destroyed, or not found :: create it.
= name taken during creation (@DVAL_EEXISTS) :: another client won the race: get it and continue on the ladder.

State changes the call observes are reported to on_state (with
state_userdata) and logged at @DVAL_LOG_INFO. Labels, environment
variables and the other creation settings are applied only when the sandbox
is created: an existing sandbox keeps its own. The call cannot be
canceled.""",
     ret=R_ERRMSG("dval_client_errmsg") + " On failure *<<out>> is NULL.",
     errors=[("DVAL_EINVAL", "<<out>>, <<client>> or <<opts>> is NULL; name is missing, 256 bytes or longer, or contains '/', '..', a backslash, '?', '#', '%', a space, control characters or invalid UTF-8; snapshot is malformed in the same way ('/' allowed); a labels or env entry is not key=value, contains control characters or invalid UTF-8, or there are more than 1024; or a numeric field is out of range (auto_stop_minutes below -1; auto_archive_minutes, cpu, memory_gib, disk_gib, max_pids, max_memory_bytes or max_cpu_ms negative; network or release not an enum value)."),
             ("DVAL_EABI", "<<opts>>->struct_size is smaller than sizeof(size_t), or larger than this library knows with non-zero unknown fields."),
             ("DVAL_ENOTFOUND", "The snapshot named in <<opts>> does not exist."),
             ("DVAL_ETIMEOUT", "The create request took longer than create_timeout_ms, or a state did not settle within start_timeout_ms."),
             ("DVAL_ESTATE", "The sandbox was still broken after two recoveries, never reached started within 32 rounds, or (local executor) its snapshot is not active."),
             ("DVAL_ECONFLICT", "The create request was answered with HTTP 409 by an executor that does not report it as @DVAL_EEXISTS."),
             ("DVAL_EISOLATION", "Local executor: isolation is unavailable and allow_unisolated is 0."),
             ("DVAL_EIO", "Local executor: the sandbox's directory or state could not be created or read.")]
            + E_REMOTE + E_ENOMEM,
     own=O_INPUTS + """ The sandbox handle belongs to the caller (release with
@dval_sandbox_free) and holds a reference to the client. The options are
copied, including the release policy used later by @dval_sandbox_release
and the on_state callback, which later calls on the handle use too.""",
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
retried with the client's backoff.

The handle gets default options (@dval_sandbox_options_init(3)): release
policy @DVAL_RELEASE_KEEP, so @dval_sandbox_release does nothing; no
on_state callback; 180 s timeouts; no snapshot or image. Its name, as
returned by @dval_sandbox_name and used for session ids, is
<<name_or_id>> as given, also when that is an id.""",
     ret=R_ERRMSG("dval_client_errmsg") + " On failure *<<out>> is NULL.",
     errors=[("DVAL_EINVAL", "<<out>>, <<client>> or <<name_or_id>> is NULL, or <<name_or_id>> is empty, 256 bytes or longer, or contains '/', '..', a backslash, '?', '#', '%', a space, control characters or invalid UTF-8."),
             ("DVAL_ENOTFOUND", "No such sandbox.")] + E_ENOMEM + E_REMOTE
            + [("DVAL_EIO", "Local executor: the sandbox's state could not be read.")],
     own="""On success *<<out>> belongs to the caller: release it with
@dval_sandbox_free. The handle holds a reference to the client.""",
     thread=T_CLIENT,
     see=sees("dval_sandbox_acquire", "dval_sandbox_list", "dval_sandbox_stop", "dval_sandbox_delete", "dval(7)"))

page("dval_sandbox_refresh",
     summary="re-read a sandbox's state",
     desc="""@dval_sandbox_refresh asks the executor for the sandbox's
current state (retrying transient failures with the client's backoff) and
stores it in the handle, where @dval_sandbox_state reads it. A change of
state is reported to the on_state callback of the options the sandbox was
acquired with. A sandbox deleted behind the program's back yields
@DVAL_ENOTFOUND and the state @DVAL_SANDBOX_DESTROYED.""",
     ret=R_STATUS + """ After a failure other than @DVAL_EINVAL,
@dval_sandbox_errmsg describes it. A successful call does not clear an
older message.""",
     errors=[("DVAL_EINVAL", "<<sb>> is NULL.")] + [("DVAL_ENOTFOUND", "The sandbox no longer exists.")] + E_REMOTE
            + [("DVAL_EIO", "Local executor: the sandbox's state could not be read.")],
     own="""Nothing is allocated for the caller.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_state", "dval_sandbox_acquire", "dval(7)"))

page("dval_sandbox_state",
     summary="last known state of a sandbox",
     desc="""@dval_sandbox_state returns the state recorded in the handle by
the last call that observed it (@dval_sandbox_acquire, @dval_sandbox_get,
@dval_sandbox_refresh, @dval_sandbox_start, @dval_sandbox_stop,
@dval_sandbox_delete). It does no I/O.""",
     ret="""A @dval_sandbox_state value (>= 0); @DVAL_SANDBOX_UNKNOWN (0) when
<<sb>> is NULL.""",
     errors=[],
     own="""Nothing is allocated.""",
     thread=T_GETTER,
     see=sees("dval_sandbox_refresh", "dval_sandbox_state_name", "dval(7)"))

page("dval_sandbox_id",
     summary="executor identifier of a sandbox",
     desc="""@dval_sandbox_id returns the identifier the executor assigned to
the sandbox (a UUID on Daytona; the name on the local executor). It does no
I/O. After @dval_sandbox_acquire had to delete a broken sandbox and create
it again, it is the new sandbox's id.""",
     ret="""A NUL-terminated string, never NULL; "" when <<sb>> is NULL.""",
     errors=[],
     own=O_BORROWED_STR,
     thread=T_GETTER,
     see=sees("dval_sandbox_name", "dval_sandbox_acquire", "dval(7)"))

page("dval_sandbox_name",
     summary="name of a sandbox",
     desc="""@dval_sandbox_name returns the sandbox's name as given in
@dval_sandbox_options when it was acquired or, for a handle from
@dval_sandbox_get, the name the executor reports (also when it was looked
up by id). Session ids are derived from it.
It does no I/O.""",
     ret="""A NUL-terminated string, never NULL; "" when <<sb>> is NULL.""",
     errors=[],
     own=O_BORROWED_STR,
     thread=T_GETTER,
     see=sees("dval_sandbox_id", "dval_session_open", "dval(7)"))

page("dval_sandbox_errmsg",
     summary="message of the last failed call on a sandbox",
     desc="""@dval_sandbox_errmsg returns a message that describes the last
failure recorded on <<sb>>: by @dval_sandbox_refresh, @dval_sandbox_start,
@dval_sandbox_stop, @dval_sandbox_delete, @dval_sandbox_release, the file
transfers, @dval_sandbox_mkdir and @dval_session_open, including the HTTP
status and server message where there was one. "" when there was none.

@dval_sandbox_start, @dval_sandbox_stop and the file functions clear it
when they begin; the others leave an older message in place when they
succeed. A few failures record no message (@DVAL_EINVAL for a NULL
pointer, @DVAL_ENOMEM), so check the status first.""",
     ret="""A NUL-terminated string; never NULL. For a NULL <<sb>> it is the
static string "no sandbox".""",
     errors=[],
     own="""Borrowed: valid until the next call on the sandbox (or on a
session of it) or until it is freed.""",
     thread=T_GETTER,
     see=sees("dval_client_errmsg", "dval_session_errmsg", "dval_strerror", "dval(7)"))

_SB_OWN = """Nothing is allocated for the caller; the handle stays owned by
the caller."""

page("dval_sandbox_start",
     summary="bring a sandbox back to started",
     desc="""@dval_sandbox_start looks the sandbox up again, starts it when it
is stopped, archived or paused (waiting for a stop in progress first),
waits for transitions (start_timeout_ms of its options per wait), and
returns when it is started. A sandbox that is already started is left
alone.

Unlike @dval_sandbox_acquire it never deletes, recovers or re-creates: a
sandbox in error or build_failed is reported as @DVAL_ESTATE with its error
reason, and one that no longer exists as @DVAL_ENOTFOUND (use
@dval_sandbox_acquire to recover or re-create). State changes are reported
to the on_state callback of the options the sandbox was acquired with.""",
     ret=R_STATUS + """ After a failure other than @DVAL_EINVAL,
@dval_sandbox_errmsg describes it.""",
     errors=[("DVAL_EINVAL", "<<sb>> is NULL."),
             ("DVAL_ETIMEOUT", "A state did not settle within start_timeout_ms, or a create request took longer than create_timeout_ms."),
             ("DVAL_ESTATE", "The sandbox is in error or build_failed (the message carries its error reason), or never reached started within 32 rounds."),
             ("DVAL_ENOTFOUND", "The sandbox no longer exists."),
             ("DVAL_EISOLATION", "Local executor: isolation is unavailable and allow_unisolated is 0."),
             ("DVAL_EIO", "Local executor: the sandbox's state could not be read or written.")] + E_REMOTE + E_ENOMEM,
     own=_SB_OWN,
     thread=T_HANDLE,
     see=sees("dval_sandbox_acquire", "dval_sandbox_stop", "dval_sandbox_state", "dval(7)"))

page("dval_sandbox_stop",
     summary="stop a sandbox",
     desc="""@dval_sandbox_stop asks the executor to stop the sandbox
("pause") and waits until it is stopped (start_timeout_ms of its options).
The stop request is sent whatever the last known state was; a 409 reply
(a change in progress) makes it wait for the state to settle and ask
again, up to eight times. Files in the sandbox are kept; running commands
are killed. A sandbox that disappears while it is waited for counts as
stopped (state @DVAL_SANDBOX_DESTROYED). The local executor stops a
stopped sandbox again without complaint; on Daytona the server decides.
State changes are reported to the on_state callback of the options the
sandbox was acquired with.""",
     ret=R_STATUS + """ After a failure other than @DVAL_EINVAL,
@dval_sandbox_errmsg describes it.""",
     errors=[("DVAL_EINVAL", "<<sb>> is NULL."),
             ("DVAL_ENOTFOUND", "The sandbox no longer exists."),
             ("DVAL_ETIMEOUT", "The stop request took longer than start_timeout_ms, or the sandbox did not settle within it."),
             ("DVAL_ESTATE", "After eight rounds the sandbox was still not stopped (for example it kept being started by someone else), or the server answered HTTP 410.")] + E_REMOTE
            + [("DVAL_EIO", "Local executor: the sandbox's state could not be read or written.")],
     own=_SB_OWN,
     thread=T_HANDLE,
     see=sees("dval_sandbox_start", "dval_sandbox_release", "dval_sandbox_state", "dval(7)"))

page("dval_sandbox_delete",
     summary="delete a sandbox",
     desc="""@dval_sandbox_delete asks the executor to delete the sandbox and
its files, and returns as soon as the executor has accepted the request: it
does not wait until the sandbox is gone (on Daytona it may still be listed
as destroying for a while). A sandbox that is already gone counts as
deleted. When the server answers 409 (a state change in progress), it waits
until the state settles (start_timeout_ms) and asks again, up to eight
times. Transient failures are retried with the client's backoff.

On success the handle's state is @DVAL_SANDBOX_DESTROYED (set directly, not
reported to on_state). The handle stays valid and must still be freed;
commands in sessions opened on it fail from then on.""",
     ret=R_STATUS + """ After a failure other than @DVAL_EINVAL,
@dval_sandbox_errmsg describes it. A successful call does not clear an
older message.""",
     errors=[("DVAL_EINVAL", "<<sb>> is NULL."),
             ("DVAL_ECONFLICT", "The server answered HTTP 409 eight times: the state change never settled."),
             ("DVAL_ETIMEOUT", "While waiting after a 409, the state did not settle within start_timeout_ms.")] + E_REMOTE
            + [("DVAL_EIO", "Local executor: the sandbox's files could not be removed.")],
     own=_SB_OWN,
     thread=T_HANDLE,
     see=sees("dval_sandbox_acquire", "dval_sandbox_release", "dval_sandbox_state", "dval(7)"))

page("dval_sandbox_release",
     summary="apply a sandbox's release policy",
     desc="""@dval_sandbox_release does what the release field of the
options given to @dval_sandbox_acquire says: @DVAL_RELEASE_KEEP leaves the
sandbox running (its auto-stop timer still applies), @DVAL_RELEASE_STOP
stops it as @dval_sandbox_stop ("pause on exit": the next acquire starts it
again quickly), @DVAL_RELEASE_DELETE deletes it as @dval_sandbox_delete.
@DVAL_RELEASE_KEEP does no I/O and always succeeds; it is the policy of
handles from @dval_sandbox_get. Call it when the program is done with the
sandbox, before @dval_sandbox_free.""",
     ret=R_STATUS + """ It returns what @dval_sandbox_stop or
@dval_sandbox_delete returns; after their failures @dval_sandbox_errmsg
describes them.""",
     errors=[("DVAL_EINVAL", "<<sb>> is NULL.")]
            + [("Other codes", "Every error of @dval_sandbox_stop(3) (release policy stop) or @dval_sandbox_delete(3) (release policy delete).")],
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

E_PATH = [("DVAL_EINVAL", """<<sb>> or another required pointer is NULL, or <<remote_path>> is empty,
4096 bytes or longer, contains control characters or invalid UTF-8, or has
a ".." component.""")]

E_LOCALFS = [("DVAL_ESTATE", "Local executor: the sandbox is not started.")]

_FILES = """Relative remote paths are relative to the sandbox user's home
directory (/home/daytona on the local executor, the sandbox's working
directory on Daytona). Transient failures are retried with the client's
backoff (see RETRIES in @dval_executor(3))."""

page("dval_sandbox_upload",
     summary="write a buffer to a file in a sandbox",
     desc="""@dval_sandbox_upload writes <<len>> bytes at <<data>> to
<<remote_path>> in the sandbox, replacing the file if it exists and creating
missing parent directories. <<data>> may be NULL when <<len>> is 0 (an empty
file). """ + _FILES,
     ret=R_ERRMSG("dval_sandbox_errmsg") + """ The message is cleared when the
call begins.""",
     errors=E_PATH + [("DVAL_EINVAL", "<<data>> is NULL and <<len>> is not 0 (no message is recorded)."),
                      ("DVAL_ETOOBIG", "Local executor: the disk or quota is full."),
                      ("DVAL_EIO", "Local executor: the file could not be written.")] + E_LOCALFS + E_REMOTE,
     own="""<<data>> is read during the call only.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_upload_file", "dval_sandbox_download", "dval_sandbox_mkdir", "dval(7)"))

page("dval_sandbox_upload_file",
     summary="copy a local file into a sandbox",
     desc="""@dval_sandbox_upload_file streams the local regular file
<<local_path>> to <<remote_path>> in the sandbox, with bounded memory,
creating missing parent directories and replacing an existing file. A
retried upload starts again from the beginning of the file. """ + _FILES,
     ret=R_ERRMSG("dval_sandbox_errmsg") + """ The message is cleared when the
call begins.""",
     errors=E_PATH + [("DVAL_EIO", "<<local_path>> could not be opened or read, or is not a regular file; or (local executor) the remote file could not be written."),
                      ("DVAL_ETOOBIG", "Local executor: the disk or quota is full.")] + E_LOCALFS + E_REMOTE,
     own="""Paths are read during the call only.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_upload", "dval_sandbox_download_file", "dval(7)"))

page("dval_sandbox_download",
     summary="read a file from a sandbox into memory",
     desc="""@dval_sandbox_download reads the whole file <<remote_path>> and
stores a newly allocated buffer in *<<data>> and its length in *<<len>>
(<<len>> may be NULL). For convenience the buffer is NUL-terminated; the
terminator is not counted in *<<len>>. The file may contain NUL bytes. Files
larger than the client's max_download_bytes are refused. """ + _FILES,
     ret=R_ERRMSG("dval_sandbox_errmsg") + """ On failure *<<data>> is NULL and
*<<len>> is 0 (where the pointers are not NULL).""",
     errors=E_PATH + [("DVAL_ENOTFOUND", "There is no such file, or it is not a regular file."),
                      ("DVAL_ETOOBIG", "The file is larger than max_download_bytes.")] + E_LOCALFS + E_REMOTE
            + [("DVAL_EIO", "Local executor: the file could not be read.")] + E_ENOMEM,
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
the file may already have been delivered; a transfer that fails after
<<sink>> has seen bytes is not retried, so no byte is delivered twice.

The daytona executor refuses files larger than the client's
max_download_bytes (possibly after part of it was delivered); the local
executor applies no limit. """ + _FILES,
     ret=R_ERRMSG("dval_sandbox_errmsg"),
     errors=E_PATH + [("DVAL_EINVAL", "<<sink>> is NULL."),
                      ("DVAL_ENOTFOUND", "There is no such file, or it is not a regular file."),
                      ("DVAL_EABORTED", "<<sink>> returned non-zero."),
                      ("DVAL_ETOOBIG", "Daytona: the file is larger than max_download_bytes.")] + E_LOCALFS + E_REMOTE
            + [("DVAL_EIO", "Local executor: the file could not be read.")],
     own="""The data passed to <<sink>> is valid only during that callback.""",
     thread=T_HANDLE + """ <<sink>> runs on the calling thread, inside this
call.""",
     see=sees("dval_sandbox_download", "dval_sandbox_download_file", "dval(7)"))

page("dval_sandbox_download_file",
     summary="copy a file from a sandbox to a local file",
     desc="""@dval_sandbox_download_file streams <<remote_path>> into the
local file <<local_path>> with bounded memory. It writes a temporary file
next to <<local_path>> and renames it into place only when the download
succeeded: after a failure an existing <<local_path>> is untouched and no
partial file is left behind. The daytona executor
refuses files larger than the client's max_download_bytes; the local
executor applies no limit. """ + _FILES,
     ret=R_ERRMSG("dval_sandbox_errmsg"),
     errors=E_PATH + [("DVAL_ENOTFOUND", "There is no such remote file, or it is not a regular file."),
                      ("DVAL_EIO", "<<local_path>> could not be opened, written or closed; or (local executor) the remote file could not be read."),
                      ("DVAL_ETOOBIG", "Daytona: the file is larger than max_download_bytes.")] + E_LOCALFS + E_REMOTE,
     own="""Paths are read during the call only.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_download_to", "dval_sandbox_upload_file", "dval(7)"))

page("dval_sandbox_download_json",
     summary="download a JSON results file and check it",
     desc="""@dval_sandbox_download_json downloads <<remote_path>> as
@dval_sandbox_download does (max_download_bytes applies), checks that it is
valid UTF-8 and a single valid JSON document (any JSON value; NUL
characters inside strings are allowed), and stores the document as
NUL-terminated text, unchanged, in *<<json>>. Programs under validation
write their results this way; @dval_validate uses it for every results
file.""",
     ret=R_ERRMSG("dval_sandbox_errmsg") + """ On failure *<<json>> is NULL.""",
     errors=E_PATH + [("DVAL_ENOTFOUND", "There is no such file, or it is not a regular file."),
                      ("DVAL_ERESULTS", "The file is not UTF-8 or not valid JSON; the message gives the line and column."),
                      ("DVAL_ETOOBIG", "The file is larger than max_download_bytes.")] + E_LOCALFS + E_REMOTE
            + [("DVAL_EIO", "Local executor: the file could not be read.")] + E_ENOMEM,
     own="""*<<json>> belongs to the caller: release it with @dval_free.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_download", "dval_validate", "dval_free", "dval(7)"))

page("dval_sandbox_mkdir",
     summary="create a directory in a sandbox",
     desc="""@dval_sandbox_mkdir creates <<remote_path>> and any missing
parents (mode 0755). An existing directory is not an error. """ + _FILES,
     ret=R_ERRMSG("dval_sandbox_errmsg") + """ The message is cleared when the
call begins.""",
     errors=E_PATH + [("DVAL_ENOTFOUND", "Local executor: a component of the path exists and is not a directory.")] + E_LOCALFS + E_REMOTE
            + [("DVAL_EIO", "Local executor: a directory could not be created.")],
     own="""<<remote_path>> is read during the call only.""",
     thread=T_HANDLE,
     see=sees("dval_sandbox_upload", "dval(7)"))

page("dval_sandbox_list",
     types=["dval_sandbox_list_fn"],
     summary="list sandboxes by label",
     desc="""@dval_sandbox_list asks the executor for the sandboxes that carry
all the "key=value" labels in the NULL-terminated array <<labels>> (NULL or
an empty array lists all) and calls <<each>> once per sandbox with its id,
name and state (a @dval_sandbox_state) and <<userdata>>. A non-zero return
from <<each>> stops the listing with @DVAL_EABORTED. It is used to find and
clean up sandboxes left behind by earlier runs.

The labels are not checked by the library: the daytona executor treats an
entry without "=" as a key with an empty value and filters on the server
(following every page of results); the local executor compares each entry
with the stored "key=value" strings exactly. The request is made once: it
is not retried and has no time limit of its own beyond the client's request
timeout.""",
     ret=R_STATUS + """ After a failure other than @DVAL_EINVAL,
@dval_client_errmsg describes it.""",
     errors=[("DVAL_EINVAL", "<<client>> or <<each>> is NULL (no message is recorded), or a label is not valid UTF-8 (daytona)."),
             ("DVAL_EABORTED", "<<each>> returned non-zero."),
             ("DVAL_EIO", "Local executor: the state directory could not be read.")] + E_REMOTE + E_ENOMEM,
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

Commands of a session run one after the other. Each command runs in a
child shell of its own (sh -c '<command>'), so a command cannot end the
session, and nothing a command changes in its shell carries over to the
next one: a "cd" or "export" in one command does not affect the next. Use
the cwd option of @dval_session_exec, or prefix the command (for example
"cd dir && export X=1 && ..."). Every command starts in the session's
initial directory (/home/daytona on the local executor; the sandbox's
working directory on Daytona) with the sandbox's environment.

The library does not check the sandbox's state itself: the local executor
refuses a sandbox that is not started with @DVAL_ESTATE; on Daytona the
toolbox request fails. Because the toolbox may answer 400 or 404 for a few
seconds after a start, those replies are retried like transient failures
(see RETRIES in @dval_executor(3)); a name clash on a retry means an
earlier attempt created the session and counts as success.""",
     ret=R_STATUS + """ After a failure other than a NULL argument or
@DVAL_ENOMEM, @dval_sandbox_errmsg of <<sb>> and @dval_client_errmsg of
the sandbox's client describe it; when several threads open sessions of one
sandbox at once, read the client's, which is safe to share. On failure
*<<out>> is NULL.""",
     errors=[("DVAL_EINVAL", "<<out>> or <<sb>> is NULL, or the sandbox name is longer than 218 bytes (the session id would not fit in @DVAL_ID_MAX)."),
             ("DVAL_EUNSUPPORTED", "The executor lacks session_create, command_start or command_status."),
             ("DVAL_EIO", "The session's cancel pipe could not be created (out of file descriptors)."),
             ("DVAL_ESTATE", "Local executor: the sandbox is not started."),
             ("DVAL_ENOTFOUND", "The sandbox (or its toolbox) was not found, after the retries.")] + E_REMOTE + E_ENOMEM,
     own="""The session handle belongs to the caller (release with
@dval_session_free after @dval_session_close) and holds a reference to the
sandbox handle. The session uses two file descriptors (its cancel pipe)
until it is freed.""",
     thread=T_HANDLE + """ Several sessions of one sandbox may be used from
different threads at the same time.""",
     see=sees("dval_session_exec", "dval_session_close", "dval_session_free", "dval(7)"))

page("dval_session_id",
     summary="identifier of a session",
     desc="""@dval_session_id returns the session's id, "<sandbox
name>-<uuid4>". It does no I/O.""",
     ret="""A NUL-terminated string, never NULL; "" when <<s>> is NULL.""",
     errors=[],
     own=O_BORROWED_STR,
     thread=T_GETTER,
     see=sees("dval_session_open", "dval(7)"))

page("dval_session_errmsg",
     summary="message of the last failed call on a session",
     desc="""@dval_session_errmsg returns a message describing the last
failure of @dval_session_exec or @dval_session_close on <<s>>, or "" when
there was none. A successful call does not clear it. Failures of
@dval_session_open are reported by @dval_sandbox_errmsg, as there is no
session yet.

Some failures record no message: a NULL argument, @DVAL_EREENTRANT,
@DVAL_ENOMEM. After a cancel, a timeout or an abort the message is
"canceled", "command timed out" or "output callback stopped the
command".""",
     ret="""A NUL-terminated string; never NULL. For a NULL <<s>> it is the
static string "no session".""",
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
"COMMAND_EXECUTION_STDERR"), the session's initial directory (commands
cannot change it; see @dval_session_open(3)), and no timeout.""",
     ret=R_STATUS,
     errors=[("DVAL_EINVAL", "<<opts>> is NULL."),
             ("DVAL_EABI", "<<size>> is smaller than sizeof(size_t), the struct_size field itself.")],
     own="""Only writes to *<<opts>>.""",
     thread=T_INIT,
     see=sees("dval_session_exec", "dval(7)"))

page("dval_session_exec",
     types=["dval_output_fn"],
     summary="run a command in a session with live output",
     desc="""@dval_session_exec runs <<command>> (a shell command line) in
the session and returns when it has exited. The command runs in a child
shell of its own (sh -c), so "exit" or a crash does not end the session,
and "cd" or "export" in it do not carry over to the next command.
<<opts>>->cwd sets its working directory: the command becomes
"cd '<cwd>' && <command>", so a cwd that does not exist makes the shell
fail (exit code non-zero, message on stderr), not this call. Without cwd
the command starts in the session's initial directory. <<opts>> may be NULL
for defaults.

While it runs, its output is passed live to <<on_output>> (may be NULL)
with <<userdata>>: <<stream>> is @DVAL_STDOUT or @DVAL_STDERR,
<<channel>> is the channel prefix followed by
"COMMAND_EXECUTION_STDOUT" or "COMMAND_EXECUTION_STDERR", and
<<data>>/<<len>> is a chunk of at most 64 KiB that is not NUL-terminated
and never ends inside a UTF-8 sequence (invalid bytes are passed through
unchanged). A reconnected log stream is replayed from its first byte; the
bytes already delivered are skipped, so every byte is delivered once.
Daytona's multiplexed log is split into stdout and stderr by the library;
bytes before its first stream marker are dropped. The order of stdout and
stderr chunks relative to each other is not guaranteed. A non-zero return
from <<on_output>> stops the call with @DVAL_EABORTED and kills the
command.

The exit code is stored in *<<exit_code>> (may be NULL): the command's
status as the executor reports it (128+N when it was killed by signal N on
the local executor). A non-zero exit code is not an error of this call.

When timeout_ms passes, the command is killed and the call returns
@DVAL_ETIMEOUT. @dval_session_cancel, called from another thread or from
<<on_output>>, makes the call kill the command and return @DVAL_ECANCELED.
A cancel that arrived while no exec was running is kept: the next
@dval_session_exec returns @DVAL_ECANCELED at once, without running its
command, and consumes it.

Killing a command uses the executor's command_cancel (the local executor
kills its process group). The daytona executor has none: the library
deletes the whole remote session instead, which also kills anything else
running in it, and the session is closed from then on (further calls
return @DVAL_ESTATE; open a new session).

The start request is not retried except after HTTP 429, as a command must
not run twice; exit-code polls are retried like other requests.""",
     ret=R_STATUS + """ After a failure other than a NULL <<s>>,
@DVAL_EREENTRANT or @DVAL_ENOMEM, @dval_session_errmsg describes it.
*<<exit_code>> is set only on success.""",
     errors=[("DVAL_EINVAL", "<<s>> is NULL, or <<command>> is NULL, empty or not valid UTF-8, or the channel prefix is longer than 100 bytes."),
             ("DVAL_EABI", "<<opts>>->struct_size is smaller than sizeof(size_t), or larger than this library knows with non-zero unknown fields."),
             ("DVAL_EREENTRANT", "Another @dval_session_exec is running on the same session: from inside its <<on_output>>, or in another thread."),
             ("DVAL_ESTATE", "The session was closed by @dval_session_close, or deleted by the library to stop an earlier command; or (local executor) the sandbox is not started."),
             ("DVAL_ETIMEOUT", "The command ran longer than timeout_ms and was killed."),
             ("DVAL_ECANCELED", "@dval_session_cancel was called (during this call, or before it while no exec was running)."),
             ("DVAL_EABORTED", "<<on_output>> returned non-zero."),
             ("DVAL_ENOTFOUND", "The session or the command no longer exists on the executor (for example the sandbox was stopped or deleted).")]
            + E_REMOTE + E_ENOMEM,
     own="""<<command>> and <<opts>> are read during the call. The data passed
to <<on_output>> is valid only during that callback.""",
     thread="""The session must be used by one thread at a time, but
@dval_session_cancel may be called on it from any thread while this call
runs. Two concurrent execs on one session are detected: the second returns
@DVAL_EREENTRANT. Other sessions, also of the same sandbox, may run
commands at the same time in other threads. <<on_output>> runs on the
calling thread, inside this call; calls on the same sandbox from inside it
are not detected and not supported. See @dval_threads(3).""",
     see=sees("dval_exec_options_init", "dval_session_cancel", "dval_session_open", "dval(7)"))

page("dval_session_cancel",
     summary="cancel a running command from any thread",
     desc="""@dval_session_cancel makes a @dval_session_exec that is running
on <<s>> (in another thread, or in the same thread from inside its
on_output callback) kill its command and return @DVAL_ECANCELED soon after.
It is idempotent and coalescing: several calls have the effect of one.

The cancel is a flag on the session, not on one command: when no exec is
running, it stays set, and the next @dval_session_exec returns
@DVAL_ECANCELED immediately without running anything (which clears the
flag). A cancel that arrives after the command has already finished is kept
in the same way. It does not interrupt @dval_session_close.

After a cancel on the daytona executor the library has deleted the session
to stop the command; the local executor kills only the command. In both
cases, closing the session with @dval_session_close and opening a new one
is the safe way on. This is how Go's context cancellation and Python's
KeyboardInterrupt reach the library.""",
     ret="""@DVAL_OK, or @DVAL_EINVAL when <<s>> is NULL.""",
     errors=[("DVAL_EINVAL", "<<s>> is NULL.")],
     own="""Nothing is allocated.""",
     thread="""Thread-safe and async-signal-safe with respect to the session
(it sets an atomic flag and writes one byte to a pipe): may be called from
any thread, including from inside callbacks, while another thread is inside
@dval_session_exec. Not while the session is being freed.""",
     see=sees("dval_session_exec", "dval_threads", "dval(7)"))

page("dval_session_close",
     summary="delete a remote session",
     desc="""@dval_session_close deletes the session on the executor, killing
whatever is still running in it, and marks the handle closed. The handle
stays valid and must still be freed with @dval_session_free. Closing a
session that is already closed (also by the library, to stop a command)
succeeds without a request, and so does closing on an executor without
session_delete; a session already gone on the executor counts as deleted.
Transient failures are retried with the client's backoff. After a failure
the session stays open and the call may be repeated.""",
     ret=R_STATUS + """ After a remote failure, @dval_session_errmsg
describes it.""",
     errors=[("DVAL_EINVAL", "<<s>> is NULL."),
             ("DVAL_EREENTRANT", "A @dval_session_exec is running on the session (from inside its callback, or in another thread); nothing was done.")] + E_REMOTE,
     own="""The handle stays owned by the caller.""",
     thread=T_HANDLE,
     see=sees("dval_session_open", "dval_session_free", "dval(7)"))

page("dval_session_free",
     summary="release a session handle",
     desc="""@dval_session_free releases the handle, its cancel pipe and its
reference to the sandbox handle. The remote session is not deleted (see
@dval_session_close): on Daytona it ends with its sandbox; on the local
executor, sessions live in the client's process and end at the latest when
the client is destroyed. NULL does nothing. No I/O, no callbacks.""",
     ret="""None.""",
     errors=[],
     own="""Consumes the handle.""",
     thread=T_FREE + """ In particular, not while @dval_session_exec or
@dval_session_cancel runs on it.""",
     see=sees("dval_session_open", "dval_session_close", "dval(7)"))

# ------------------------------------------------------------ profiles

page("dval_profile_find",
     types=["dval_profile"],
     summary="look up a validation profile",
     desc="""@dval_profile_find returns the registered or built-in profile
called <<name>>. A registered profile wins over a built-in one of the same
name, and the latest registration over earlier ones. The built-in profiles
are "dotnet", "java" and "shell".

A profile describes how to validate programs of one kind: the sandbox and
snapshot names, the base image and build steps of the snapshot, the output
channel prefix, and the shell command that runs the program in
/sandbox/<thread_id> with $DVAL_THREAD_ID, $DVAL_WORKDIR and
$DVAL_RESULTS_DIR set. The local_* fields adapt it to the local
executor.""",
     ret="""A pointer to the profile, or NULL when <<name>> is NULL or
unknown.""",
     errors=[],
     own="""The profile is borrowed: do not modify or free it. It stays valid
for the life of the process: a later registration of the same name makes
@dval_profile_find return the new profile, but the old one is never freed
and the pointer keeps describing it.""",
     thread="""Thread-safe: lookups are serialised with
@dval_profile_register by a process-wide lock.""",
     see=sees("dval_profile_register", "dval_profile_names", "dval_validate", "dval(7)"))

page("dval_profile_register",
     types=["dval_profile"],
     summary="register a host-defined validation profile",
     desc="""@dval_profile_register copies *<<profile>> (all strings and
arrays) into the process-wide profile table, so that @dval_validate and
@dval_profile_find can use it by name. A profile with the same name,
built-in or registered, is shadowed: lookups return the new one. name,
sandbox_name, snapshot_name and run_command are required; the other fields
may be NULL. There is no way to unregister a profile; registered profiles,
including shadowed ones, are kept until the process exits.""",
     ret=R_STATUS + """ No error message is recorded anywhere.""",
     errors=[("DVAL_EINVAL", "<<profile>> is NULL; name is not 1-128 characters of [A-Za-z0-9._-] or is \".\" or \"..\"; run_command is NULL or empty; or sandbox_name or snapshot_name is missing or malformed (see @dval_sandbox_acquire(3) and @dval_snapshot_ensure(3))."),
             ("DVAL_EABI", "<<profile>>->struct_size does not cover the fields up to run_command, or is larger than this library knows with non-zero unknown fields.")] + E_ENOMEM,
     own="""The profile is copied; the caller keeps ownership of its own
struct and strings.""",
     thread="""Thread-safe: serialised internally. Pointers returned earlier
by @dval_profile_find and arrays returned by @dval_profile_names stay
valid; they do not see the new registration.""",
     see=sees("dval_profile_find", "dval_profile_names", "dval(7)"))

page("dval_profile_names",
     summary="list the names of all validation profiles",
     desc="""@dval_profile_names stores in *<<names>> a NULL-terminated array
with the names of all profiles: the built-in ones ("dotnet", "java",
"shell") first, then the other registered names in the order of their first
registration. Each name appears once.""",
     ret="""@DVAL_OK (0), or @DVAL_EINVAL when <<names>> is NULL. (It does
not return the number of names: count the array.)""",
     errors=[("DVAL_EINVAL", "<<names>> is NULL.")],
     own="""The array and its strings are borrowed: do not free them. They
stay valid for the life of the process; an array returned before a new name
was registered does not contain that name.""",
     thread="""Thread-safe: serialised with @dval_profile_register by a
process-wide lock.""",
     see=sees("dval_profile_find", "dval_profile_register", "dval(7)"))

# ------------------------------------------------------------ validate

page("dval_validation_init",
     types=["dval_validation"],
     summary="initialise a validation request",
     desc="""@dval_validation_init zeroes the first <<size>> bytes of
*<<req>> and sets struct_size. Zero fields mean: a random UUID as thread
id, the profile's sandbox name, snapshot name and run command, no exec
timeout, release policy @DVAL_RELEASE_KEEP, no extra labels, missing
results are an error, and no cancel token (see @dval_cancel_new). profile
and source_dir are required by
@dval_validate.""",
     ret=R_STATUS,
     errors=[("DVAL_EINVAL", "<<req>> is NULL."),
             ("DVAL_EABI", "<<size>> does not cover struct_size, profile and source_dir.")],
     own="""Only writes to *<<req>>.""",
     thread=T_INIT,
     see=sees("dval_validate", "dval(7)"))

page("dval_validate",
     types=["dval_event", "dval_event_fn"],
     summary="run a program in a sandbox and collect its results",
     desc="""@dval_validate performs the whole validation loop for the
program in the local directory <<req>>->source_dir, using the profile
<<req>>->profile, with the public functions only:

- snapshot: on the local executor, the profile's local_requires test is
run on the host first; then @dval_snapshot_ensure for the snapshot
(snapshot_name or the profile's), with the profile's image and build
commands (local_build_commands on the local executor, when set);
- sandbox: @dval_sandbox_acquire of sandbox_name or the profile's, from
that snapshot, with the labels dval.managed-by=daytona-validate,
dval.profile=<profile> and the extra labels, and the release policy of
the request;
- session: @dval_session_open;
- upload: /sandbox/<thread_id> is removed and created again empty (with
its results directory), then every regular file under source_dir is
uploaded to it, keeping the tree. A top-level results directory is
skipped; symbolic links are followed only when they point to a regular
file inside source_dir (a link pointing outside fails the call); other
special files are skipped;
- exec: the run command (run_command or the profile's) runs in
/sandbox/<thread_id> in a subshell, with $DVAL_THREAD_ID, $DVAL_WORKDIR and
$DVAL_RESULTS_DIR (/sandbox/<thread_id>/results) exported and the
profile's channel prefix; output is streamed live;
- download: every file matching *.json anywhere under the results
directory is fetched with @dval_sandbox_download_json; other files are
ignored;
- close: the session is closed and the sandbox released according to
release. This phase runs whatever happened before; its failures are
listed in the summary's "errors" but do not change the return value.

Progress is reported to <<on_event>> (may be NULL) with <<userdata>>:
@DVAL_EVENT_PHASE when a phase starts and finishes (with its status,
duration and, on success, a detail text), @DVAL_EVENT_OUTPUT for each
output chunk (as in @dval_session_exec), @DVAL_EVENT_BUILD_LOG for snapshot
build logs and @DVAL_EVENT_STATE for sandbox state changes (detail is the
sandbox name). A non-zero return stops the call with @DVAL_EABORTED; the
session is still closed and the sandbox released, but no further events
are delivered.

On success, and when only the results are at fault (@DVAL_ERESULTS),
*<<result_json>> is a JSON summary (ASCII, compact):

  {"exit_code":N,"results":{"<file>":<json>,...},"thread_id":"...",
   "sandbox":"...","session":"...","profile":"...","executor":"...",
   "status":"DVAL_OK","errors":[...],"timings_ms":{...}}

exit_code and session are null when the program did not run or no
session was opened; results are keyed by their path relative to the
results directory; timings_ms has one entry per phase and "total".""",
     ret="""Returns @DVAL_OK when the program ran, whatever its exit code, and
every *.json results file is valid (and at least one exists, unless
allow_missing_results is set). Else a negative status; @dval_client_errmsg
describes it as "<phase>: <detail>" and *<<result_json>> is NULL, except
for @DVAL_ERESULTS, which still returns the summary. On success the
client's message is set to "".""",
     errors=[("DVAL_EINVAL", "<<client>> or <<req>> is NULL; profile or source_dir is missing; the profile is unknown; thread_id is not 1-128 characters of [A-Za-z0-9._-] (or is \".\" or \"..\"); release is not a @dval_release value; source_dir is not a directory; a symbolic link in it points outside it or nowhere; or the tree is more than 64 levels deep. Errors of the phases' own calls (for example a malformed sandbox_name) come back as they are."),
             ("DVAL_EABI", "<<req>>->struct_size does not cover profile and source_dir, or is larger than this library knows with non-zero unknown fields."),
             ("DVAL_EUNSUPPORTED", "Local executor: the profile's local_requires test failed on this host (the message is the profile's local_unavailable_msg)."),
             ("DVAL_EIO", "source_dir does not exist or cannot be resolved, or a file or directory under it could not be read."),
             ("DVAL_EEXEC", "The working directory could not be created in the sandbox (the rm/mkdir command exited non-zero)."),
             ("DVAL_ERESULTS", "No *.json file was written (and allow_missing_results is 0), or a results file is not UTF-8 JSON or could not be downloaded."),
             ("DVAL_EBUILD", "The profile's snapshot failed to build."),
             ("DVAL_ETIMEOUT", "The program ran longer than timeout_ms, or a phase timed out."),
             ("DVAL_EABORTED", "<<on_event>> returned non-zero."),
             ("DVAL_ECANCELED", "<<req>>->cancel was fired (see @dval_cancel_new(3)); the message is \"<phase>: canceled\" and the session was closed."),
             ("Other codes", "Any error of @dval_snapshot_ensure(3), @dval_sandbox_acquire(3), @dval_session_open(3), @dval_sandbox_upload_file(3) or @dval_session_exec(3), from the phase that failed.")] + E_ENOMEM,
     own=O_INPUTS + """ *<<result_json>> belongs to the caller: release it with
@dval_free. Event fields are valid only during the callback.""",
     thread=T_CLIENT + """ Concurrent validations on one client are supported
(each uses its own session; validations of the same profile share its
sandbox); <<on_event>> runs on the calling thread. As the client has one
error message, concurrent failures may overwrite each other's message.""",
     see=sees("dval_validation_init", "dval_profile_find", "dval_session_exec", "dval_free", "dval(7)"))

# ------------------------------------------------------------ cancel

T_CANCEL_FIRE = """Thread-safe: may be called from any thread at any time while
the token exists, also while a validation uses it and from inside
callbacks. It takes a lock, so it is not async-signal-safe: from a signal,
wake a thread (self-pipe, or sigwait in a thread) and fire there."""

page("dval_cancel_new",
     summary="create a cancel token for dval_validate",
     desc="""@dval_cancel_new creates a cancel token. Set it as the cancel field
of a @dval_validation and call @dval_cancel_fire from any thread to stop
that validation: @dval_validate then returns @DVAL_ECANCELED soon after,
having closed its session and released its sandbox as after any failure.

The token is checked between the phases; while the program runs, firing
it cancels the session's command (as @dval_session_cancel, so the command
is killed); while the library waits for the snapshot or the sandbox to
become ready, backs off between retries of those phases, or uploads the
source directory, that ends at once. The close phase always runs and is not canceled. A token fires
once for good: use a new token for the next validation.

The library starts no thread for this; the token is a flag and a pipe.""",
     ret=R_STATUS + " *<<out>> is NULL on failure.",
     errors=[("DVAL_EINVAL", "<<out>> is NULL."),
             ("DVAL_EIO", "No pipe could be created (out of descriptors).")] + E_ENOMEM,
     own="""*<<out>> belongs to the caller: free it with @dval_cancel_free
once no validation uses it. The token holds two file descriptors
(close-on-exec).""",
     thread=T_INIT,
     see=sees("dval_cancel_fire", "dval_cancel_fired", "dval_cancel_free", "dval_validate", "dval_session_cancel"))

page("dval_cancel_fire",
     summary="cancel the validation that uses a token",
     desc="""@dval_cancel_fire marks <<token>> fired. A @dval_validate that
uses it stops its running phase: a running program is killed through
@dval_session_cancel, a wait for the snapshot or sandbox or an upload
ends, and the
call returns @DVAL_ECANCELED after closing the session. A validation that
starts with a fired token runs no phase. Firing is idempotent: later calls
do nothing.""",
     ret="""@DVAL_OK, or @DVAL_EINVAL when <<token>> is NULL.""",
     errors=[("DVAL_EINVAL", "<<token>> is NULL.")],
     own="""Nothing is allocated.""",
     thread=T_CANCEL_FIRE,
     see=sees("dval_cancel_new", "dval_cancel_fired", "dval_validate", "dval_threads"))

page("dval_cancel_fired",
     summary="whether a cancel token was fired",
     desc="""@dval_cancel_fired tells whether @dval_cancel_fire was called
on <<token>>.""",
     ret="""1 when <<token>> was fired, 0 when not or when <<token>> is NULL.""",
     errors=[("None", "This function cannot fail.")],
     own="""Nothing is allocated.""",
     thread="""Thread-safe: an atomic read, from any thread at any time while
the token exists.""",
     see=sees("dval_cancel_new", "dval_cancel_fire"))

page("dval_cancel_free",
     summary="free a cancel token",
     desc="""@dval_cancel_free releases <<token>> and its descriptors. NULL
does nothing.""",
     ret="""Nothing.""",
     errors=[("None", "This function cannot fail.")],
     own="""The token must not be used afterwards, and no validation may
still use it.""",
     thread="""Must not race with any other use of the token (a running
@dval_validate that uses it, or @dval_cancel_fire from another
thread).""",
     see=sees("dval_cancel_new"))

# ------------------------------------------------------------ executor

page("dval_executor_init",
     types=["dval_executor"],
     summary="initialise a custom executor vtable",
     desc="""@dval_executor_init zeroes the first <<size>> bytes of *<<ex>>
(every member NULL) and sets struct_size. Fill in name, userdata, destroy
and the members the executor implements, then pass the struct as
custom_executor in @dval_client_options. Members left NULL make the core
return @DVAL_EUNSUPPORTED for operations that need them, except where it
has a fallback (for example no command_cancel: it deletes the session).
The contract of every member is in @dval_executor(3).""",
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
    "DVAL_EINVAL": "A required pointer was NULL, or a name, path, label, command or option value is malformed. The library checks its arguments before it sends anything to the executor; executors may also return it for input they cannot encode.",
    "DVAL_EABI": "The struct_size of an options struct or of the executor vtable is smaller than the library accepts, or a struct from a newer header has non-zero fields this library does not know. Rebuild against the installed header or upgrade the library.",
    "DVAL_ENOTFOUND": "The snapshot, sandbox, session, command or remote file does not exist (an unknown profile is @DVAL_EINVAL).",
    "DVAL_EEXISTS": "The name is already taken. Executor members report it from snapshot_create, sandbox_create and session_create; the library resolves those races itself, so programs rarely see it.",
    "DVAL_EAUTH": "Credentials are missing (no API key or JWT for the daytona executor) or the server rejected them with HTTP 401.",
    "DVAL_EFORBIDDEN": "The server answered HTTP 403: the credentials lack permission for the organisation or object.",
    "DVAL_ETIMEOUT": "A deadline passed: a request timeout (request_timeout_ms, HTTP 408), a state wait (create, start, build), a lock wait of the local executor, or an exec timeout_ms.",
    "DVAL_ENETWORK": "The connection could not be made or was reset, after the retries allowed for the operation.",
    "DVAL_EPROTOCOL": "The server's reply was not what the protocol allows (invalid JSON, missing fields, bad WebSocket or multipart framing), or it had an HTTP status the library does not expect (3xx, or a 4xx other than those listed under HTTP STATUS MAPPING).",
    "DVAL_ESERVER": "The server failed with HTTP 5xx, after retries on idempotent requests.",
    "DVAL_ERATELIMIT": "The server answered HTTP 429 until all retries (honouring Retry-After) were used.",
    "DVAL_ECONFLICT": "The server answered HTTP 409: a state change of the object is in progress.",
    "DVAL_ESTATE": "The object is in a state that forbids the call: exec on a closed session, a sandbox that never reached started or stayed broken after recovery, a snapshot that kept changing state, HTTP 410, or (local executor) a sandbox that is not started or a snapshot that is not active.",
    "DVAL_EABORTED": "A callback of the program returned non-zero. Errors raised inside callbacks always come back as this code.",
    "DVAL_ECANCELED": "dval_session_cancel() was called for the session: the blocked dval_session_exec() killed its command and returned (or the next exec returned at once, when the cancel came while none was running).",
    "DVAL_EREENTRANT": "A call on a client's handle tree was made from inside a callback the library was running for that client, or dval_session_exec()/dval_session_close() was called on a session whose exec was running (also from another thread). Nothing was done.",
    "DVAL_EEXEC": "The executor failed in a way no other code describes; the handle's error message has the details.",
    "DVAL_EPASSTHROUGH": "Returned by a custom executor member to ask for the built-in behaviour. The library honours it from stream_open (it polls instead), command_logs (skipped) and command_cancel (it deletes the session); from any other member it is passed on to the program as a failure.",
    "DVAL_EUNSUPPORTED": "The executor does not implement the operation (a NULL vtable member), or a profile cannot run on the local executor (its local_requires test failed).",
    "DVAL_EISOLATION": "The local executor cannot create the namespaces it needs and allow_unisolated is not set: it fails closed.",
    "DVAL_EBUILD": "The snapshot build failed (state error or build_failed); the message carries the server's errorReason.",
    "DVAL_ETOOBIG": "A download is larger than max_download_bytes (downloads into memory on every executor; every download on the daytona executor), a reply body is over an internal limit, or the local executor ran out of disk space or quota during an upload.",
    "DVAL_EIO": "Reading or writing a local file or directory failed: a file the program named, or the local executor's state, or a pipe could not be created.",
    "DVAL_ERESULTS": "The results are missing, not UTF-8, or not valid JSON.",
    "DVAL_EBADREQUEST": "The server rejected the request with HTTP 400 or 422 (for example an invalid snapshot image).",
    "DVAL_EBUSY": "The resource is in use by another run: dval_validate on a thread id whose working directory another run (in any process) is using, on an executor that claims working directories (the local executor). Nothing of the other run was touched; retry when it is done.",
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
follows: 400 and 422 @DVAL_EBADREQUEST (but a 400 to a sandbox create that
says the snapshot was not found is @DVAL_ENOTFOUND), 401 @DVAL_EAUTH, 403
@DVAL_EFORBIDDEN, 404 @DVAL_ENOTFOUND, 408 @DVAL_ETIMEOUT, 409
@DVAL_ECONFLICT (@DVAL_EEXISTS for a create), 410 @DVAL_ESTATE, 429
@DVAL_ERATELIMIT, a 500 saying "session not found" @DVAL_ENOTFOUND, other
5xx @DVAL_ESERVER, any other status @DVAL_EPROTOCOL; connection failures
and truncated replies @DVAL_ENETWORK. Which of them are retried is
described under RETRIES in @dval_executor(3).""")],
     see=sees("dval_strerror", "dval_status_name", "dval_client_errmsg", "dval(7)"))

page("dval_threads",
     protos=[],
     summary="threading rules of libdaytona-validate",
     desc="""The library starts no threads of its own. Every callback runs on
the thread that called the dval_* function that takes it, during that call.

= dval_client :: May be shared by any number of threads. Its configuration is immutable after @dval_client_new; shared state (connection cache, retry random state) is locked internally. Each request in flight uses its own connection handle. Its error message is one buffer shared by all threads (see below).
= dval_snapshot, dval_sandbox, dval_session :: Used by one thread at a time. Different handles, also of the same client or sandbox, may be used concurrently: several threads may each run a session of the same sandbox.
= dval_session_cancel :: Callable from any thread at any time (except while the session is being freed), including from inside callbacks. It is idempotent; the blocked @dval_session_exec returns @DVAL_ECANCELED (or the next one, when none is running).
= status and version functions :: @dval_strerror, @dval_status_name, @dval_version, @dval_version_num and the state name functions are callable from any thread.
= option initialisers :: Touch only the caller's memory.
= dval_global_init, dval_global_cleanup :: Thread-safe, reference counted.
= profiles :: @dval_profile_find, @dval_profile_names and @dval_profile_register are serialised by a process-wide lock. Profiles and name arrays are never freed, so pointers returned earlier stay valid after a registration (they do not see it).

Reentrancy: while the library runs a host callback (output, sandbox state,
build log, streamed download, sandbox list, validation event), every call
on the same client's handle tree returns @DVAL_EREENTRANT and does nothing,
so a callback cannot, say, delete the sandbox whose command it is
streaming. Getters, the *_errmsg functions and @dval_session_cancel are
allowed there, and so are calls on other clients. @dval_session_exec and
@dval_session_close on a session whose exec is running also return
@DVAL_EREENTRANT when called from another thread.

Error messages are stored per handle, not in thread-local storage. A Go
goroutine that moves to another OS thread between a failing call and
@dval_client_errmsg still reads the right message; no LockOSThread is
needed. A sandbox or session message is valid until the next call on the
same handle. The client's message is shared by every thread using the
client and is read without a lock: when threads fail on one client at the
same time, one may read another's message.

Handles hold atomic references to their parents, so handles may be freed in
any order, from any thread, as long as each handle is freed once and not
while in use. Finalizers of garbage-collected languages may therefore run
in any order.

libcurl is initialised once by @dval_global_init (implicitly by the first
@dval_client_new). Debian 12's libcurl is built thread-safe
(CURL_VERSION_THREADSAFE); with a libcurl that is not, call
@dval_global_init before starting threads.

The local executor and @dval_validate start helper processes with
posix_spawn(3), so they are safe in multi-threaded hosts such as Go and
Python programs. The local executor keeps its sessions and their running
commands in the client's process: they are killed when the client is
destroyed.""",
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
struct (the name pointer too: its text is copied, truncated to 63 bytes);
destroy(userdata) is called exactly once, when the client is finally
destroyed (never when @dval_client_new fails: the caller then keeps
ownership of userdata).""",
     extra=[("GENERAL CONTRACT", """- Every member returns @DVAL_OK or a negative status. On failure it
writes a message into c->errmsg (at most @DVAL_ERRMSG_MAX bytes, NUL
terminated) and, where known, c->http_status and c->retry_after_ms (the
server's hint; -1 for none). The library copies the message into the
error message of the handle concerned. It decides on retries from the
returned status alone (see RETRIES); retry_after_ms, when >= 0, replaces
its backoff delay; http_status is informational.
- Members must not retry: every retry, backoff and wait is done by the
library, and a member that retries multiplies the requests.
- "Not found" is @DVAL_ENOTFOUND; a taken name in snapshot_create,
sandbox_create or session_create is @DVAL_EEXISTS; a state change in
progress is @DVAL_ECONFLICT (sandbox_start, sandbox_stop, sandbox_recover
and sandbox_delete: the library waits and looks again).
- A NULL member makes the operations that need it fail with
@DVAL_EUNSUPPORTED, except where the library has a fallback: no
snapshot_logs (no build log is shown), no sandbox_recover (a broken sandbox
is deleted and created again), no stream_open or stream_read (the library
only polls command_status, and output comes from command_logs), no
command_logs (no reconciliation), no command_cancel (the session is
deleted), no session_delete (@dval_session_close does nothing).
- @DVAL_EPASSTHROUGH has a meaning only from stream_open (as if NULL),
command_logs (ignored) and command_cancel (any status other than @DVAL_OK
makes the library delete the session). From any other member it is passed
on to the program as a failure.
- Members are called on the thread that called the dval_* function, never
concurrently for the same handle, but possibly concurrently for different
sessions (also of one sandbox) and sandboxes: the executor must be
thread-safe across handles. Only destroy is never concurrent with
anything.
- c->timeout_ms is the time the member may take (0: no limit of its own;
the executor may still apply its request timeout). c->cancel_fd becomes
readable when the call is canceled (-1: cannot be canceled); poll it
together with your own descriptors and return @DVAL_ECANCELED soon after.
Only session calls (session_create, command_start, command_status,
stream_open, stream_read) get a cancel descriptor.
- Diagnostics may go to c->log_fn(level, msg, c->log_userdata) when it is
not NULL; the level filter of the client is not applied to them.
- Input strings and structs are borrowed for the call. Output structs
(dval_snapshot_info, dval_sandbox_info) are owned by the library, with
struct_size set; fill id, name, state, error_reason (and recoverable) with
NUL-terminated strings within @DVAL_ID_MAX / @DVAL_REASON_MAX. A
dval_sandbox_info that sandbox_get, sandbox_start, sandbox_stop or
sandbox_recover leaves in state @DVAL_SANDBOX_UNKNOWN (0) does not change
the handle's state.
- Members must not call dval_* functions on the same client."""),
            ("MEMBERS", """= snapshot_get :: Looks up a snapshot by name or id and fills *out. No time limit (timeout_ms 0).
= snapshot_create :: Creates a snapshot from the spec (its target already resolved to the client's when NULL). May build synchronously, delivering build output to log with stream @DVAL_STDOUT; @DVAL_EEXISTS when the name is taken (the library then gets it). It may be called again after a network failure, so it must cope with a half-done earlier attempt.
= snapshot_activate :: Reactivates an inactive snapshot.
= snapshot_delete :: Deletes a snapshot; gone already is @DVAL_ENOTFOUND (success for the library).
= snapshot_logs :: While the snapshot is building or pulling, called with c->timeout_ms 1000 and from = the number of log bytes the library has already delivered (snapshot_create's log output included). Deliver the log from that byte offset until it ends (@DVAL_OK) or the timeout passes (@DVAL_ETIMEOUT); the library then looks at the state again. Other failures are ignored.
= sandbox_get, sandbox_create, sandbox_start, sandbox_stop, sandbox_delete, sandbox_recover :: Lifecycle primitives; each reports the resulting dval_sandbox_info (not sandbox_delete) without waiting for a transition to finish: the library polls sandbox_get. sandbox_create gets the options with defaults resolved (auto_stop_minutes 0 meaning never, timeouts, zombie pause, the client's target) and c->timeout_ms = create_timeout_ms; start, stop and recover get start_timeout_ms. sandbox_recover asks the server to recover a recoverable error state.
= sandbox_list :: Calls each(info, each_ud) per sandbox carrying all labels (labels as the program gave them, unchecked, possibly NULL); stop when it returns non-zero and return @DVAL_EABORTED.
= session_create, session_delete :: Create and delete a named session in a sandbox.
= command_start :: Starts the command line asynchronously and writes its id (shorter than @DVAL_ID_MAX) into cmd_id. The text is the program's command, prefixed with "cd '<cwd>' && " when a cwd was given. The executor must run it in a child shell (the built-in executors run sh -c) so that it cannot end or change the session. c->timeout_ms is at most 60 s.
= command_status :: Sets *finished = 1 and *exit_code once the command has exited (else *finished = 0). Polled every 500 ms while the command runs, with c->timeout_ms at most 30 s.
= stream_open, stream_read, stream_close :: A live log stream of the command from its first byte. stream_close is required when stream_open is set. See STREAMS.
= command_logs :: The whole log so far, not following, as @DVAL_STREAM_RAW bytes from byte 0 (the library skips what it already delivered). Called once after the command finished, only when the live stream did not close normally and no stream delivered @DVAL_STDOUT or @DVAL_STDERR.
= file_upload :: Pulls bytes from src (a @dval_read_fn) until it stores 0 in *len and writes remote_path, creating parents and replacing the file; size is the total (the library always knows it; -1 would mean unknown). A non-zero return from src means stop. On a retry src starts again from the first byte.
= file_download :: Passes the file's bytes to sink, in order; a non-zero return from sink means stop (return @DVAL_EABORTED). A directory or special file is @DVAL_ENOTFOUND for the built-in executors.
= folder_create :: Creates a directory and its parents; an existing directory is success.
= command_cancel :: Kills a running command (its process group). Called with c->timeout_ms 10 s when the exec is canceled, times out or is aborted. NULL or any failure: the library deletes the session instead and marks it closed.
= file_list :: Lists the regular files under dir recursively from the host side, never by running a program in the sandbox, calling each(relpath, size, each_ud) with names relative to dir; a non-zero return stops the listing (@DVAL_EABORTED). Symlinks, files with other hard links, FIFOs, devices and sockets are neither followed nor opened: each is reported with size -1. @DVAL_ENOTFOUND when dir does not exist, @DVAL_ERESULTS when dir itself is a symlink or not a directory. dval_validate uses it for the results listing when present (the local executor walks the sandbox's root with openat2 RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS and RESOLVE_NO_MAGICLINKS); NULL: the run command lists the results with find inside the sandbox.
= workdir_claim, workdir_release :: dval_validate claims its working directory (/sandbox/<thread id>) before it empties it and releases it after the session is closed. workdir_claim returns @DVAL_EBUSY while another run holds the claim; a claim must end with its holder's process (the local executor flocks a file per thread id), so a crashed run blocks nobody. NULL: no claim.""",),
            ("STREAMS", """After command_start the library opens the stream with stream_open
(c->timeout_ms at most 30 s) and calls stream_read repeatedly, each time
with c->timeout_ms at most 200 ms and the session's cancel descriptor.
stream_read waits up to c->timeout_ms for output and passes what arrived
to sink: with stream @DVAL_STDOUT or @DVAL_STDERR, or with
@DVAL_STREAM_RAW for Daytona-multiplexed bytes (stdout after the marker
\\x01\\x01\\x01, stderr after \\x02\\x02\\x02), which the library
demultiplexes itself; bytes before the first marker are dropped. It returns
@DVAL_OK also when nothing arrived, and sets *closed = 1 when the stream
ended normally (the library then polls command_status until the command
has finished and does not call command_logs). When sink returns non-zero
(the program's callback stopped), return a failure such as @DVAL_EABORTED.

Any other failure makes the library close the stream and open it again;
after five consecutive failures without new bytes (or a failing
stream_open returning @DVAL_EUNSUPPORTED or @DVAL_EPASSTHROUGH) it stops
streaming and only polls command_status. A reopened stream starts again at
byte 0: for @DVAL_STREAM_RAW the library counts bytes and skips those it
has already delivered; @DVAL_STDOUT and @DVAL_STDERR bytes are not
de-duplicated, so an executor that delivers those must not replay. Once
command_status reports the exit, the library stops reading when the stream
has been quiet for 2 s (raw) or 200 ms (split), even if it never closes.
The library turns whatever it receives into chunks of at most 64 KiB that
end on UTF-8 boundaries before calling the program."""),
            ("RETRIES", """The library retries a failed member after the client's backoff
delay (@dval_client_options_init(3)), for at most retry_attempts attempts
in all:

- @DVAL_ERATELIMIT is retried for every member that the library retries
at all, command_start included;
- @DVAL_ENETWORK and @DVAL_ESERVER are retried for idempotent members
(snapshot_get, snapshot_activate, snapshot_delete, sandbox_get,
sandbox_start, sandbox_stop, sandbox_recover, sandbox_delete,
session_create, session_delete, command_status, file_upload,
file_download, folder_create) and for the creates that the library can
resolve by name (snapshot_create, sandbox_create);
- session_create also retries @DVAL_EBADREQUEST and @DVAL_ENOTFOUND (the
toolbox of a sandbox that just started);
- command_start is never retried for anything else: a command must not run
twice;
- file_download is not retried once the program's sink has seen bytes;
- sandbox_list, snapshot_logs, stream_open, stream_read, command_logs and
command_cancel are not retried (the stream has its own reconnects).

A @dval_session_cancel interrupts the backoff sleep of session calls.""")],
     ret="""@dval_executor_init returns @DVAL_OK, or @DVAL_EINVAL for NULL, or
@DVAL_EABI when size does not cover the fixed head.""",
     errors=[("DVAL_EINVAL", "@dval_executor_init: <<ex>> is NULL."),
             ("DVAL_EABI", "@dval_executor_init: size does not cover the head; @dval_client_new: the custom executor's struct_size is smaller than the head or larger than this library knows (a larger struct is refused even when its tail is zero)."),
             ("DVAL_EPASSTHROUGH", "Returned by members; reaches the program when a member other than stream_open, command_logs or command_cancel returns it.")],
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
a sandbox in which commands run one after the other, each in a child shell
of its own (sh -c), so "cd" and "export" do not carry over from one command
to the next."""),
            ("CONVENTIONS", """- Every fallible function returns int: @DVAL_OK (0) or a negative
status (@dval_errors(3)). The detail is in @dval_client_errmsg,
@dval_sandbox_errmsg or @dval_session_errmsg of the handle the call was made
on.
- Handles are opaque. Output parameters come first and are set to NULL on
failure. Each handle is released with its _free function, which accepts
NULL, does no network I/O and calls no callbacks (except a custom
executor's destroy, when the last reference to a client goes); children
keep their parent alive, so handles may be freed in any order. Remote
actions (delete, stop, close) are separate functions that can fail.
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
under $XDG_STATE_HOME/daytona-validate or
~/.local/state/daytona-validate). Transient failures get up to 5 attempts in
all, 1, 2, 4 and 8 s apart. See @dval_client_options_init(3)."""),
            ("ABI", """The library follows semantic versioning with a stable ABI
within a SONAME: exported functions are never removed or changed, status
codes and enum values never renumbered, and structs grow only at the tail
of size-prefixed structs. New behaviour comes as new functions. Use
@dval_version_num at run time to check for features.""")],
     see=sees("dval_client_new", "dval_snapshot_ensure", "dval_sandbox_acquire",
              "dval_session_exec", "dval_validate", "dval_errors", "dval_threads",
              "dval_executor", "daytona-validate(1)"))


# ------------------------------------------------ reentrancy guard (lib/reentry.c)
# Every call below returns DVAL_EREENTRANT when made from inside a callback
# the library is running for the same client.
_GUARDED = {"dval_snapshot_ensure", "dval_snapshot_get", "dval_snapshot_delete",
            "dval_sandbox_acquire", "dval_sandbox_get", "dval_sandbox_refresh",
            "dval_sandbox_start", "dval_sandbox_stop", "dval_sandbox_delete",
            "dval_sandbox_release", "dval_sandbox_list", "dval_sandbox_upload",
            "dval_sandbox_upload_file", "dval_sandbox_download",
            "dval_sandbox_download_to", "dval_sandbox_download_file",
            "dval_sandbox_download_json", "dval_sandbox_mkdir",
            "dval_session_open", "dval_session_exec", "dval_session_close",
            "dval_validate"}
for _p in PAGES:
    if _p["name"] in _GUARDED and not any(e[0] == "DVAL_EREENTRANT" for e in _p.get("errors", [])):
        _p["errors"] = list(_p.get("errors", [])) + [
            ("DVAL_EREENTRANT", "Called from inside a callback the library was running for the same client; nothing was done.")]
