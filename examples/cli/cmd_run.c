/* `daytona-validate run`: one validation. Program stdout/stderr are relayed
 * live to our stdout/stderr; the results JSON follows on stdout (or goes to
 * --results FILE); --json replaces all of that with one summary document. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define MAX_LABELS 32
#define MAX_SERVICES 8
#define MAX_SEEDS 64

static const char run_usage[] =
    "usage: daytona-validate run --profile NAME [options] DIR\n"
    "       daytona-validate run --profile NAME [--jobs N] [options] DIR...\n"
    "\n"
    "Uploads DIR into a sandbox, runs the profile's command there with\n"
    "DVAL_THREAD_ID, DVAL_WORKDIR and DVAL_RESULTS_DIR set, and brings back\n"
    "every file the program wrote under $DVAL_RESULTS_DIR (*.json parsed).\n"
    "\n"
    "  --profile NAME|FILE     java, dotnet, shell (see `profiles`), or a\n"
    "                          profile file (./p.json: dval_profile_load(3))\n"
    "  --image REF             the profile over another base image\n"
    "  --executor local|daytona  default: daytona when DAYTONA_API_KEY is set\n"
    "  --thread ID             thread id ([A-Za-z0-9._-], default generated)\n"
    "  --results FILE          write the results JSON to FILE, not stdout\n"
    "                          (whole or not at all: only a validation that\n"
    "                          passed replaces FILE); with several DIRs, a\n"
    "                          directory: NAME.json for each folder that\n"
    "                          passed (NAME-INDEX.json for a repeated NAME);\n"
    "                          the results files that are not *.json go\n"
    "                          byte-exact to FILE.files/ (FILE less .json;\n"
    "                          NAME.files/ in a directory)\n"
    "  --json                  print one JSON summary on stdout instead\n"
    "  --timeout SECONDS       limit each phase's wall time (default 600)\n"
    "  --memory-mib N --cpu-seconds S --pids N  limits of the validation's\n"
    "                          own processes (each phase's command, its\n"
    "                          processes together: memory without swap,\n"
    "                          CPU time, processes); local: a cgroup per\n"
    "                          command, also in a shared sandbox\n"
    "  --output-bytes N        the most each phase may print\n"
    "  --results-bytes N       the most its results files may hold together\n"
    "                          (as the summary holds them; default 64 MiB)\n"
    "  --release keep|stop|delete  what to do with the sandbox afterwards\n"
    "  --isolation session|sandbox  share the profile's sandbox (a session\n"
    "                          each, default) or get a sandbox of its own,\n"
    "                          created for this run and deleted after\n"
    "  --label KEY=VALUE       extra sandbox label (repeatable)\n"
    "  --service NAME          a fresh database of the service for the\n"
    "                          program: postgres, sqlite (repeatable; the\n"
    "                          first one's is DVAL_DB_URL, DVAL_DB_ADO,\n"
    "                          DVAL_DB_JDBC, DVAL_DB_HOST/PORT/NAME/USER/\n"
    "                          PASSWORD)\n"
    "  --seed FILE             SQL loaded into the services' seeded data,\n"
    "                          in order, when their snapshot is built once\n"
    "                          (repeatable; 1 MiB together)\n"
    "  --jobs N                with several DIRs: at most N at once (4)\n"
    "  --cpu N --memory GIB --disk GIB  resources of a sandbox the run\n"
    "                          creates (Daytona's units; local defaults: no\n"
    "                          CPU quota, 2 GiB memory, 10 GiB disk)\n"
    "  --allow-missing-results  no results file is not an error\n"
    "  --expect FILE           the expected result: the program's stdout is\n"
    "                          compared with FILE (text: trailing whitespace\n"
    "                          ignored), or --expect-file's file; a difference\n"
    "                          is the verdict wrong_results, with a diff\n"
    "  --expect-file NAME      compare the results file NAME (*.json) instead,\n"
    "                          as JSON\n"
    "  --expect-mode json|text|bytes  how to compare (default: text for the\n"
    "                          output, json for a results file)\n"
    "  --ignore PATH           a JSON path left out of a JSON comparison\n"
    "                          ($.a.b, $.rows[*].id, $..name; repeatable)\n"
    "  --tolerance X           numbers within X of each other are equal\n"
    "  --rel-tolerance X       ... or within X times the larger one\n"
    "  --arg WORD              an argument of the program, as it is\n"
    "                          (repeatable, in order; at most 256)\n"
    "  --stdin FILE            the program's stdin (- : this command's own;\n"
    "                          at most 16 MiB; default: empty)\n"
    "  --state-dir DIR         local executor state (and run transcripts)\n"
    "  --verbose               progress, build logs and library logs\n"
    "\n"
    "Every argument is checked before any remote work. Ctrl-C or SIGTERM\n"
    "stops the program, closes the session and exits 130 (143); a second\n"
    "one exits at once. Failures are explained on stderr, with a hint.\n"
    "--json prints one document of one shape for success and failure,\n"
    "defined by daytona-validate-run.schema.json (see daytona-validate(1)).\n"
    "With several DIRs each is one validation (own thread id, output lines\n"
    "prefixed [folder]), then a table folder/verdict/exit code/wall ms, or\n"
    "with --json one such document per line; exit 0 iff all succeeded.\n"
    "\n"
    "The verdict (passed, compile_error, runtime_error, time_limit, ...)\n"
    "is printed first on stderr and in --json.\n"
    "exit status: the program's when it ran and failed; else 0 ok, 64 usage,\n"
    "65 results missing or invalid, 66 source dir or --results file,\n"
    "69 unavailable, 70 infrastructure, 75 busy, 80 compile error,\n"
    "81 runtime unsupported, 82 memory limit, 83 output limit,\n"
    "84 wrong results, 124 time limit, 130 SIGINT, 143 SIGTERM.\n";

/* The last RUN_TAIL bytes of program output: hints look at them. */
void run_tail_add(run_state *st, const char *data, size_t len)
{
    if (len >= RUN_TAIL) {
        data += len - RUN_TAIL;
        len = RUN_TAIL;
    }
    if (st->tail_len + len > RUN_TAIL) {
        size_t drop = st->tail_len + len - RUN_TAIL;
        memmove(st->tail, st->tail + drop, st->tail_len - drop);
        st->tail_len -= drop;
    }
    memcpy(st->tail + st->tail_len, data, len);
    st->tail_len += len;
}

/* Timings, sandbox, session and exit code, known even when the library
 * returns no summary (a timeout, an interrupt, a failed phase). */
void run_note_phase(run_state *st, const dval_event *ev)
{
    const char *d = ev->detail ? ev->detail : "";
    size_t cap = sizeof st->timings - st->timings_len;
    int n = snprintf(st->timings + st->timings_len, cap, "%s\"%s\":%lld",
                     st->timings_len ? "," : "", ev->phase,
                     (long long)ev->elapsed_ms);
    if (n > 0 && (size_t)n < cap)
        st->timings_len += (size_t)n;
    else
        st->timings[st->timings_len] = '\0';
    if (ev->status != DVAL_OK)
        return;
    if (!strcmp(ev->phase, "sandbox"))
        snprintf(st->sandbox, sizeof st->sandbox, "%.*s",
                 (int)strcspn(d, " "), d);
    else if (!strcmp(ev->phase, "session"))
        snprintf(st->session, sizeof st->session, "%s", d);
    else if ((!strcmp(ev->phase, "run") || !strcmp(ev->phase, "build")) &&
             sscanf(d, "exit code %d", &st->exit_code) == 1)
        st->ran = 1;
}

static void log_phase(const dval_event *ev)
{
    char line[700];
    int n = snprintf(line, sizeof line, "%s %s %lld ms %s\n", ev->phase,
                     ev->status == DVAL_OK ? "ok" : dval_strerror(ev->status),
                     (long long)ev->elapsed_ms, ev->detail ? ev->detail : "");
    runlog_write("phase", line, n > 0 && (size_t)n < sizeof line
                                    ? (size_t)n : sizeof line - 1);
}

static int on_event(const dval_event *ev, void *ud)
{
    run_state *st = ud;
    if (ev->type == DVAL_EVENT_OUTPUT) {
        int err = ev->stream == DVAL_STDERR;
        runlog_write(err ? "stderr" : "stdout", ev->data, ev->len);
        run_tail_add(st, ev->data, ev->len);
        if (ev->phase && !strcmp(ev->phase, "build")) {
            /* the build's diagnostics: stdout is the program's alone */
            term_out(2, ev->data, ev->len);
        } else if (st->json) {
            /* stdout must hold only the summary: show output on stderr
             * (the summary has it, from the library) */
            term_out(2, ev->data, ev->len);
        } else {
            term_out(err ? 2 : 1, ev->data, ev->len);
        }
        return 0;
    }
    if (ev->type == DVAL_EVENT_BUILD_LOG) {
        runlog_write("build", ev->data, ev->len);
    } else if (ev->type == DVAL_EVENT_PHASE && ev->done) {
        run_note_phase(st, ev);
        log_phase(ev);
    }
    term_event(ev);
    return 0;   /* interrupts go through the cancel token */
}

/* "cli-" and 96 random bits: another run's id cannot be guessed (it
 * names that run's directory under /sandbox), nor does it tell a program
 * the CLI's pid or start time. */
static int default_thread_id(char *buf, size_t cap)
{
    unsigned char r[12];
    ssize_t n; /* up to 256 bytes come whole once the pool is ready */
    while ((n = getrandom(r, sizeof r, 0)) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof r)
        return -1;
    int o = snprintf(buf, cap, "cli-");
    for (size_t i = 0; i < sizeof r && o + 3 <= (int)cap; i++)
        o += snprintf(buf + o, cap - (size_t)o, "%02x", r[i]);
    return 0;
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
       OPT_TIMEOUT, OPT_RELEASE, OPT_LABEL, OPT_ALLOW_MISSING,
       OPT_ISOLATION, OPT_JOBS, OPT_CPU, OPT_MEMORY, OPT_DISK, OPT_SERVICE,
       OPT_SEED, OPT_IMAGE, OPT_MEMORY_MIB, OPT_CPU_SECONDS, OPT_PIDS,
       OPT_OUTPUT, OPT_RESULTS_BYTES };

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
    {"isolation", 1, NULL, OPT_ISOLATION},
    {"jobs", 1, NULL, OPT_JOBS},
    {"cpu", 1, NULL, OPT_CPU},
    {"memory", 1, NULL, OPT_MEMORY},
    {"disk", 1, NULL, OPT_DISK},
    {"service", 1, NULL, OPT_SERVICE},
    {"seed", 1, NULL, OPT_SEED},
    {"image", 1, NULL, OPT_IMAGE},
    {"memory-mib", 1, NULL, OPT_MEMORY_MIB},
    {"cpu-seconds", 1, NULL, OPT_CPU_SECONDS},
    {"pids", 1, NULL, OPT_PIDS},
    {"output-bytes", 1, NULL, OPT_OUTPUT},
    {"results-bytes", 1, NULL, OPT_RESULTS_BYTES},
    {"expect", 1, NULL, OPT_EXPECT},
    CLI_COMPARE_LONGOPTS,
    CLI_INPUTS_LONGOPTS,
    {NULL, 0, NULL, 0},
};

typedef struct run_args {
    cli_common co;
    dval_validation req;
    const char *labels[MAX_LABELS + 1];
    const char *services[MAX_SERVICES + 1];
    const char *seeds[MAX_SEEDS + 1];
    size_t nservices, nseeds;
    const char *results_file;
    const char *image;         /* --image: the profile over another base */
    int json;
    cli_expect expect;
    cli_inputs inputs;         /* --arg, --stdin */
    int32_t jobs;
    char **dirs;               /* several DIRs: a batch */
    int ndirs;
} run_args;

static int usage_error(cli_problem *pb, const char *fmt, const char *arg)
{
    snprintf(pb->message, sizeof pb->message, fmt, arg);
    snprintf(pb->hint, sizeof pb->hint, "see `daytona-validate run --help`");
    pb->exit_status = CLI_EX_USAGE;
    return CLI_EX_USAGE;
}

/* A whole number lo..hi for option name into *out: -1, or the usage exit. */
static int parse_count(cli_problem *pb, const char *fmt, long lo, long hi,
                       int32_t *out)
{
    char *end;
    long n = strtol(optarg, &end, 10);
    if (*end || end == optarg || n < lo || n > hi)
        return usage_error(pb, fmt, optarg);
    *out = (int32_t)n;
    return -1;
}

/* The options that may be given more than once. */
static int parse_repeated(run_args *a, int opt, size_t *nlabels,
                          cli_problem *pb)
{
    if (opt == OPT_LABEL) {
        if (!strchr(optarg, '=') || *optarg == '=' || *nlabels == MAX_LABELS)
            return usage_error(pb, "--label needs KEY=VALUE, not '%s'",
                               optarg);
        a->labels[(*nlabels)++] = optarg;
    } else if (opt == OPT_SERVICE) {
        if (a->nservices == MAX_SERVICES)
            return usage_error(pb, "too many --service options ('%s')",
                               optarg);
        a->services[a->nservices++] = optarg;
    } else {
        if (a->nseeds == MAX_SEEDS)
            return usage_error(pb, "too many --seed options ('%s')", optarg);
        a->seeds[a->nseeds++] = optarg;
    }
    return -1;
}

/* The limits of the validation's own processes (each phase's command) */
static int parse_limit(run_args *a, int opt, cli_problem *pb)
{
    if (opt == OPT_MEMORY_MIB)
        return parse_count(pb, "--memory-mib needs MiB 1..1048576, not '%s'",
                           1, 1048576, &a->req.memory_mib);
    if (opt == OPT_PIDS)
        return parse_count(pb, "--pids needs processes 1..65536, not '%s'",
                           1, 65536, &a->req.max_processes);
    if (opt == OPT_OUTPUT || opt == OPT_RESULTS_BYTES) {
        int32_t n;
        int rc = opt == OPT_OUTPUT
            ? parse_count(pb, "--output-bytes needs bytes 1..2147483647, "
                          "not '%s'", 1, 2147483647L, &n)
            : parse_count(pb, "--results-bytes needs bytes 1..67108864, "
                          "not '%s'", 1, 67108864L, &n);
        *(opt == OPT_OUTPUT ? &a->req.output_bytes : &a->req.results_bytes) = n;
        return rc;
    }
    char *end;
    double s = strtod(optarg, &end);
    if (*end || end == optarg || !(s > 0) || s > 1e7)
        return usage_error(pb, "--cpu-seconds needs seconds > 0, not '%s'",
                           optarg);
    a->req.cpu_time_ms = (int64_t)(s * 1000);
    return -1;
}

static int parse_option(run_args *a, int opt, size_t *nlabels,
                        cli_problem *pb)
{
    char *end;
    switch (opt) {
    case OPT_PROFILE: a->req.profile = optarg; return -1;
    case OPT_THREAD: a->req.thread_id = optarg; return -1;
    case OPT_RESULTS: a->results_file = optarg; return -1;
    case OPT_IMAGE: a->image = optarg; return -1;
    case OPT_JSON: a->json = 1; return -1;
    case OPT_ALLOW_MISSING: a->req.allow_missing_results = 1; return -1;
    case OPT_TIMEOUT: {
        double s = strtod(optarg, &end);
        if (*end || end == optarg || !(s > 0) || s > 1e7)
            return usage_error(pb, "--timeout needs seconds > 0, not '%s'",
                               optarg);
        a->req.timeout_ms = (int64_t)(s * 1000);
        return -1;
    }
    case OPT_RELEASE:
        if (parse_release(optarg, &a->req.release))
            return usage_error(pb, "--release is keep, stop or delete, not "
                               "'%s'", optarg);
        return -1;
    case OPT_ISOLATION:
        if (strcmp(optarg, "session") && strcmp(optarg, "sandbox"))
            return usage_error(pb, "--isolation is session or sandbox, not "
                               "'%s'", optarg);
        a->req.isolation = !strcmp(optarg, "sandbox") ? DVAL_ISOLATION_SANDBOX
                                                      : DVAL_ISOLATION_SESSION;
        return -1;
    case OPT_JOBS:
        return parse_count(pb, "--jobs needs 1..256, not '%s'", 1, 256,
                           &a->jobs);
    case OPT_CPU:
        return parse_count(pb, "--cpu needs a whole number of CPUs 1..64, "
                           "not '%s'", 1, 64, &a->req.cpu);
    case OPT_MEMORY:
        return parse_count(pb, "--memory needs GiB 1..1024, not '%s'", 1,
                           1024, &a->req.memory_gib);
    case OPT_DISK:
        return parse_count(pb, "--disk needs GiB 1..4096, not '%s'", 1, 4096,
                           &a->req.disk_gib);
    case OPT_LABEL:
    case OPT_SERVICE:
    case OPT_SEED:
        return parse_repeated(a, opt, nlabels, pb);
    case OPT_MEMORY_MIB:
    case OPT_CPU_SECONDS:
    case OPT_PIDS:
    case OPT_OUTPUT:
    case OPT_RESULTS_BYTES:
        return parse_limit(a, opt, pb);
    default:
        return usage_error(pb, "unknown or incomplete option '%s'",
                           optarg && opt != '?' ? optarg : "?");
    }
}

/* Returns -1 to proceed, 0 after --help, or the exit status with *pb set. */
static int parse_args(run_args *a, int argc, char **argv, cli_problem *pb)
{
    size_t nlabels = 0;
    int opt;
    optind = 0;   /* GNU: full re-initialisation */
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (cli_common_opt(&a->co, opt, optarg))
            continue;
        if (opt == OPT_HELP) {
            fputs(run_usage, stdout);
            return 0;
        }
        if (opt == '?' || opt == ':')
            return usage_error(pb, "unknown or incomplete option '%s'",
                               argv[optind - 1]);
        int ex = expect_option(&a->expect, opt, optarg, pb, "run");
        if (ex == 0)
            ex = inputs_option(&a->inputs, opt, optarg, pb);
        if (ex > 0)
            return ex;
        if (ex == 0)
            ex = parse_option(a, opt, &nlabels, pb);
        if (ex >= 0)
            return ex;
    }
    if (!a->req.profile)
        return usage_error(pb, "%s", "--profile NAME is required");
    if (optind >= argc)
        return usage_error(pb, "%s", "the source DIR is missing");
    a->req.source_dir = argv[optind];
    a->dirs = argv + optind;
    a->ndirs = argc - optind;
    if (nlabels)
        a->req.labels = a->labels;
    if (a->nservices)
        a->req.services = a->services;
    if (a->nseeds)
        a->req.seeds = a->seeds;
    return -1;
}

/* Every DIR; a batch refuses --thread (one would clash), and its
 * --results names a directory. */
static int check_dirs(const run_args *a, cli_problem *pb)
{
    if (a->ndirs > 1 && a->req.thread_id) {
        usage_error(pb, "%s", "--thread takes one DIR (each of several "
                    "gets its own thread id; use --json)");
        return -1;
    }
    for (int i = 0; i < a->ndirs; i++)
        if (check_source_dir(a->dirs[i], pb))
            return -1;
    return 0;
}

/* Every argument, before any remote work (-1: all good). */
static int check_args(run_args *a, cli_problem *pb)
{
    if (check_executor(a->co.executor, pb) ||
        check_profile(&a->req.profile, pb) ||
        apply_image(&a->req.profile, a->image, pb) ||
        (a->req.thread_id && check_thread_id(a->req.thread_id, pb)) ||
        check_dirs(a, pb) ||
        check_services(a->services, a->seeds, pb) ||
        (a->results_file && a->ndirs > 1 &&
         check_output_dir("--results", a->results_file, pb)) ||
        (a->results_file && a->ndirs == 1 &&
         check_output_file("--results", a->results_file, pb)))
        return pb->exit_status;
    int ex = expect_apply(&a->expect, &a->req, pb);
    return ex >= 0 ? ex : inputs_apply(&a->inputs, &a->req, pb);
}

/* --json is honoured even when the arguments around it are wrong. */
static int wants_json(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--json"))
            return 1;
    return 0;
}

/* A failure before dval_validate ran: arguments or client. */
static int early_failure(const run_args *a, const cli_problem *pb,
                         const char *phase)
{
    run_info ri;
    memset(&ri, 0, sizeof ri);
    ri.pb = *pb;
    ri.status = status_for_exit(pb->exit_status);
    ri.thread_id = a->req.thread_id;
    ri.executor = a->co.executor;
    snprintf(ri.phase, sizeof ri.phase, "%s", phase);
    term_problem(pb->message, pb->hint);
    if (a->json) {
        run_report r = {.ri = &ri, .profile = a->req.profile,
                        .folder = a->req.source_dir};
        report_json(stdout, &r);
    }
    return pb->exit_status;
}

/* To a --results file whole or not at all (atomic.c), else to stdout. */
static int write_results(const char *summary, const char *file,
                         cli_problem *pb)
{
    if (write_results_doc(file, summary)) {
        snprintf(pb->message, sizeof pb->message, "cannot write the results "
                 "to %s: %s%s", file ? file : "standard output",
                 strerror(errno), file ? " (the file is as it was)" : "");
        snprintf(pb->hint, sizeof pb->hint, "choose another --results file");
        pb->exit_status = CLI_EX_NOINPUT;
        return -1;
    }
    return 0;
}

static void program_exit(const char *summary, run_state *st)
{
    const char *val;
    size_t len;
    if (summary && !jt_member(summary, "exit_code", &val, &len) &&
        *val != 'n') {
        st->ran = 1;
        st->exit_code = atoi(val);
    }
}

static int finish(const run_args *a, run_state *st, dval_client *client,
                  int rc, const char *summary, int64_t total_ms)
{
    program_exit(summary, st);
    run_info ri;
    memset(&ri, 0, sizeof ri);
    ri.rc = rc;
    ri.errmsg = dval_client_errmsg(client);
    ri.executor = dval_client_executor_name(client);
    ri.thread_id = a->req.thread_id;
    ri.timeout_ms = a->req.timeout_ms;
    const dval_profile *prof = dval_profile_find(a->req.profile);
    ri.profile_timeout_ms = prof ? prof->timeout_ms : 0;
    ri.signal = intr_signal();
    ri.ran = st->ran;
    ri.exit_code = st->exit_code;
    ri.tail = st->tail;
    ri.tail_len = st->tail_len;
    run_info_verdict(&ri, summary);
    explain_run(&ri);
    term_done();
    if (ri.verdict[0])
        term_verdict(ri.verdict, ri.verdict_detail);
    if (!strcmp(ri.verdict, "wrong_results"))
        report_diff(stderr, summary);
    cli_problem wp;
    /* a results document only of a validation that passed: never a
     * partial one that looks complete */
    if (summary && !a->json && !ri.pb.exit_status &&
        write_results(summary, a->results_file, &wp)) {
        if (ri.pb.exit_status) {
            term_problem(wp.message, wp.hint);   /* besides the first one */
        } else {
            ri.pb = wp;
            ri.status = status_for_exit(wp.exit_status);
        }
    }
    if (ri.pb.exit_status) {
        term_problem(ri.pb.message, ri.pb.hint);
        runlog_write("error", ri.pb.message, strlen(ri.pb.message));
    }
    if (a->json) {
        run_report r = {.ri = &ri, .st = st, .profile = a->req.profile,
                        .summary = summary, .called = 1,
                        .total_ms = total_ms, .folder = a->req.source_dir};
        report_json(stdout, &r);
    }
    return ri.pb.exit_status;
}

static int run(run_args *a, dval_client *client)
{
    dval_cancel *token = NULL;
    if (dval_cancel_new(&token) || intr_start(token)) {
        cli_err("cannot watch for interrupts: %s", strerror(errno));
        dval_cancel_free(token);
        return CLI_EX_INFRA;
    }
    a->req.cancel = token;
    signal(SIGPIPE, SIG_IGN);   /* a closed stdout must not kill cleanup */
    runlog_open(&a->co, a->req.thread_id);
    term_status("%s: profile %s, %s executor, thread %s", cli_prog,
                a->req.profile, dval_client_executor_name(client),
                a->req.thread_id);
    run_state *st = calloc(1, sizeof *st);
    if (!st)
        return CLI_EX_INFRA;
    st->json = a->json;
    char *summary = NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = dval_validate(client, &a->req, on_event, st, &summary);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int64_t total = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000 +
                    (t1.tv_nsec - t0.tv_nsec) / 1000000;
    int ex = finish(a, st, client, rc, summary, total);
    runlog_close();
    dval_free(summary);
    free(st);
    /* the watcher thread may still hold the token: it is never freed
     * while the process runs */
    return ex;
}

/* `run` with *a set up: the exit status. */
static int run_main(run_args *a, int argc, char **argv)
{
    cli_problem pb;
    memset(&pb, 0, sizeof pb);
    int ex = parse_args(a, argc, argv, &pb);
    if (ex == 0)
        return 0;
    if (ex < 0)
        ex = check_args(a, &pb);
    if (ex > 0)
        return early_failure(a, &pb, "arguments");
    if (a->ndirs > 1) {
        batch_opts bo = {.co = &a->co, .req = &a->req, .dirs = a->dirs,
                         .ndirs = a->ndirs, .jobs = a->jobs ? a->jobs : 4,
                         .json = a->json, .results_dir = a->results_file};
        term_init(a->co.verbose, a->co.raw_output);
        return batch_run(&bo);
    }
    char tid[64];
    if (!a->req.thread_id) {
        if (default_thread_id(tid, sizeof tid) < 0) {
            cli_err("run: no random thread id: %s", strerror(errno));
            return CLI_EX_INFRA;
        }
        a->req.thread_id = tid;
    }
    term_init(a->co.verbose, a->co.raw_output);
    dval_client *client = NULL;
    if ((ex = cli_client_pb(&client, &a->co, &pb, NULL)))
        return early_failure(a, &pb, "client");
    ex = run(a, client);
    dval_client_free(client);
    return ex;
}

int cmd_run(int argc, char **argv)
{
    run_args a;
    memset(&a, 0, sizeof a);
    dval_validation_init(&a.req, sizeof a.req);
    dval_compare_options_init(&a.expect.cmp, sizeof a.expect.cmp);
    a.json = wants_json(argc, argv);
    int ex = run_main(&a, argc, argv);
    free(a.expect.data);
    free(a.inputs.data);
    return ex;
}
