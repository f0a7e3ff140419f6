/* The CPU floor of any libcurl client of the Daytona toolbox (issue 40):
 * the requests of one session-isolation validation, as the library sends
 * them (tests/bench/REQUESTS.md; same methods, paths, headers, body
 * sizes), made with plain libcurl and nothing else: one thread, one multi
 * handle, keep-alive, C validations in flight, bodies built with snprintf,
 * replies searched with strstr, no JSON library, no retries, no logging.
 * Its CPU per validation (getrusage, user + sys, over the window) is what
 * libcurl and the kernel's loopback TCP cost whatever the client does on
 * top. Per validation:
 *   POST {tb}/process/session          {"sessionId":…}
 *   POST {tb}/files/folder?path=W/results&mode=755
 *   POST {tb}/files/bulk-upload         multipart: path + run.sh
 *   POST {tb}/process/session/S/exec    {"command":…,"runAsync":true}
 *   GET  …/command/C/logs?follow=true   WebSocket (curl connects only)
 *   GET  …/command/C                    until exitCode is not null
 *   GET  …/command/C/logs
 *   GET  {tb}/files?path=W/results
 *   POST {tb}/files/bulk-download       {"paths":["W/results/r.json"]}
 *   DELETE {tb}/process/session/S
 * One untimed validation first, then the window. Prints one JSON line
 * like poolbench's (executor "floor"), with the voluntary and involuntary
 * context switches per validation. Not a test: tests/bench/pool.sh runs
 * it. Usage: curl_floor BASE_URL C N  (BASE_URL http://127.0.0.1:P)
 * FLOOR_THREADS=1: the bound of a blocking API instead (executor
 * "floor_threads"): C threads, each with its own easy handles, doing a
 * validation's requests strictly in sequence with curl_easy_perform (the
 * WebSocket: the same connect-only handling, waiting in poll on its own
 * socket), validations taken from a shared counter; so every sequential
 * round trip puts one thread to sleep and wakes it, as a caller thread
 * blocked in the library's dval_validate is. */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "emustats.h"

#define MAX_LANES 256
#define REPLY_MAX 8192
#define BOUNDARY "------------------------5c0ffee5fa1afe17"

enum { S_SESSION, S_FOLDER, S_UPLOAD, S_EXEC, S_WS, S_STATUS, S_LOGS,
       S_LIST, S_DOWNLOAD, S_DELETE, S_IDLE };

typedef struct lane {
    CURL *e;                /* HTTP, reused: its connection is kept */
    CURL *ws;               /* the log WebSocket, connect only */
    curl_socket_t wsfd;
    int step, val;
    int64_t t0, retry_at;   /* retry_at: the next status GET (0 none) */
    char id[40], sess[64], cmd[64];
    char url[512], body[1024];
    char reply[REPLY_MAX];
    size_t rlen, wslen;
    CURLcode res;           /* threads: the last curl_easy_perform's */
} lane;

static CURLM *multi;
static const char *base;
static char tb[300];        /* BASE/toolbox/SANDBOX */
static struct curl_slist *h_json, *h_get, *h_any, *h_mp, *h_dl;
static lane lanes[MAX_LANES];
static int total, next_val, done, failed;
static int threads;         /* FLOOR_THREADS=1: thread per validation */
static int64_t *walls;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double cpu_ms(const struct rusage *ru)
{
    return ru->ru_utime.tv_sec * 1e3 + ru->ru_utime.tv_usec / 1e3 +
           ru->ru_stime.tv_sec * 1e3 + ru->ru_stime.tv_usec / 1e3;
}

static struct curl_slist *headers(const char *accept, const char *ctype)
{
    struct curl_slist *l = NULL;
    char h[200];
    l = curl_slist_append(l, "Authorization: Bearer dtn_bench");
    l = curl_slist_append(l, "X-Daytona-Source: sdk-c");
    l = curl_slist_append(l, "X-Daytona-SDK-Version: 0.190.0");
    l = curl_slist_append(l, "User-Agent: sdk-c/0.1.0");
    snprintf(h, sizeof h, "Accept: %s", accept);
    l = curl_slist_append(l, h);
    if (ctype) {
        snprintf(h, sizeof h, "Content-Type: %s", ctype);
        l = curl_slist_append(l, h);
    }
    return l;
}

static size_t on_reply(char *p, size_t s, size_t n, void *ud)
{
    lane *l = ud;
    size_t k = s * n, room = REPLY_MAX - 1 - l->rlen;
    memcpy(l->reply + l->rlen, p, k < room ? k : room);
    l->rlen += k < room ? k : room;
    l->reply[l->rlen] = 0;
    return k;
}

/* method NULL: GET; "" POST with body; else a custom method */
static void request(lane *l, const char *method, struct curl_slist *h)
{
    CURL *e = l->e;
    l->rlen = 0;
    l->reply[0] = 0;
    curl_easy_setopt(e, CURLOPT_URL, l->url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    if (method && !*method) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(l->body));
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, l->body);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
    } else {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
    }
    if (threads)
        l->res = curl_easy_perform(e);
    else
        curl_multi_add_handle(multi, e);
}

static void upload_body(lane *l)
{
    snprintf(l->body, sizeof l->body,
             "--" BOUNDARY "\r\nContent-Disposition: form-data; "
             "name=\"files[0].path\"\r\n\r\n/sandbox/%s/run.sh\r\n"
             "--" BOUNDARY "\r\nContent-Disposition: form-data; "
             "name=\"files[0].file\"; filename=\"run.sh\"\r\n"
             "Content-Type: application/octet-stream\r\n\r\n"
             "echo '{\"ok\":true}' >\"$DVAL_RESULTS_DIR/r.json\" && echo ok\n"
             "\r\n--" BOUNDARY "--\r\n", l->id);
}

static void exec_body(lane *l)
{
    const char *w = l->id;
    snprintf(l->body, sizeof l->body,
             "{\"command\":\"sh -c 'cd '\\\\''/sandbox/%s'\\\\'' || exit; "
             "export DVAL_THREAD_ID='\\\\''%s'\\\\'' DVAL_WORKDIR="
             "'\\\\''/sandbox/%s'\\\\'' DVAL_RESULTS_DIR='\\\\''/sandbox/%s"
             "/results'\\\\''; cd \\\"$DVAL_WORKDIR\\\" && {\\nexec sh "
             "run.sh\\n}' </dev/null\",\"runAsync\":true}", w, w, w, w);
}

static int ws_open(lane *l);
static void finish(lane *l, int ok);

/* Sends the request of the lane's step. */
static void step(lane *l)
{
    const char *c = l->cmd, *s = l->sess;
    switch (l->step) {
    case S_SESSION:
        snprintf(l->url, sizeof l->url, "%s/process/session", tb);
        snprintf(l->body, sizeof l->body, "{\"sessionId\":\"%s\"}", s);
        return request(l, "", h_json);
    case S_FOLDER:
        snprintf(l->url, sizeof l->url, "%s/files/folder?path=/sandbox/%s"
                 "/results&mode=755", tb, l->id);
        l->body[0] = 0;
        return request(l, "", h_any);
    case S_UPLOAD:
        snprintf(l->url, sizeof l->url, "%s/files/bulk-upload", tb);
        upload_body(l);
        return request(l, "", h_mp);
    case S_EXEC:
        snprintf(l->url, sizeof l->url, "%s/process/session/%s/exec", tb, s);
        exec_body(l);
        return request(l, "", h_json);
    case S_WS:
        if (ws_open(l))
            finish(l, 0);
        return;
    case S_STATUS:
    case S_LOGS:
        snprintf(l->url, sizeof l->url, "%s/process/session/%s/command/%s%s",
                 tb, s, c, l->step == S_LOGS ? "/logs" : "");
        return request(l, NULL, h_get);
    case S_LIST:
        snprintf(l->url, sizeof l->url, "%s/files?path=/sandbox/%s/results",
                 tb, l->id);
        return request(l, NULL, h_get);
    case S_DOWNLOAD:
        snprintf(l->url, sizeof l->url, "%s/files/bulk-download", tb);
        snprintf(l->body, sizeof l->body, "{\"paths\":[\"/sandbox/%s/results"
                 "/r.json\"]}", l->id);
        return request(l, "", h_dl);
    case S_DELETE:
        snprintf(l->url, sizeof l->url, "%s/process/session/%s", tb, s);
        return request(l, "DELETE", h_any);
    }
}

/* Takes the next validation: -1 when none is left. */
static int take(lane *l)
{
    int v = __atomic_fetch_add(&next_val, 1, __ATOMIC_RELAXED);
    if (v >= total)
        return -1;
    l->val = v;
    l->t0 = now_ms();
    snprintf(l->id, sizeof l->id, "%08x-%04x-4000-8000-%012x",
             (unsigned)l->val, (unsigned)(l - lanes), (unsigned)getpid());
    snprintf(l->sess, sizeof l->sess, "pool-shell-0-%s", l->id);
    l->step = S_SESSION;
    return 0;
}

static void begin(lane *l)
{
    if (take(l)) {
        l->step = S_IDLE;
        return;
    }
    step(l);
}

static void record(lane *l, int ok)
{
    if (!ok && __atomic_fetch_add(&failed, 1, __ATOMIC_RELAXED) < 3)
        fprintf(stderr, "curl_floor: step %d of validation %d failed: %.200s\n",
                l->step, l->val, l->reply);
    walls[l->val] = now_ms() - l->t0;
}

static void finish(lane *l, int ok)
{
    record(l, ok);
    done++;
    begin(l);
}

/* ---- the WebSocket: curl connects, we send the upgrade and read */

static void ws_send(lane *l, const char *p, size_t n)
{
    while (n) {
        size_t sent = 0;
        CURLcode r = curl_easy_send(l->ws, p, n, &sent);
        if (r != CURLE_OK && r != CURLE_AGAIN)
            return;
        p += sent, n -= sent;
    }
}

static int ws_open(lane *l)
{
    char req[1024], url[300];
    const char *host = strstr(base, "://") + 3;
    l->ws = curl_easy_init();
    snprintf(url, sizeof url, "%s/", base);
    curl_easy_setopt(l->ws, CURLOPT_URL, url);
    curl_easy_setopt(l->ws, CURLOPT_CONNECT_ONLY, 1L);
    curl_easy_setopt(l->ws, CURLOPT_NOSIGNAL, 1L);
    if (curl_easy_perform(l->ws) != CURLE_OK)
        return -1;
    curl_easy_getinfo(l->ws, CURLINFO_ACTIVESOCKET, &l->wsfd);
    int n = snprintf(req, sizeof req, "GET %s/process/session/%s/command/%s"
                     "/logs?follow=true HTTP/1.1\r\nHost: %s\r\nUpgrade: "
                     "websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                     "X4tVxplrklbeGOHqj98GbA==\r\nSec-WebSocket-Version: 13"
                     "\r\nAuthorization: Bearer dtn_bench\r\nX-Daytona-Source:"
                     " sdk-c\r\nX-Daytona-SDK-Version: 0.190.0\r\nUser-Agent: "
                     "sdk-c/0.1.0\r\n\r\n", strstr(tb, "/toolbox/"), l->sess,
                     l->cmd, host);
    ws_send(l, req, (size_t)n);
    l->wslen = 0;
    return 0;
}

/* Readable: the 101 reply, then the first frame (the program's "ok");
 * 1 both came, 0 more to wait for, -1 failed */
static int ws_read(lane *l)
{
    size_t got = 0;
    CURLcode r = curl_easy_recv(l->ws, l->reply + l->wslen,
                                REPLY_MAX - 1 - l->wslen, &got);
    if (r == CURLE_AGAIN)
        return 0;
    l->wslen += got;
    l->reply[l->wslen] = 0;
    if (r != CURLE_OK || !got)
        return -1;
    char *end = strstr(l->reply, "\r\n\r\n");
    if (!end)
        return 0;
    if (!strstr(l->reply, " 101 "))
        return -1;
    return l->reply + l->wslen >= end + 4 + 2;
}

static void ws_readable(lane *l)
{
    int r = ws_read(l);
    if (r < 0)
        return finish(l, 0);
    if (r > 0) {
        l->step = S_STATUS;
        step(l);
    }
}

static void ws_close(lane *l)
{
    /* masked close frame 1000, as the library sends */
    static const char close_frame[] = {(char)0x88, (char)0x82, 0, 0, 0, 0,
                                       0x03, (char)0xe8};
    ws_send(l, close_frame, sizeof close_frame);
    curl_easy_cleanup(l->ws);
    l->ws = NULL;
}

/* ---- a finished HTTP request: check, take what is needed, go on */

static int grab(const char *reply, const char *key, char *out, size_t cap)
{
    const char *p = strstr(reply, key);
    if (!p)
        return -1;
    p += strlen(key);
    p += strspn(p, ": ");
    if (*p++ != '"')
        return -1;
    size_t n = strcspn(p, "\"");
    if (n >= cap)
        return -1;
    memcpy(out, p, n);
    out[n] = 0;
    return 0;
}

static int exit_null(const char *reply)
{
    const char *p = strstr(reply, "\"exitCode\"");
    return !p || !strncmp(p + 11 + strspn(p + 11, ": "), "null", 4);
}

enum { R_NEXT, R_RETRY, R_DONE, R_FAILED };

/* What a finished request's reply means for its validation. */
static int checked(lane *l, CURLcode r)
{
    long code = 0;
    curl_easy_getinfo(l->e, CURLINFO_RESPONSE_CODE, &code);
    if (r != CURLE_OK || code < 200 || code > 299)
        return R_FAILED;
    if (l->step == S_EXEC && grab(l->reply, "\"cmdId\"", l->cmd,
                                  sizeof l->cmd))
        return R_FAILED;
    if (l->step == S_STATUS && exit_null(l->reply))
        return R_RETRY;
    if (l->step == S_STATUS)
        ws_close(l);
    if (l->step == S_DOWNLOAD && !strstr(l->reply, "\"ok\""))
        return R_FAILED;
    return l->step == S_DELETE ? R_DONE : R_NEXT;
}

static void http_done(lane *l, CURLcode r)
{
    curl_multi_remove_handle(multi, l->e);
    switch (checked(l, r)) {
    case R_FAILED:
        return finish(l, 0);
    case R_RETRY:
        l->retry_at = now_ms() + 2;
        return;
    case R_DONE:
        return finish(l, 1);
    }
    l->step++;
    step(l);
}

/* ---- the loop */

static int64_t timers(int conc)
{
    int64_t now = now_ms(), wait = 100;
    for (int i = 0; i < conc; i++) {
        lane *l = &lanes[i];
        if (!l->retry_at)
            continue;
        if (l->retry_at <= now) {
            l->retry_at = 0;
            step(l);
        } else if (l->retry_at - now < wait) {
            wait = l->retry_at - now;
        }
    }
    return wait;
}

static void run(int conc)
{
    struct curl_waitfd fds[MAX_LANES];
    lane *owner[MAX_LANES];
    for (int i = 0; i < conc; i++)
        begin(&lanes[i]);
    while (done < total) {
        int64_t wait = timers(conc);
        unsigned nfd = 0;
        for (int i = 0; i < conc; i++)
            if (lanes[i].step == S_WS && lanes[i].ws) {
                fds[nfd] = (struct curl_waitfd){lanes[i].wsfd, CURL_WAIT_POLLIN, 0};
                owner[nfd++] = &lanes[i];
            }
        int running;
        curl_multi_poll(multi, fds, nfd, (int)wait, NULL);
        curl_multi_perform(multi, &running);
        CURLMsg *m;
        int left;
        while ((m = curl_multi_info_read(multi, &left)))
            if (m->msg == CURLMSG_DONE) {
                lane *l;
                curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &l);
                http_done(l, m->data.result);
            }
        for (unsigned i = 0; i < nfd; i++)
            if (fds[i].revents && owner[i]->step == S_WS)
                ws_readable(owner[i]);
    }
}

/* ---- thread per validation: what a blocking API's callers do */

/* The log WebSocket, waited for in poll on its own socket. */
static int ws_wait(lane *l)
{
    if (ws_open(l))
        return -1;
    struct pollfd p = {l->wsfd, POLLIN, 0};
    int r;
    do {
        if (poll(&p, 1, 10000) <= 0)
            return -1;
    } while (!(r = ws_read(l)));
    return r < 0 ? -1 : 0;
}

/* One validation's requests in sequence; 1 it passed. */
static int validate_blocking(lane *l)
{
    static const struct timespec retry = {0, 2000000};
    while (l->step <= S_DELETE) {
        if (l->step == S_WS) {
            if (ws_wait(l))
                return 0;
            l->step++;
            continue;
        }
        step(l);
        switch (checked(l, l->res)) {
        case R_FAILED:
            return 0;
        case R_RETRY:
            nanosleep(&retry, NULL);
            continue;
        case R_DONE:
            return 1;
        }
        l->step++;
    }
    return 0;
}

static void *worker(void *arg)
{
    lane *l = arg;
    while (!take(l)) {
        record(l, validate_blocking(l));
        if (l->ws) {
            curl_easy_cleanup(l->ws);
            l->ws = NULL;
        }
    }
    return NULL;
}

static void run_threads(int conc)
{
    pthread_t t[MAX_LANES];
    for (int i = 0; i < conc; i++)
        if (pthread_create(&t[i], NULL, worker, &lanes[i]))
            abort();
    for (int i = 0; i < conc; i++)
        pthread_join(t[i], NULL);
}

/* ---- setup: the shared sandbox (untimed) */

static int make_sandbox(void)
{
    lane l = {0};
    l.e = curl_easy_init();
    curl_easy_setopt(l.e, CURLOPT_WRITEFUNCTION, on_reply);
    curl_easy_setopt(l.e, CURLOPT_WRITEDATA, &l);
    snprintf(l.url, sizeof l.url, "%s/api/sandbox", base);
    curl_easy_setopt(l.e, CURLOPT_URL, l.url);
    curl_easy_setopt(l.e, CURLOPT_HTTPHEADER, h_json);
    snprintf(l.body, sizeof l.body, "{\"name\":\"curl-floor-%d\"}",
             (int)getpid());
    curl_easy_setopt(l.e, CURLOPT_POSTFIELDS, l.body);
    char id[80];
    int rc = curl_easy_perform(l.e) != CURLE_OK ||
             grab(l.reply, "\"id\"", id, sizeof id) ? -1 : 0;
    curl_easy_cleanup(l.e);
    if (rc)
        fprintf(stderr, "curl_floor: no sandbox: %.300s\n", l.reply);
    else
        snprintf(tb, sizeof tb, "%s/toolbox/%s", base, id);
    return rc;
}

static void init(int conc)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)conc);
    h_json = headers("application/json", "application/json");
    h_get = headers("application/json", NULL);
    h_any = headers("*/*", NULL);
    h_mp = headers("*/*", "multipart/form-data; boundary=" BOUNDARY);
    h_dl = headers("multipart/form-data", "application/json");
    for (int i = 0; i < conc; i++) {
        CURL *e = lanes[i].e = curl_easy_init();
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_reply);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, &lanes[i]);
        curl_easy_setopt(e, CURLOPT_PRIVATE, &lanes[i]);
    }
}

static int cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void report(int conc, int n, int64_t el, const struct rusage *r0,
                   const struct rusage *r1, emu_stats s0, emu_stats s1)
{
    qsort(walls, (size_t)n, sizeof *walls, cmp);
    printf("{\"executor\":\"%s\",\"isolation\":\"session\",\"concurrency\""
           ":%d,\"warm\":false,\"validations\":%d,\"failed\":%d,\"per_s\":%.2f,"
           "\"p50_ms\":%lld,\"p99_ms\":%lld,\"cpu_ms_per_validation\":%.3f,"
           "\"vol_cs_per_validation\":%.2f,\"invol_cs_per_validation\":%.2f",
           threads ? "floor_threads" : "floor", conc, n, failed,
           n * 1000.0 / (double)(el ? el : 1), (long long)walls[n / 2],
           (long long)walls[n * 99 / 100], (cpu_ms(r1) - cpu_ms(r0)) / n,
           (double)(r1->ru_nvcsw - r0->ru_nvcsw) / n,
           (double)(r1->ru_nivcsw - r0->ru_nivcsw) / n);
    if (s0.reqs >= 0 && s1.reqs >= 0)
        printf(",\"requests\":%ld,\"conns\":%ld,\"websockets\":%ld",
               s1.reqs - s0.reqs, s1.conns - s0.conns, s1.ws - s0.ws);
    printf("}\n");
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    base = argv[1];
    int conc = atoi(argv[2]), n = atoi(argv[3]);
    if (conc < 1 || conc > MAX_LANES || n < 1 || !strstr(base, "://"))
        return 2;
    const char *t = getenv("FLOOR_THREADS");
    threads = t && !strcmp(t, "1");
    void (*drive)(int) = threads ? run_threads : run;
    walls = calloc((size_t)n + 1, sizeof *walls);
    init(conc);
    if (make_sandbox())
        return 1;
    total = 1;          /* warm-up: one validation alone, untimed */
    drive(1);
    if (failed)
        return 1;
    total = n, next_val = 0, done = 0;
    emu_stats s0 = emu_stats_get(base);
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    int64_t t0 = now_ms();
    drive(conc);
    int64_t el = now_ms() - t0;
    getrusage(RUSAGE_SELF, &r1);
    emu_stats s1 = emu_stats_get(base);
    report(conc, n, el, &r0, &r1, s0, s1);
    return failed ? 1 : 0;
}
