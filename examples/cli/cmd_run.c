/* `daytona-validate run`: one validation. Program stdout/stderr are relayed
 * live to our stdout/stderr; the results JSON follows on stdout (or goes to
 * --results FILE); --json replaces all of that with one summary document. */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define MAX_LABELS 32
#define CAPTURE_MAX (1 << 20)   /* per stream, in --json mode */

static const char run_usage[] =
    "usage: daytona-validate run --profile NAME [options] DIR\n"
    "\n"
    "Uploads DIR into a sandbox, runs the profile's command there with\n"
    "DVAL_THREAD_ID, DVAL_WORKDIR and DVAL_RESULTS_DIR set, and brings back\n"
    "every *.json the program wrote under $DVAL_RESULTS_DIR.\n"
    "\n"
    "  --profile NAME          java, dotnet, shell (see `profiles`)\n"
    "  --executor local|daytona  default: daytona when DAYTONA_API_KEY is set\n"
    "  --thread ID             thread id ([A-Za-z0-9._-], default generated)\n"
    "  --results FILE          write the results JSON to FILE, not stdout\n"
    "  --json                  print one JSON summary on stdout instead\n"
    "  --timeout SECONDS       limit the program's run time\n"
    "  --release keep|stop|delete  what to do with the sandbox afterwards\n"
    "  --label KEY=VALUE       extra sandbox label (repeatable)\n"
    "  --allow-missing-results  no results file is not an error\n"
    "  --state-dir DIR         local executor state (and run transcripts)\n"
    "  --verbose               progress, build logs and library logs\n";

typedef struct capture {
    char *data;
    size_t len;
    int truncated;
} capture;

typedef struct run_ctx {
    int json;
    capture out, err;       /* --json: program output for the summary */
} run_ctx;

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    /* The next event makes dval_validate stop and close its session; a
     * second signal ends the process the default way. */
    interrupted = 1;
    signal(sig, SIG_DFL);
}

static void capture_add(capture *c, const char *data, size_t len)
{
    if (c->len + len > CAPTURE_MAX) {
        c->truncated = 1;
        len = CAPTURE_MAX - c->len;
    }
    if (!len)
        return;
    char *n = realloc(c->data, c->len + len);
    if (!n)
        return;
    memcpy(n + c->len, data, len);
    c->data = n;
    c->len += len;
}

static int on_event(const dval_event *ev, void *ud)
{
    run_ctx *r = ud;
    if (ev->type == DVAL_EVENT_OUTPUT) {
        int err = ev->stream == DVAL_STDERR;
        runlog_write(err ? "stderr" : "stdout", ev->data, ev->len);
        if (r->json) {
            /* stdout must hold only the summary: show output on stderr */
            capture_add(err ? &r->err : &r->out, ev->data, ev->len);
            term_out(2, ev->data, ev->len);
        } else {
            term_out(err ? 2 : 1, ev->data, ev->len);
        }
    } else {
        if (ev->type == DVAL_EVENT_BUILD_LOG) {
            runlog_write("build", ev->data, ev->len);
        } else if (ev->type == DVAL_EVENT_PHASE && ev->done) {
            char line[600];
            int n = snprintf(line, sizeof line, "%s %s %lld ms %s\n",
                             ev->phase, dval_status_name(ev->status),
                             (long long)ev->elapsed_ms,
                             ev->detail ? ev->detail : "");
            runlog_write("phase", line, n > 0 ? (size_t)n : 0);
        }
        term_event(ev);
    }
    return interrupted;
}

static void default_thread_id(char *buf, size_t cap)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(buf, cap, "cli-%s-%ld", stamp, (long)getpid());
}

static int parse_release(const char *s, int32_t *out)
{
    if (!strcmp(s, "keep"))
        *out = DVAL_RELEASE_KEEP;
    else if (!strcmp(s, "stop"))
        *out = DVAL_RELEASE_STOP;
    else if (!strcmp(s, "delete"))
        *out = DVAL_RELEASE_DELETE;
    else
        return -1;
    return 0;
}

enum { OPT_PROFILE = OPT_FIRST_CMD, OPT_THREAD, OPT_RESULTS, OPT_JSON,
       OPT_TIMEOUT, OPT_RELEASE, OPT_LABEL, OPT_ALLOW_MISSING };

static const struct option longopts[] = {
    CLI_COMMON_LONGOPTS,
    {"profile", 1, NULL, OPT_PROFILE},
    {"thread", 1, NULL, OPT_THREAD},
    {"results", 1, NULL, OPT_RESULTS},
    {"json", 0, NULL, OPT_JSON},
    {"timeout", 1, NULL, OPT_TIMEOUT},
    {"release", 1, NULL, OPT_RELEASE},
    {"label", 1, NULL, OPT_LABEL},
    {"allow-missing-results", 0, NULL, OPT_ALLOW_MISSING},
    {NULL, 0, NULL, 0},
};

typedef struct run_args {
    cli_common co;
    dval_validation req;
    const char *labels[MAX_LABELS + 1];
    const char *results_file;
    int json;
} run_args;

/* fmt is one of the literals below, with at most one %s */
static int usage_error(const char *fmt, const char *arg)
{
    char msg[512];
    const char *s = strstr(fmt, "%s");
    if (s)
        snprintf(msg, sizeof msg, "%.*s%s%s", (int)(s - fmt), fmt, arg,
                 s + 2);
    else
        snprintf(msg, sizeof msg, "%s", fmt);
    fprintf(stderr, "%s: run: %s\n", cli_prog, msg);
    cli_usage_hint("run ");
    return CLI_EX_USAGE;
}

/* Returns -1 to proceed, or the exit status to end with. */
static int parse_args(run_args *a, int argc, char **argv)
{
    size_t nlabels = 0;
    int opt;
    optind = 0;   /* GNU: full re-initialisation */
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (cli_common_opt(&a->co, opt, optarg))
            continue;
        char *end;
        switch (opt) {
        case OPT_HELP:
            fputs(run_usage, stdout);
            return 0;
        case OPT_PROFILE: a->req.profile = optarg; break;
        case OPT_THREAD: a->req.thread_id = optarg; break;
        case OPT_RESULTS: a->results_file = optarg; break;
        case OPT_JSON: a->json = 1; break;
        case OPT_ALLOW_MISSING: a->req.allow_missing_results = 1; break;
        case OPT_TIMEOUT: {
            double s = strtod(optarg, &end);
            if (*end || end == optarg || s <= 0 || s > 1e7)
                return usage_error("--timeout needs seconds > 0, not '%s'",
                                   optarg);
            a->req.timeout_ms = (int64_t)(s * 1000);
            break;
        }
        case OPT_RELEASE:
            if (parse_release(optarg, &a->req.release))
                return usage_error("--release is keep, stop or delete, not "
                                   "'%s'", optarg);
            break;
        case OPT_LABEL:
            if (!strchr(optarg, '=') || nlabels == MAX_LABELS)
                return usage_error("--label needs KEY=VALUE ('%s')", optarg);
            a->labels[nlabels++] = optarg;
            break;
        default:
            return usage_error("unknown or incomplete option '%s'",
                               argv[optind - 1]);
        }
    }
    if (!a->req.profile)
        return usage_error("%s", "--profile NAME is required");
    if (optind != argc - 1)
        return usage_error("%s", "exactly one source DIR is required");
    a->req.source_dir = argv[optind];
    if (nlabels)
        a->req.labels = a->labels;
    return -1;
}

/* Prints the summary (plus captured output) as one line of JSON. */
static void print_json(const char *summary, const run_ctx *r)
{
    size_t n = strlen(summary);
    while (n > 0 && summary[n - 1] != '}')
        n--;
    if (n == 0)
        return;
    fwrite(summary, 1, n - 1, stdout);
    fputs(",\"stdout\":", stdout);
    jt_string(stdout, r->out.data ? r->out.data : "", r->out.len);
    fputs(",\"stderr\":", stdout);
    jt_string(stdout, r->err.data ? r->err.data : "", r->err.len);
    printf(",\"output_truncated\":%s}\n",
           r->out.truncated || r->err.truncated ? "true" : "false");
}

/* The same keys as a summary where they are known, plus "error". */
static void print_failure_json(const run_args *a, dval_client *client, int rc,
                               const char *msg)
{
    const char *ex = dval_client_executor_name(client);
    printf("{\"exit_code\":null,\"results\":{},\"thread_id\":");
    jt_string(stdout, a->req.thread_id, strlen(a->req.thread_id));
    fputs(",\"profile\":", stdout);
    jt_string(stdout, a->req.profile, strlen(a->req.profile));
    fputs(",\"executor\":", stdout);
    jt_string(stdout, ex ? ex : "", ex ? strlen(ex) : 0);
    printf(",\"status\":\"%s\",\"error\":", dval_status_name(rc));
    jt_string(stdout, msg, strlen(msg));
    fputs("}\n", stdout);
}

static int write_results(const char *summary, const char *file)
{
    const char *val = "{}";
    size_t len = 2;
    jt_member(summary, "results", &val, &len);
    FILE *f = file ? fopen(file, "w") : stdout;
    if (!f) {
        cli_err("cannot write %s: %m", file);
        return -1;
    }
    jt_pretty(f, val, len);
    fputc('\n', f);
    if (file && fclose(f)) {
        cli_err("cannot write %s: %m", file);
        return -1;
    }
    fflush(stdout);
    return 0;
}

static int program_exit(const char *summary)
{
    const char *val;
    size_t len;
    if (jt_member(summary, "exit_code", &val, &len) || *val == 'n')
        return -1;
    return atoi(val);
}

static int finish(const run_args *a, run_ctx *r, dval_client *client, int rc,
                  const char *summary)
{
    if (!summary) {
        const char *msg = dval_client_errmsg(client);
        if (a->json)
            print_failure_json(a, client, rc, msg);
        cli_err("%s", *msg ? msg : dval_strerror(rc));
        /* as timeout(1): the program ran out of its --timeout */
        if (rc == DVAL_ETIMEOUT && a->req.timeout_ms > 0 &&
            !strncmp(msg, "exec:", 5))
            return CLI_EX_TIMEOUT;
        return cli_exit_for(rc);
    }
    int code = program_exit(summary);
    if (a->json)
        print_json(summary, r);
    else if (write_results(summary, a->results_file))
        return CLI_EX_NOINPUT;
    if (rc == DVAL_ERESULTS)
        cli_err("%s", dval_client_errmsg(client));
    if (code > 0)
        return code > 255 ? 255 : code;
    return rc == DVAL_OK ? 0 : CLI_EX_RESULTS;
}

int cmd_run(int argc, char **argv)
{
    run_args a;
    memset(&a, 0, sizeof a);
    dval_validation_init(&a.req, sizeof a.req);
    int ex = parse_args(&a, argc, argv);
    if (ex >= 0)
        return ex;
    char tid[64];
    if (!a.req.thread_id) {
        default_thread_id(tid, sizeof tid);
        a.req.thread_id = tid;
    }
    term_init(a.co.verbose);
    dval_client *client = NULL;
    int st = DVAL_OK;
    if ((ex = cli_client(&client, &a.co, &st))) {
        if (a.json)
            printf("{\"exit_code\":null,\"status\":\"%s\",\"error\":"
                   "\"cannot create a client\"}\n", dval_status_name(st));
        return ex;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);   /* a closed stdout must not kill cleanup */
    runlog_open(&a.co, a.req.thread_id);
    term_status("%s: profile %s, %s executor, thread %s", cli_prog,
                a.req.profile, dval_client_executor_name(client),
                a.req.thread_id);
    run_ctx r;
    memset(&r, 0, sizeof r);
    r.json = a.json;
    char *summary = NULL;
    int rc = dval_validate(client, &a.req, on_event, &r, &summary);
    runlog_close();
    ex = finish(&a, &r, client, rc, summary);
    if (interrupted)
        ex = CLI_EX_INTERRUPTED;
    dval_free(summary);
    free(r.out.data);
    free(r.err.data);
    dval_client_free(client);
    return ex;
}
