/* dval_validate's build and run phases: each a command, with the
 * validation's environment, in its working directory, output streamed as
 * events and kept (bounded) for the verdict and the summary. */
#include <string.h>

#include "validate.h"
#include "command_text.h"
#include "service_start.h"

/* The validation's variables as NAME=value strings, in one buffer. */
static int build_env(dval__vctx *v, dval__buf *buf, const char *env[4])
{
    const char *names[3] = { "DVAL_THREAD_ID", "DVAL_WORKDIR",
                             "DVAL_RESULTS_DIR" };
    const char *vals[3] = { v->thread_id, v->workdir, v->resdir };
    size_t at[3];
    int rc = DVAL_OK;
    for (int i = 0; i < 3 && !rc; i++) {
        at[i] = buf->len;
        rc = dval__buf_appendf(buf, "%s=%s", names[i], vals[i]);
        rc = rc ? rc : dval__buf_append(buf, "", 1); /* the NUL */
    }
    for (int i = 0; i < 3 && !rc; i++)
        env[i] = buf->data + at[i];
    env[3] = NULL;
    return rc;
}

/* The phase's command is started as a program, the validation's
 * variables and directory given as data: its words when it needs no shell
 * ("exec WORD...", see dval__command_words: the shell that would only exec
 * it is a process start saved per validation), else "sh -c RUN"; the run
 * phase's under the services' wraps (services.h). Data rather than text,
 * so an executor that names the sandbox's paths otherwise on its side can
 * map them. */
static int phase_argv(dval__vctx *v, const char *run, int wrap,
                      char ***words, const char *shell[4],
                      dval__buf *envbuf, const char *env[4])
{
    *words = NULL;
    shell[0] = NULL;
    /* the services' wraps are the program; the run command their sh's */
    int rc = !wrap ? dval__command_words(run, words)
             : dval__svcset_wrap_argv(v->svc, run, words) ? DVAL_ENOMEM : 1;
    if (rc < 0)
        return rc;
    if (rc == 0) {
        shell[0] = "sh";
        shell[1] = "-c";
        shell[2] = run;
        shell[3] = NULL;
    }
    rc = build_env(v, envbuf, env);
    if (rc) {
        dval__free(*words);
        *words = NULL;
    }
    return rc;
}

/* *ran: the session's exec was reached (its errmsg says why it failed) */
static int run_command(dval__vctx *v, const char *run, int wrap,
                       const dval_exec_options *eo, int *code, int *ran)
{
    char **words = NULL;
    const char *shell[4], *env[4];
    dval__buf envbuf = { 0 };
    int rc = phase_argv(v, run, wrap, &words, shell, &envbuf, env);
    const char *const *argv = words ? (const char *const *)words : shell;
    /* the validation's own command: its uid on the local executor */
    dval__command cmd = { NULL, argv, env, v->thread_id };
    *ran = !rc;
    if (!rc)
        rc = dval__session_exec_command(v->sess, &cmd, eo,
                                        dval__validate_on_output, v, code);
    dval__free(words);
    dval__buf_free(&envbuf);
    return rc;
}

/* The default bound on a phase's wall time: a validation that loops for
 * ever must end on its own, whoever forgot to ask. */
#define DEFAULT_WALL_MS (10 * 60 * 1000)

/* Runs p's command; a timeout, a cancel or an abort is recorded in p and
 * returned, as is a failure to run it at all. */
static int run_phase_command(dval__vctx *v, dval__phase *p, const char *cmd,
                             int64_t timeout_ms)
{
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.channel_prefix = v->prof->channel_prefix;
    eo.cwd = v->workdir;
    eo.timeout_ms = timeout_ms > 0 ? timeout_ms : DEFAULT_WALL_MS;
    /* the validation's limits bound each phase's own processes; always
     * asked, so the phase is measured (zeros: no limit) */
    dval_limits lim = { .struct_size = sizeof lim,
                        .memory_bytes = (int64_t)v->req.memory_mib << 20,
                        .cpu_ms = v->req.cpu_time_ms,
                        .max_processes = v->req.max_processes };
    eo.limits = &lim;
    memset(&p->usage, 0xff, sizeof p->usage);
    p->usage.struct_size = sizeof p->usage;
    p->usage.cpu_limit_hit = 0;
    eo.usage = &p->usage;
    p->has_usage = 1;
    int code = -1, ran = 0;
    /* the program's run gets its databases; its build none */
    int wrap = p == &v->run && v->svc->n;
    int64_t t0 = dval__now_ms();
    p->started = 1;
    v->cur = p;
    int rc = run_command(v, cmd, wrap, &eo, &code, &ran);
    v->cur = NULL;
    p->ms = dval__now_ms() - t0;
    if (rc == DVAL_EABORTED && p->over_output && !v->aborted) {
        char why[128];
        dval__fmt(why, sizeof why, "printed more than its output limit "
                  "(%lld bytes)", (long long)v->req.output_bytes);
        p->status = DVAL_ETOOBIG;
        return dval__validate_fail(v, DVAL_ETOOBIG, p->name, why);
    }
    p->status = rc;
    if (rc)
        return dval__validate_fail(v, rc, p->name,
                                   ran ? dval_session_errmsg(v->sess) : NULL);
    p->done = 1;
    p->exit_code = code;
    if (wrap && code == DVAL__SERVICE_FAILED)
        dval__service_failed(v->sb);
    return DVAL_OK;
}

int dval__validate_build(dval__vctx *v)
{
    return run_phase_command(v, &v->build, v->build_cmd, v->req.timeout_ms);
}

int dval__validate_run(dval__vctx *v)
{
    return run_phase_command(v, &v->run, v->run_cmd, v->req.timeout_ms);
}

void dval__phase_reset(dval__phase *p)
{
    dval__buf_free(&p->out);
    dval__buf_free(&p->err);
    const char *name = p->name;
    memset(p, 0, sizeof *p);
    p->name = name;
}
