/* `run` with several DIRs: each folder is one validation with its own
 * thread id, at most --jobs at once through a dval_pool. Output lines are
 * prefixed with the folder's name and written whole under a lock, so two
 * validations never interleave within a line; a terminal gets a live
 * view below them (batch_view.c); the end is a summary table (or, with --json, one run document per
 * validation per line); --results DIR gets each passed folder's results
 * document. Exit 0 iff every validation succeeded. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"

typedef struct ectx {
    batch *b;
    item *it;
} ectx;

/* One whole line "[name] text" on the stream's fd; on a terminal the
 * program's text made inert (safeterm.c), unless --raw-output. */
static void emit_line(batch *b, item *it, int err, const char *s, size_t n)
{
    char inert[SAFETERM_OUT(sizeof it->line[0])];
    FILE *f = err || b->o->json ? stderr : stdout;
    if (!b->o->co->raw_output && isatty(fileno(f))) {
        safeterm st = { .inert_cr = 1 }; /* "[name] " stays first */
        size_t m = safeterm_filter(&st, s, n, inert);
        n = m + safeterm_flush(&st, inert + m);
        s = inert;
    }
    pthread_mutex_lock(&b->out_lock);
    view_clear(b);
    fprintf(f, "[%s] %.*s\n", it->name, (int)n, s);
    fflush(f);
    view_draw(b);
    pthread_mutex_unlock(&b->out_lock);
}

static void add_output(batch *b, item *it, int err, const char *d, size_t n)
{
    char *line = it->line[err];
    size_t *len = &it->line_len[err];
    for (size_t i = 0; i < n; i++) {
        if (d[i] == '\n' || *len == sizeof it->line[0] - 1) {
            emit_line(b, it, err, line, *len);
            *len = 0;
            if (d[i] == '\n')
                continue;
        }
        line[(*len)++] = d[i];
    }
}

static int on_event(const dval_event *ev, void *ud)
{
    ectx *e = ud;
    if (ev->type == DVAL_EVENT_OUTPUT)
        add_output(e->b, e->it, ev->stream == DVAL_STDERR, ev->data, ev->len);
    else if (ev->type == DVAL_EVENT_RESTART)
        emit_line(e->b, e->it, 1, "(sandbox lost: output restarts)", 31);
    else if (ev->type == DVAL_EVENT_PHASE && ev->done)
        run_note_phase(e->it->st, ev);
    if (ev->type == DVAL_EVENT_PHASE) { /* for the live view */
        pthread_mutex_lock(&e->b->out_lock);
        snprintf(e->it->phase, sizeof e->it->phase, "%s",
                 ev->done || !ev->phase ? "" : ev->phase);
        pthread_mutex_unlock(&e->b->out_lock);
    }
    return 0;
}

static void flush_partial(batch *b, item *it)
{
    for (int s = 0; s < 2; s++)
        if (it->line_len[s])
            emit_line(b, it, s, it->line[s], it->line_len[s]);
}

/* --results DIR: the results of a validation that passed, whole or not
 * at all; one that cannot be written fails the folder (-1). */
static int save_results(batch *b, item *it, const char *summary,
                        run_info *ri)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", b->o->results_dir, it->results);
    if (!write_results_doc(path, summary))
        return 0;
    snprintf(ri->pb.message, sizeof ri->pb.message, "cannot write the "
             "results to %.1900s: %s", path, strerror(errno));
    snprintf(ri->pb.hint, sizeof ri->pb.hint, "choose another --results "
             "directory");
    ri->pb.exit_status = CLI_EX_NOINPUT;
    ri->status = status_for_exit(CLI_EX_NOINPUT);
    emit_line(b, it, 1, ri->pb.message, strlen(ri->pb.message));
    return -1;
}

/* Words and JSON for one finished validation, as the single run has;
 * why: the failure of one never started (NULL: the client's message). */
static void report(batch *b, item *it, int rc, const char *summary,
                   const char *why)
{
    run_info ri;
    memset(&ri, 0, sizeof ri);
    ri.rc = rc;
    ri.errmsg = why ? why : dval_client_errmsg(b->client);
    ri.executor = dval_client_executor_name(b->client);
    ri.thread_id = NULL;
    ri.timeout_ms = b->o->req->timeout_ms;
    ri.signal = intr_signal();
    ri.ran = it->st->ran;
    ri.exit_code = it->st->exit_code;
    run_info_verdict(&ri, summary);
    explain_run(&ri);
    int unsaved = b->o->results_dir && summary && !ri.pb.exit_status &&
                  save_results(b, it, summary, &ri) < 0;
    it->exit_status = ri.pb.exit_status;
    it->status = ri.status;
    /* a verdict its unsaved results overruled is not the folder's */
    snprintf(it->verdict, sizeof it->verdict, "%s",
             ri.verdict[0] && !unsaved ? ri.verdict : ri.status);
    if (!b->o->json)
        return;
    run_report r = {.ri = &ri, .st = it->st, .profile = b->o->req->profile,
                    .summary = summary, .called = !why, .folder = it->dir,
                    .index = (int)(it - b->items),
                    .total_ms = it->wall_ms};
    pthread_mutex_lock(&b->out_lock);
    report_json(stdout, &r);   /* one line */
    fflush(stdout);
    pthread_mutex_unlock(&b->out_lock);
}

static void run_one(batch *b, item *it, dval_cancel *token)
{
    dval_validation req = *b->o->req;
    req.source_dir = it->dir;
    req.thread_id = NULL;          /* a uuid of its own */
    req.sandbox_name = NULL;
    req.cancel = token;
    ectx e = {b, it};
    char *summary = NULL;
    int64_t t0 = batch_now_ms();
    pthread_mutex_lock(&b->out_lock);
    it->started_ms = t0;
    snprintf(it->phase, sizeof it->phase, "queued");
    atomic_fetch_add(&b->running, 1);
    pthread_mutex_unlock(&b->out_lock);
    int rc = dval_pool_validate(b->pool, &req, on_event, &e, &summary);
    it->wall_ms = batch_now_ms() - t0;
    pthread_mutex_lock(&b->out_lock);
    atomic_fetch_sub(&b->running, 1);
    it->phase[0] = '\0';
    pthread_mutex_unlock(&b->out_lock);
    flush_partial(b, it);
    if (summary && sscanf(strstr(summary, "\"exit_code\":") ?
                          strstr(summary, "\"exit_code\":") : "",
                          "\"exit_code\":%d", &it->st->exit_code) == 1)
        it->st->ran = 1;
    report(b, it, rc, summary, NULL);
    dval_free(summary);
    if (it->exit_status)
        atomic_fetch_add(&b->failed, 1);
    atomic_fetch_add(&b->done, 1);
}

static void *worker(void *arg)
{
    batch *b = arg;
    int i;
    while ((i = atomic_fetch_add(&b->next, 1)) < b->o->ndirs) {
        if (dval_cancel_fired(b->master)) {
            /* interrupted before it started: reported (a run document
             * with --json too), not run */
            report(b, &b->items[i], DVAL_ECANCELED, NULL,
                   "queue: interrupted before it started");
            b->items[i].exit_status = CLI_EX_INTERRUPTED;
            b->items[i].status = "interrupted";
            atomic_fetch_add(&b->failed, 1);
            atomic_fetch_add(&b->done, 1);
            continue;
        }
        run_one(b, &b->items[i], b->items[i].token);
    }
    return NULL;
}

/* Ctrl-C fires the master token (interrupt.c); a token serves one
 * validation, so this thread passes it on to every one. */
static void *interrupt_relay(void *arg)
{
    batch *b = arg;
    unsigned ticks = 0;
    while (atomic_load(&b->done) < b->o->ndirs) {
        if (dval_cancel_fired(b->master)) {
            for (int i = 0; i < b->o->ndirs; i++)
                dval_cancel_fire(b->items[i].token);
            break;
        }
        usleep(20000);
        if (++ticks % 10) /* the view: redrawn 5 times a second */
            continue;
        pthread_mutex_lock(&b->out_lock);
        view_clear(b);
        view_draw(b);
        pthread_mutex_unlock(&b->out_lock);
    }
    return NULL;
}

static void summary_table(batch *b)
{
    if (b->o->json)
        return;
    size_t w = 6;
    for (int i = 0; i < b->o->ndirs; i++)
        if (strlen(b->items[i].name) > w)
            w = strlen(b->items[i].name);
    printf("%-*s  %-16s  %9s  %8s\n", (int)w, "FOLDER", "VERDICT",
           "EXIT CODE", "WALL MS");
    for (int i = 0; i < b->o->ndirs; i++) {
        const item *it = &b->items[i];
        char code[16] = "-";
        if (it->st && it->st->ran)
            snprintf(code, sizeof code, "%d", it->st->exit_code);
        printf("%-*s  %-16s  %9s  %8lld\n", (int)w, it->name,
               it->verdict[0] ? it->verdict : "-", code,
               (long long)it->wall_ms);
    }
}

static int make_pool(batch *b)
{
    dval_pool_options po;
    dval_pool_options_init(&po, sizeof po);
    po.profile = b->o->req->profile;
    po.labels = b->o->req->labels;
    po.max_queue = -1;
    if (b->o->req->isolation == DVAL_ISOLATION_SANDBOX) {
        po.max_sandboxes = b->o->jobs;      /* a fresh sandbox each */
        po.max_per_sandbox = 1;
    } else {
        po.max_sandboxes = 1;               /* the shared sandbox */
        po.max_per_sandbox = b->o->jobs;
        po.name = b->o->req->sandbox_name;
    }
    return dval_pool_new(&b->pool, b->client, &po);
}

/* "<name>.json"; "<name>-<index>.json" when an earlier folder of the
 * batch has the same name. */
static void results_name(batch *b, int i)
{
    item *it = &b->items[i];
    int seen = 0;
    for (int j = 0; j < i && !seen; j++)
        seen = !strcmp(b->items[j].name, it->name);
    if (seen)
        snprintf(it->results, sizeof it->results, "%s-%d.json", it->name, i);
    else
        snprintf(it->results, sizeof it->results, "%s.json", it->name);
}

static int setup_items(batch *b)
{
    b->items = calloc((size_t)b->o->ndirs, sizeof *b->items);
    if (!b->items)
        return -1;
    for (int i = 0; i < b->o->ndirs; i++) {
        item *it = &b->items[i];
        it->dir = b->o->dirs[i];
        const char *base = strrchr(it->dir, '/');
        while (base && !base[1] && base > it->dir) {   /* "dir/" */
            const char *p = base - 1;
            while (p > it->dir && *p != '/')
                p--;
            snprintf(it->name, sizeof it->name, "%.*s",
                     (int)(base - p - (*p == '/')), p + (*p == '/'));
            break;
        }
        if (!it->name[0])
            snprintf(it->name, sizeof it->name, "%s", base ? base + 1 : it->dir);
        results_name(b, i);
        it->st = calloc(1, sizeof *it->st);
        if (!it->st || dval_cancel_new(&it->token))
            return -1;
    }
    return 0;
}

static int run_all(batch *b)
{
    int n = b->o->jobs < b->o->ndirs ? b->o->jobs : b->o->ndirs;
    pthread_t th[256], relay;
    int started = 0;
    pthread_create(&relay, NULL, interrupt_relay, b);
    for (; started < n && started < 256; started++)
        if (pthread_create(&th[started], NULL, worker, b))
            break;
    if (!started)
        worker(b);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    atomic_store(&b->done, b->o->ndirs);
    pthread_join(relay, NULL);
    view_clear(b);
    summary_table(b);
    /* interrupted: as the single run, 128 + the signal */
    if (intr_signal())
        return 128 + intr_signal();
    return atomic_load(&b->failed) ? 1 : 0;
}

int batch_run(const batch_opts *o)
{
    batch b;
    memset(&b, 0, sizeof b);
    b.o = o;
    b.t0 = batch_now_ms();
    b.progress = isatty(2) && !o->co->verbose;
    pthread_mutex_init(&b.out_lock, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (dval_cancel_new(&b.master) || intr_start(b.master) ||
        setup_items(&b)) {
        cli_err("cannot start the batch: out of memory or descriptors");
        return CLI_EX_INFRA;
    }
    cli_problem pb;
    memset(&pb, 0, sizeof pb);
    int ex = cli_client_pb(&b.client, o->co, &pb, NULL);
    if (!ex && make_pool(&b)) {
        snprintf(pb.message, sizeof pb.message, "%s",
                 dval_client_errmsg(b.client));
        ex = CLI_EX_INFRA;
    }
    if (ex) {
        term_problem(pb.message, pb.hint);
        dval_client_free(b.client);
        return ex;
    }
    ex = run_all(&b);
    dval_pool_free(b.pool);
    dval_client_free(b.client);
    /* tokens, states and the master stay: the interrupt watcher may still
     * hold the master while the process exits */
    return ex;
}
