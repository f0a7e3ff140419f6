/* `daytona-validate diff ORIGINAL TRANSLATION`: validates both programs
 * at the same time (two threads of this program, each a dval_validate on
 * the one client: the library runs concurrent validations in their own
 * sessions and starts no thread itself), then has dval_differential
 * judge them: "equivalent", or "differs" with the structural diff; a side
 * that does not pass gives its own verdict instead. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diff.h"

static const char diff_usage[] =
    "usage: daytona-validate diff [options] ORIGINAL TRANSLATION\n"
    "\n"
    "Validates the two programs at the same time, each in its own session\n"
    "(as `run` does), then compares the results JSON they wrote: prints\n"
    "`equivalent`, or `differs` and the differences (path, kind, expected\n"
    "= the original's, actual = the translation's). The results are one\n"
    "document keyed by file name: $[\"out.json\"].rows[2].total.\n"
    "\n"
    "  --profile NAME          the original's profile; --profile2 NAME the\n"
    "                          translation's. Default: recognised from the\n"
    "                          folder (a .csproj: dotnet, pom.xml or *.java:\n"
    "                          java, run.sh: shell)\n"
    "  --json                  one document: {\"verdict\", \"verdict_detail\",\n"
    "                          \"differences\", \"diff\", \"original\",\n"
    "                          \"translation\"} (the sides as `run --json`)\n"
    "  --ignore PATH           a JSON path left out ($[\"r.json\"].at, $..at;\n"
    "                          repeatable)\n"
    "  --tolerance X           numbers within X of each other are equal\n"
    "  --rel-tolerance X       ... or within X times the larger one\n"
    "  --timeout SECONDS       each program's run time limit\n"
    "  --service NAME --seed FILE  a database for both, as for `run`\n"
    "  --executor local|daytona  --state-dir DIR  --verbose\n"
    "\n"
    "exit status: 0 equivalent, 84 differs; when a side does not pass, its\n"
    "own (the original's first), as `run` gives it; 64 usage.\n";

typedef struct side {
    const char *name;             /* "original", "translation" */
    const diff_args *a;
    int i;
    dval_client *client;
    dval_cancel *token;
    run_state st;
    run_info ri;
    char tid[160];
    char *summary;
    int64_t ms;
    char *doc;                    /* its `run --json` document */
    size_t doc_len;
    atomic_int done;
} side;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int on_event(const dval_event *ev, void *ud)
{
    side *s = ud;
    if (ev->type == DVAL_EVENT_PHASE && ev->done)
        run_note_phase(&s->st, ev);
    else if (ev->type == DVAL_EVENT_OUTPUT)
        run_tail_add(&s->st, ev->data, ev->len);
    return 0;
}

/* The side's outcome in words and as a run document, on its own thread
 * (the client's message is the calling thread's). */
static void explain_side(side *s, int rc)
{
    const char *at = s->summary ? strstr(s->summary, "\"exit_code\":") : NULL;
    if (at && sscanf(at, "\"exit_code\":%d", &s->st.exit_code) == 1)
        s->st.ran = 1;
    s->ri.rc = rc;
    s->ri.errmsg = dval_client_errmsg(s->client);
    s->ri.executor = dval_client_executor_name(s->client);
    s->ri.timeout_ms = s->a->timeout_ms;
    s->ri.signal = intr_signal();
    s->ri.ran = s->st.ran;
    s->ri.exit_code = s->st.exit_code;
    const char *tid;
    size_t n;
    if (s->summary && !jt_member(s->summary, "thread_id", &tid, &n))
        jt_unquote(tid, n, s->tid, sizeof s->tid);
    s->ri.thread_id = s->tid;
    s->ri.tail = s->st.tail;
    s->ri.tail_len = s->st.tail_len;
    run_info_verdict(&s->ri, s->summary);
    explain_run(&s->ri);
    /* no transcript is kept for diff: the output is shown instead */
    if (!strncmp(s->ri.pb.hint, "see the program's output above", 30))
        snprintf(s->ri.pb.hint, sizeof s->ri.pb.hint, "see the %s's output "
                 "above (--json: its stdout and stderr)", s->name);
    run_report r = {.ri = &s->ri, .st = &s->st, .profile = s->a->profile[s->i],
                    .summary = s->summary, .called = 1, .total_ms = s->ms,
                    .folder = s->a->dir[s->i], .index = s->i};
    FILE *f = open_memstream(&s->doc, &s->doc_len);
    if (f) {
        report_json(f, &r);
        fclose(f);
    }
    while (s->doc && s->doc_len && s->doc[s->doc_len - 1] == '\n')
        s->doc[--s->doc_len] = '\0';
}

static void *validate_side(void *arg)
{
    side *s = arg;
    const diff_args *a = s->a;
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = a->profile[s->i];
    req.source_dir = a->dir[s->i];
    req.timeout_ms = a->timeout_ms;
    req.cancel = s->token;
    if (a->nservices)
        req.services = a->services;
    if (a->nseeds)
        req.seeds = a->seeds;
    int64_t t0 = now_ms();
    int rc = dval_validate(s->client, &req, on_event, s, &s->summary);
    s->ms = now_ms() - t0;
    explain_side(s, rc);
    atomic_store(&s->done, 1);
    return NULL;
}

/* Both sides at once; Ctrl-C (the master token) stops both. */
static int run_both(side *s, dval_cancel *master)
{
    pthread_t th[2];
    int started = 0;
    for (; started < 2; started++)
        if (pthread_create(&th[started], NULL, validate_side, &s[started]))
            break;
    if (started < 2)
        for (int i = started; i < 2; i++) {
            s[i].ri.status = "infrastructure_error";
            s[i].ri.pb.exit_status = CLI_EX_INFRA;
            snprintf(s[i].ri.pb.message, sizeof s[i].ri.pb.message,
                     "cannot start a thread for the %s", s[i].name);
            atomic_store(&s[i].done, 1);
        }
    while (!atomic_load(&s[0].done) || !atomic_load(&s[1].done)) {
        if (dval_cancel_fired(master)) {
            dval_cancel_fire(s[0].token);
            dval_cancel_fire(s[1].token);
        }
        usleep(20000);
    }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    return started == 2 ? 0 : -1;
}

typedef struct outcome {
    char verdict[64];
    char detail[1200];
    char *report;                 /* dval_differential's, or NULL */
    const char *diff;             /* its "diff" array (into report) */
    size_t diff_len;
    size_t differences;
    const char *failed_side;      /* "original", "translation" or NULL */
    int exit_status;
} outcome;

/* A side that has no summary (its request never ran) did not pass. */
static void no_summary(const side *s, outcome *o)
{
    const side *f = s[0].summary ? &s[1] : &s[0];
    snprintf(o->verdict, sizeof o->verdict, "%s", f->ri.verdict[0]
             ? f->ri.verdict : f->ri.status);
    o->exit_status = f->ri.pb.exit_status ? f->ri.pb.exit_status
                                          : CLI_EX_INFRA;
    snprintf(o->detail, sizeof o->detail, "the %s did not pass: %.1000s",
             f->name, f->ri.pb.message);
    o->failed_side = f->name;
}

/* The library judges the two summaries; the exit status follows. */
static void conclude(const side *s, const diff_args *a, outcome *o)
{
    memset(o, 0, sizeof *o);
    if (!s[0].summary || !s[1].summary) {
        no_summary(s, o);
        return;
    }
    int how = 0;
    int rc = dval_differential(&how, &o->report, s[0].summary, s[1].summary,
                               &a->expect.cmp);
    const char *v;
    size_t n;
    if (rc || jt_member(o->report, "verdict", &v, &n)) {
        snprintf(o->verdict, sizeof o->verdict, "usage_error");
        o->exit_status = CLI_EX_USAGE;
        snprintf(o->detail, sizeof o->detail, "cannot compare: %s",
                 dval_strerror(rc));
        return;
    }
    jt_unquote(v, n, o->verdict, sizeof o->verdict);
    if (!jt_member(o->report, "verdict_detail", &v, &n))
        jt_unquote(v, n, o->detail, sizeof o->detail);
    jt_member(o->report, "diff", &o->diff, &o->diff_len);
    if (!jt_member(o->report, "differences", &v, &n))
        o->differences = strtoull(v, NULL, 10);
    const side *f = how == DVAL_DIFF_ORIGINAL_FAILED ? &s[0] : &s[1];
    if (how == DVAL_DIFF_ORIGINAL_FAILED || how == DVAL_DIFF_TRANSLATION_FAILED)
        o->failed_side = f->name;
    o->exit_status = how == DVAL_DIFF_EQUIVALENT ? 0
                     : how == DVAL_DIFF_DIFFERS ? CLI_EX_WRONG
                     : f->ri.pb.exit_status ? f->ri.pb.exit_status
                     : CLI_EX_INFRA;
}

static void print_json(const side *s, const outcome *o)
{
    fputs("{\"schema\":\"daytona-validate-diff/1\",\"verdict\":", stdout);
    jt_string(stdout, o->verdict, strlen(o->verdict));
    fputs(",\"verdict_detail\":", stdout);
    jt_string(stdout, o->detail, strlen(o->detail));
    printf(",\"differences\":%zu,\"diff\":%.*s", o->differences,
           o->diff ? (int)o->diff_len : 2, o->diff ? o->diff : "[]");
    fputs(",\"failed_side\":", stdout);
    if (o->failed_side)
        jt_string(stdout, o->failed_side, strlen(o->failed_side));
    else
        fputs("null", stdout);
    for (int i = 0; i < 2; i++)
        printf(",\"%s\":%s", s[i].name, s[i].doc ? s[i].doc : "null");
    fputs("}\n", stdout);
}

static void print_words(const side *s, const outcome *o)
{
    for (int i = 0; i < 2; i++)
        fprintf(stderr, "%s: %s (%s, %s): %s in %lld ms\n", cli_prog,
                s[i].name, s[i].a->profile[i], s[i].a->dir[i],
                s[i].ri.verdict[0] ? s[i].ri.verdict : s[i].ri.status,
                (long long)s[i].ms);
    for (int i = 0; i < 2; i++)
        if (s[i].ri.pb.exit_status && s[i].st.tail_len) {
            fprintf(stderr, "--- the %s's output (its end):\n", s[i].name);
            fflush(stderr);
            term_out(2, s[i].st.tail, s[i].st.tail_len);
        }
    term_verdict(o->verdict, o->detail);
    for (int i = 0; i < 2; i++)
        if (s[i].ri.pb.exit_status && s[i].ri.pb.message[0])
            term_problem(s[i].ri.pb.message, s[i].ri.pb.hint);
    printf("%s\n", o->verdict);
    if (o->differences) {
        jt_pretty(stdout, o->diff, o->diff_len);
        fputc('\n', stdout);
    }
}

static int diff_run(diff_args *a, dval_client *client)
{
    side *s = calloc(2, sizeof *s);
    dval_cancel *master = NULL;
    if (!s || dval_cancel_new(&master) || intr_start(master) ||
        dval_cancel_new(&s[0].token) || dval_cancel_new(&s[1].token)) {
        cli_err("diff: cannot set up the two validations");
        return CLI_EX_INFRA;
    }
    for (int i = 0; i < 2; i++) {
        s[i].name = i ? "translation" : "original";
        s[i].a = a;
        s[i].i = i;
        s[i].client = client;
    }
    run_both(s, master);
    /* both validations are over: only the master may still be held */
    dval_cancel_free(s[0].token);
    dval_cancel_free(s[1].token);
    outcome o;
    conclude(s, a, &o);
    if (a->json)
        print_json(s, &o);
    else
        print_words(s, &o);
    fflush(stdout);
    for (int i = 0; i < 2; i++) {
        dval_free(s[i].summary);
        free(s[i].doc);
    }
    dval_free(o.report);
    /* the tokens stay: the interrupt watcher may hold the master */
    free(s);
    return o.exit_status;
}

int cmd_diff(int argc, char **argv)
{
    diff_args *a = calloc(1, sizeof *a);
    cli_problem pb;
    memset(&pb, 0, sizeof pb);
    if (!a)
        return CLI_EX_INFRA;
    dval_compare_options_init(&a->expect.cmp, sizeof a->expect.cmp);
    int ex = diff_parse(a, argc, argv, &pb);
    if (ex == 0)
        fputs(diff_usage, stdout);
    if (ex > 0)
        term_problem(pb.message, pb.hint);
    if (ex >= 0) {
        free(a);
        return ex;
    }
    dval_client *client = NULL;
    ex = cli_client(&client, &a->co, NULL);
    if (ex == 0) {
        term_init(a->co.verbose, a->co.raw_output);
        ex = diff_run(a, client);
        dval_client_free(client);
    }
    free(a);
    return ex;
}
