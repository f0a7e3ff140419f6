/* Turns the outcome of a `run` into words: what failed, why, and what to
 * do. The library's message ("<phase>: <detail>") is the "why"; the phase
 * becomes "what", and the status, the executor and the program's last
 * output choose the hint. No enum name reaches the user here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *phase_words(const char *phase)
{
    static const struct { const char *phase, *words; } t[] = {
        {"request", "checking the request"},
        {"queue", "waiting for its turn"},   /* a batch's folder */
        {"snapshot", "preparing the snapshot"},
        {"sandbox", "starting the sandbox"},
        {"session", "opening a session in the sandbox"},
        {"upload", "uploading the source directory"},
        {"build", "building the program"},
        {"run", "running the program"},
        {"download", "downloading the results"},
        {"close", "closing the session"},
        {"summary", "writing the summary"},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (!strcmp(t[i].phase, phase))
            return t[i].words;
    return phase;
}

static int has(const run_info *ri, const char *s)
{
    return ri->tail && memmem(ri->tail, ri->tail_len, s, strlen(s)) != NULL;
}

/* A hint from what the program printed last, or NULL. */
static const char *output_hint(const run_info *ri)
{
    /* Maven colours "[ERROR]" on a terminal: match on the messages */
    if ((has(ri, "maven") || has(ri, "mvn")) &&
        (has(ri, "in offline mode") || has(ri, "Could not transfer artifact") ||
         has(ri, "Could not resolve dependencies") ||
         has(ri, "Unknown host") || has(ri, "Non-resolvable")))
        return "Maven could not download the project's plugins or "
               "dependencies: it needs network access, and this sandbox has "
               "none (local sandboxes are offline). Run it with --executor "
               "daytona, put the dependencies into the snapshot, or remove "
               "pom.xml to build with plain javac";
    if (has(ri, "NU1301") || has(ri, "Unable to load the service index"))
        return "dotnet could not reach NuGet to restore packages: the "
               "sandbox needs network access (use --executor daytona)";
    if (has(ri, ".java:") && has(ri, ": error:"))
        return "fix the compile errors javac reported above";
    if (has(ri, ".cs(") && has(ri, "error CS"))
        return "fix the compile errors the C# compiler reported above";
    if (ri->exit_code == 127 || has(ri, "command not found"))
        return "a command the program runs is not installed in the "
               "sandbox (exit code 127): see the output above";
    if (ri->exit_code == 137)
        return "the program was killed (SIGKILL): it may have run out of "
               "memory or hit a sandbox limit";
    return NULL;
}

/* A profile's script said the sandbox or a service failed ("dval:
 * infrastructure: WHAT", exit 70): what failed, without the tag. */
static void infra_message(cli_problem *p, const char *detail)
{
    static const char tag[] = "dval: infrastructure: ";
    if (!strncmp(detail, tag, sizeof tag - 1))
        snprintf(p->message, sizeof p->message, "infrastructure failure: "
                 "%s", detail + sizeof tag - 1);
    else
        snprintf(p->message, sizeof p->message, "%s", detail);
}

/* The program ran and exited non-zero (whatever the results). */
static void program_failed(run_info *ri)
{
    cli_problem *p = &ri->pb;
    int bad = ri->rc == DVAL_ERESULTS;
    int none = bad && ri->errmsg && strstr(ri->errmsg, "wrote no");
    snprintf(p->message, sizeof p->message, "the program failed with exit "
             "code %d%s", ri->exit_code,
             none ? " and wrote no results"
             : bad ? " and some of its results are invalid" : "");
    const char *h = output_hint(ri);
    if (h)
        snprintf(p->hint, sizeof p->hint, "%s", h);
    else if (ri->thread_id)
        snprintf(p->hint, sizeof p->hint, "see the program's output above, "
                 "or `daytona-validate logs %s`", ri->thread_id);
    else
        snprintf(p->hint, sizeof p->hint, "see the program's output above");
    ri->status = "program_failed";
    snprintf(ri->phase, sizeof ri->phase, "run");
    p->exit_status = ri->exit_code > 255 ? 255 : ri->exit_code;
}

static void results_failed(run_info *ri, const char *detail)
{
    cli_problem *p = &ri->pb;
    snprintf(p->message, sizeof p->message, "the program exited 0, but %s",
             strstr(detail, "wrote no") ? "it wrote no *.json file under "
             "$DVAL_RESULTS_DIR" : detail);
    snprintf(p->hint, sizeof p->hint, "%s", strstr(detail, "wrote no")
             ? "write each result as a JSON file under $DVAL_RESULTS_DIR, "
               "or pass --allow-missing-results"
             : "each *.json file under $DVAL_RESULTS_DIR must hold one "
               "UTF-8 JSON document");
    ri->status = "results_invalid";
    snprintf(ri->phase, sizeof ri->phase, "download");
    p->exit_status = CLI_EX_RESULTS;
}

static const char *status_hint(const run_info *ri)
{
    int daytona = ri->executor && !strcmp(ri->executor, "daytona");
    switch (ri->rc) {
    case DVAL_EAUTH:
        return "the Daytona API rejected the credentials (HTTP 401): check "
               "DAYTONA_API_KEY (or DAYTONA_JWT_TOKEN and "
               "DAYTONA_ORGANIZATION_ID) and DAYTONA_API_URL";
    case DVAL_EFORBIDDEN:
        return daytona ? "the key lacks a permission this needs (HTTP 403): "
                         "check the key's scopes and DAYTONA_ORGANIZATION_ID"
                       : "permission denied: check the state directory's "
                         "permissions";
    case DVAL_ENETWORK:
        return "check the network and DAYTONA_API_URL (default "
               "https://app.daytona.io/api)";
    case DVAL_ERATELIMIT:
        return "Daytona is rate limiting this key: wait a minute and retry";
    case DVAL_ESERVER:
        return "Daytona failed (HTTP 5xx): retry later";
    case DVAL_EISOLATION:
        /* root lacks no privilege: what refused is the kernel or the
         * environment (a chroot, a container without the capabilities) */
        if (geteuid() == 0)
            return "this environment refused what the local executor needs "
                   "(the message says which): run it on the host or in a "
                   "privileged container, or use --executor daytona with "
                   "DAYTONA_API_KEY";
        return "the local executor needs root (or user namespaces) to build "
               "its sandboxes: run as root, or use --executor daytona with "
               "DAYTONA_API_KEY";
    case DVAL_EBUILD:
        return "see the build log with `daytona-validate snapshot ensure "
               "PROFILE --verbose`";
    case DVAL_EBUSY:
        return "another run uses this thread id: wait for it, or pass "
               "another --thread";
    case DVAL_EUNSUPPORTED:
        return NULL;   /* the library's message says what to use instead */
    case DVAL_ETIMEOUT:
        return "the service was too slow: retry, or look at "
               "--verbose output";
    default:
        return NULL;
    }
}

const char *status_for_exit(int ex)
{
    return ex == 0                    ? "passed"
           : ex == CLI_EX_USAGE       ? "usage_error"
           : ex == CLI_EX_RESULTS     ? "results_invalid"
           : ex == CLI_EX_NOINPUT     ? "input_error"
           : ex == CLI_EX_UNAVAILABLE ? "unavailable"
           : ex == CLI_EX_BUSY        ? "busy"
           : ex == CLI_EX_TIMEOUT     ? "timed_out"
           : ex == 130 || ex == 143   ? "interrupted"
                                      : "infrastructure_error";
}

static void set_status(run_info *ri)
{
    ri->status = status_for_exit(ri->pb.exit_status);
}

/* A failure of the library call itself (not of the program). */
static void run_failed(run_info *ri, const char *phase, const char *detail)
{
    cli_problem *p = &ri->pb;
    if (ri->signal) {
        if (phase != ri->phase)
            snprintf(ri->phase, sizeof ri->phase, "%s", phase);
        int exec = !strcmp(phase, "run") || !strcmp(phase, "build");
        snprintf(p->message, sizeof p->message, "interrupted (%s) while %s: "
                 "%s", ri->signal == 15 ? "SIGTERM" : "SIGINT",
                 phase_words(phase), exec ? "the program was stopped and its "
                 "session closed" : ri->ran ? "the session was closed"
                 : "stopped before the program ran");
        ri->status = "interrupted";
        p->exit_status = 128 + ri->signal;
        return;
    }
    if (ri->rc == DVAL_ETIMEOUT &&
        (!strcmp(phase, "run") || !strcmp(phase, "build"))) {
        int64_t lim = ri->timeout_ms > 0 ? ri->timeout_ms
                      : ri->profile_timeout_ms > 0 ? ri->profile_timeout_ms
                                                   : 600000;
        snprintf(p->message, sizeof p->message, "the %s ran longer than "
                 "%s%.3g s and was stopped", !strcmp(phase, "build")
                 ? "build" : "program", ri->timeout_ms > 0 ? "--timeout "
                 : ri->profile_timeout_ms > 0 ? "the profile's limit of "
                 : "the default limit of ", (double)lim / 1000);
        snprintf(p->hint, sizeof p->hint, "raise --timeout, or look for an "
                 "endless loop or a wait for input in the program");
        ri->status = "timed_out";
        p->exit_status = CLI_EX_TIMEOUT;
        return;
    }
    snprintf(p->message, sizeof p->message, "%s failed: %s",
             phase_words(phase), *detail ? detail : dval_strerror(ri->rc));
    const char *h = status_hint(ri);
    if (!h)
        h = "run again with --verbose for the details";
    snprintf(p->hint, sizeof p->hint, "%s", h);
    p->exit_status = ri->rc == DVAL_EBUSY ? CLI_EX_BUSY
                                          : cli_exit_for(ri->rc);
    set_status(ri);
}

/* A verdict about the program that no status of the library says:
 * 1 when handled. */
static int verdict_failed(run_info *ri)
{
    static const struct {
        const char *verdict, *status, *phase, *hint;
        int exit_status;
    } t[] = {
        {"compile_error", "compile_error", "build", NULL, CLI_EX_COMPILE},
        {"runtime_unsupported", "runtime_unsupported", "build",
         "use a snapshot whose image has a newer runtime (see "
         "`daytona-validate profiles`)", CLI_EX_UNSUPPORTED},
        {"memory_limit", "memory_limit", "run", "raise --memory-mib, or look "
         "for what the program keeps allocating", CLI_EX_MEMORY},
        {"output_limit", "output_limit", "run", "print less, or raise the "
         "output limit", CLI_EX_OUTPUT},
        {"wrong_results", "wrong_results", "compare", "the differences "
         "are listed above (--json: \"comparison\"); --ignore and "
         "--tolerance leave out what may differ", CLI_EX_WRONG},
        /* a profile's script said so: not the program's fault */
        {"infrastructure_error", "infrastructure_error", "run", "not the "
         "program's fault: retry; if it stays, rebuild the snapshot "
         "(`daytona-validate snapshot rm PROFILE`)", CLI_EX_INFRA},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        if (strcmp(ri->verdict, t[i].verdict) ||
            (t[i].exit_status == CLI_EX_INFRA && !ri->ran))
            continue;
        cli_problem *p = &ri->pb;
        if (!strcmp(ri->verdict, "compile_error"))
            snprintf(p->message, sizeof p->message, "the program does not "
                     "compile: the build failed with exit code %d",
                     ri->exit_code);
        else if (t[i].exit_status == CLI_EX_INFRA)
            infra_message(p, ri->verdict_detail);
        else
            snprintf(p->message, sizeof p->message, "%s",
                     ri->verdict_detail);
        const char *h = t[i].hint ? t[i].hint : output_hint(ri);
        snprintf(p->hint, sizeof p->hint, "%s", h ? h : "see the output "
                 "above");
        ri->status = t[i].status;
        snprintf(ri->phase, sizeof ri->phase, "%s", t[i].phase);
        p->exit_status = t[i].exit_status;
        return 1;
    }
    return 0;
}

void explain_run(run_info *ri)
{
    const char *msg = ri->errmsg ? ri->errmsg : "";
    const char *colon = strstr(msg, ": ");
    size_t n = colon ? (size_t)(colon - msg) : 0;
    if (n == 0 || n >= sizeof ri->phase || memchr(msg, ' ', n))
        n = 0;
    memcpy(ri->phase, msg, n);
    ri->phase[n] = '\0';
    const char *detail = n ? colon + 2 : msg;
    memset(&ri->pb, 0, sizeof ri->pb);
    if (ri->signal) {
        /* a validation that completed was interrupted while closing */
        run_failed(ri, ri->rc == DVAL_OK ? "close" : n ? ri->phase : "run",
                   detail);
    } else if (verdict_failed(ri)) {
        return;
    } else if (ri->ran && ri->exit_code != 0 &&
               (ri->rc == DVAL_OK || ri->rc == DVAL_ERESULTS)) {
        program_failed(ri);
    } else if (ri->rc == DVAL_ERESULTS) {
        results_failed(ri, detail);
    } else if (ri->rc == DVAL_OK) {
        ri->status = "passed";
        ri->pb.exit_status = 0;
    } else {
        run_failed(ri, n ? ri->phase : "request", detail);
    }
    if (!ri->phase[0] && ri->rc != DVAL_OK)
        snprintf(ri->phase, sizeof ri->phase, "%s",
                 ri->ran ? "run" : "request");
}
