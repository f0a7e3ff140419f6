/* The verdict of a validation: one word a pipeline branches on, decided
 * here once for every executor from what the phases came to (their exit
 * codes, what ended them, the runtime's own words) and the results. */
#include <signal.h>
#include <string.h>

#include "validate.h"

static const char *const names[] = {
    [DVAL_VERDICT_PASSED] = "passed",
    [DVAL_VERDICT_COMPILE_ERROR] = "compile_error",
    [DVAL_VERDICT_RUNTIME_ERROR] = "runtime_error",
    [DVAL_VERDICT_TIME_LIMIT] = "time_limit",
    [DVAL_VERDICT_MEMORY_LIMIT] = "memory_limit",
    [DVAL_VERDICT_OUTPUT_LIMIT] = "output_limit",
    [DVAL_VERDICT_RESULTS_MISSING] = "results_missing",
    [DVAL_VERDICT_RESULTS_INVALID] = "results_invalid",
    [DVAL_VERDICT_RUNTIME_UNSUPPORTED] = "runtime_unsupported",
    [DVAL_VERDICT_WRONG_RESULTS] = "wrong_results",
    [DVAL_VERDICT_CANCELED] = "canceled",
    [DVAL_VERDICT_INFRASTRUCTURE_ERROR] = "infrastructure_error",
};
#define N_NAMES (sizeof names / sizeof *names)

DVAL_API const char *dval_verdict_name(int verdict)
{
    return verdict > 0 && (size_t)verdict < N_NAMES && names[verdict]
               ? names[verdict] : "unknown";
}

DVAL_API int dval_verdict_parse(const char *name)
{
    for (size_t i = 1; name && i < N_NAMES; i++)
        if (names[i] && !strcmp(name, names[i]))
            return (int)i;
    return 0;
}

/* The first line of p's output starting with marker (the profile's
 * scripts say so when the runtime is too old, or a service failed), with
 * the exit code the scripts give it; copied to detail. */
static int said(const dval__phase *p, int code, const char *marker,
                char *detail, size_t cap)
{
    if (p->exit_code != code)
        return 0;
    const dval__buf *bufs[2] = { &p->err, &p->out };
    for (int i = 0; i < 2; i++) {
        const char *d = bufs[i]->data, *at = d;
        while (d && (at = strstr(at, marker))) {
            if (at == d || at[-1] == '\n') {
                dval__fmt(detail, cap, "%.*s", (int)strcspn(at, "\n"), at);
                return 1;
            }
            at++;
        }
    }
    return 0;
}

/* A phase that its limits ended, as the executor's measure says: the
 * kernel killed one of its processes at the memory limit (its cgroup's
 * OOM count, never a guess from an exit 137), or its CPU time was spent.
 * 0: neither. */
static int limited(const dval__vctx *v, const dval__phase *p, char *detail,
                   size_t cap)
{
    if (!p->has_usage)
        return 0;
    if (p->usage.oom_kills > 0) {
        char lim[64] = "the sandbox's";
        if (v->req.memory_mib > 0)
            dval__fmt(lim, sizeof lim, "its %d MiB", (int)v->req.memory_mib);
        dval__fmt(detail, cap, "the %s phase ran out of memory: the kernel "
                  "killed %d process(es) at %s memory limit", p->name,
                  (int)p->usage.oom_kills, lim);
        return DVAL_VERDICT_MEMORY_LIMIT;
    }
    if (p->usage.cpu_limit_hit > 0) {
        dval__fmt(detail, cap, "the %s phase used up its CPU time limit "
                  "(cpu: %lld ms of CPU, limit %lld ms)", p->name,
                  (long long)p->usage.cpu_ms,
                  (long long)v->req.cpu_time_ms);
        return DVAL_VERDICT_TIME_LIMIT;
    }
    return 0;
}

/* Whether a script of ours ran in phase p and so may have said a service
 * failed: the build's steps, or the run's service wraps. A run without
 * services runs the program alone, and a program's own words must not
 * turn its failure into one "safe to retry". */
static int ours_may_say(const dval__vctx *v, const dval__phase *p)
{
    return p != &v->run || (v->svc && v->svc->n > 0);
}

/* A phase that exited non-zero: its own failure (dflt), unless its
 * limits ended it or its scripts said the runtime or a service was at
 * fault. */
static int failed(const dval__vctx *v, const dval__phase *p, int dflt,
                  char *detail, size_t cap)
{
    int lim = limited(v, p, detail, cap);
    if (lim)
        return lim;
    if (said(p, 78, "dval: runtime unsupported:", detail, cap))
        return DVAL_VERDICT_RUNTIME_UNSUPPORTED;
    if (ours_may_say(v, p) &&
        said(p, 70, "dval: infrastructure:", detail, cap))
        return DVAL_VERDICT_INFRASTRUCTURE_ERROR;
    int sig = p->exit_code > 128 && p->exit_code < 128 + 65
                  ? p->exit_code - 128 : 0;
    const char *abbrev = sig ? sigabbrev_np(sig) : NULL;
    if (abbrev)
        dval__fmt(detail, cap, "the %s phase was killed by SIG%s", p->name,
                  abbrev);
    else
        dval__fmt(detail, cap, "the %s phase exited with code %d", p->name,
                  p->exit_code);
    return dflt;
}

/* A phase whose command did not run to an exit code. */
static int cut(const dval__vctx *v, const dval__phase *p, int status,
               char *detail, size_t cap)
{
    if (p->over_output) {
        dval__fmt(detail, cap, "the %s phase printed more than its output "
                  "limit (%lld bytes)", p->name,
                  (long long)v->req.output_bytes);
        return DVAL_VERDICT_OUTPUT_LIMIT;
    }
    if (status == DVAL_ETIMEOUT || p->status == DVAL_ETIMEOUT) {
        dval__fmt(detail, cap, "the %s phase ran past its wall-clock limit "
                  "(wall: %lld ms)", p->name, (long long)p->ms);
        return DVAL_VERDICT_TIME_LIMIT;
    }
    dval__fmt(detail, cap, "%s", dval_client_errmsg(v->client));
    return DVAL_VERDICT_INFRASTRUCTURE_ERROR;
}

static int results(const dval__vctx *v, char *detail, size_t cap)
{
    if (v->results_missing) {
        dval__fmt(detail, cap, "the program wrote no results under %s",
                  v->resdir);
        dval__validate_other_names(v, detail, cap);
        return DVAL_VERDICT_RESULTS_MISSING;
    }
    if (json_array_size(v->errors) > 0) {
        dval__fmt(detail, cap, "%s",
                  json_string_value(json_array_get(v->errors, 0)));
        return DVAL_VERDICT_RESULTS_INVALID;
    }
    return 0;
}

int dval__verdict(const dval__vctx *v, int status, char *detail, size_t cap)
{
    detail[0] = 0;
    if (status == DVAL_ECANCELED || status == DVAL_EABORTED) {
        dval__fmt(detail, cap, "stopped by the caller");
        return DVAL_VERDICT_CANCELED;
    }
    if (v->build.started && !v->build.done)
        return cut(v, &v->build, status, detail, cap);
    if (v->build.done && v->build.exit_code != 0)
        return failed(v, &v->build, DVAL_VERDICT_COMPILE_ERROR, detail,
                      cap);
    if (!v->run.done)
        return cut(v, &v->run, status, detail, cap);
    if (v->run.exit_code != 0)
        return failed(v, &v->run, DVAL_VERDICT_RUNTIME_ERROR, detail, cap);
    /* a program that went on after the kernel killed one of its
     * processes at the limit still went past it */
    int r = limited(v, &v->run, detail, cap);
    if (r)
        return r;
    r = results(v, detail, cap);
    if (r)
        return r;
    if (v->compared && v->cmp.count) {
        dval__expect_detail(v, detail, cap);
        return DVAL_VERDICT_WRONG_RESULTS;
    }
    if (status != DVAL_OK) {
        dval__fmt(detail, cap, "%s", dval_client_errmsg(v->client));
        return DVAL_VERDICT_INFRASTRUCTURE_ERROR;
    }
    dval__fmt(detail, cap, v->compared ? "built, ran and gave the expected "
              "result" : "built, ran and wrote its results");
    return DVAL_VERDICT_PASSED;
}
