/* Profile services: long-lived helpers a snapshot installs (the java and
 * dotnet compile services today), described by data in the snapshot so
 * that neither the core nor the executors know any of them by name.
 *
 * A snapshot's build steps install a service by writing one file
 * DVAL_SERVICE_DIR/<name> (root's, 0644) of lines:
 *   uid <n>       the uid it runs as: one of DVAL_SERVICE_UID_FIRST ..
 *                 + DVAL_SERVICE_UIDS - 1, which no validation ever has
 *   dir <path>    its socket's directory, owned by that uid (0755): the
 *                 socket is <path>/sock, removed before each start
 *   run <command> started with /bin/sh -c, as that uid, cwd /
 *   shared 1      (optional) it serves every sandbox of the snapshot
 *                 from outside them: only for a service that takes its
 *                 input as data from the socket and runs no code of a
 *                 validation (the java and dotnet compile services)
 * Who starts them: on the local executor, a root caller's, a shared one
 * runs once per snapshot in the snapshot's services host (libexec/
 * dval-local-helper/services_host.c), its directory bound read-only into
 * each sandbox; the sandbox's init (service.c) supervises the others
 * (and none where the caller is not root); on an executor with
 * no such init the core sends DVAL_SERVICE_START_ROOT once per sandbox
 * (lib/service_start.c). Clients trust a service only when the kernel's
 * peer uid of its socket owns the socket's directory, that directory is
 * writable by no one else and is neither root's nor their own uid, nor
 * the overflow uid (what an unmapped uid shows as in a user namespace:
 * two unmapped uids would look alike). */
#ifndef DVAL_PROFILE_SERVICE_H
#define DVAL_PROFILE_SERVICE_H

#define DVAL_SERVICE_DIR "/etc/dval/services"
/* the first uid of the local executor's uid range 1 (sandbox_ids.h) */
#define DVAL_SERVICE_UID_FIRST 1879113728L /* 0x70010000 */
#define DVAL_SERVICE_UIDS 256L

/* The build step that installs service `name` (string literals; `run`
 * without single quotes): its socket directory and its description. */
#define DVAL_SERVICE_INSTALL(name, uid, dir, run)                           \
    "mkdir -p " DVAL_SERVICE_DIR " " dir " && chown " uid ":" uid " " dir   \
    " && chmod 0755 " dir " && printf '%s\\n' 'uid " uid "' 'dir " dir    \
    "' 'run " run "' > " DVAL_SERVICE_DIR "/" name

/* The same, for a service shared by every sandbox of the snapshot. */
#define DVAL_SERVICE_INSTALL_SHARED(name, uid, dir, run)                    \
    DVAL_SERVICE_INSTALL(name, uid, dir, run "' 'shared 1")

/* The start of a profile's build command whose scripts the snapshot's
 * build wrote under dir: a sandbox without them (its snapshot built by
 * another version of a profile or by a server that ran no build step, or
 * a local sandbox run unisolated, which runs no step) is an
 * infrastructure error, not the program's. */
#define DVAL_PROFILE_NEEDS(dir, script)                                     \
    "[ -f " dir "/" script " ] || { echo 'dval: infrastructure: the "       \
    "scripts of this profile (" dir ") are not in this sandbox: its "       \
    "snapshot lacks them (rebuild it), or it runs unisolated (give the "    \
    "validation a run command of its own)' >&2; exit 70; }; "

/* Where the executor has no init of its own (Daytona: commands run as
 * the sandbox's user, root in the design's images): starts each service
 * detached, as its uid, once (flock -n on <dir>/lock; the kernel drops
 * the lock when the service dies). Idempotent and cheap: without
 * services or without root it exits at once. */
#define DVAL_SERVICE_START_ROOT                                             \
    "[ -d " DVAL_SERVICE_DIR " ] && [ \"$(id -u)\" = 0 ] && "              \
    "for f in " DVAL_SERVICE_DIR "/*; do "                                 \
    "u=$(sed -n 's/^uid //p' \"$f\"); d=$(sed -n 's/^dir //p' \"$f\"); "   \
    "r=$(sed -n 's/^run //p' \"$f\"); [ -n \"$u\" ] && [ -n \"$r\" ] && "  \
    "nohup setpriv --reuid=\"$u\" --regid=\"$u\" --clear-groups "          \
    "--inh-caps=-all flock -n \"$d/lock\" sh -c \"$r\" "                   \
    ">/dev/null 2>&1 </dev/null & done; true"

#endif
