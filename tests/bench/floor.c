/* The floor of the validation loop: the requests one loop of the library
 * makes (tests/bench/dvbench.c `loop`), sent back to back by a minimal
 * libcurl client that waits for nothing and parses only what it must.
 *
 *   dvfloor BASE N      BASE = the emulator's http://127.0.0.1:PORT
 *
 * Per loop: POST session, POST exec (async), WebSocket upgrade of the
 * log follow (101 read, nothing more), GET the exit code, close frame,
 * GET the final log (raw), POST bulk-download of the 64 KiB result,
 * DELETE session: the same 7 requests + 1 connection as the library.
 * It does not wait for the command's output: that wait is the emulator's
 * log poll interval (20 ms, PROTOCOL 6.4), which run.sh adds to this
 * client's wall time to give the floor the library is held to. Prints one
 * JSON object; setup (snapshot, sandbox, seed upload) is outside the
 * measured loop. Not built by the Makefile: run.sh compiles it. */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "procmem.h"

#define KEY "dtn_bench"
#define SEED_PATH "/home/daytona/seed.json"
#define CMD "sh -c 'cp /home/daytona/seed.json /home/daytona/result.json " \
            "&& echo done'"

typedef struct body {
    char *p;
    size_t n;
} body;

static CURL *H;                      /* one keep-alive handle */
static struct curl_slist *HDR_JSON, *HDR_ANY, *HDR_RAWLOG;

static void die(const char *what)
{
    fprintf(stderr, "dvfloor: %s\n", what);
    exit(1);
}

static int64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static size_t grow(char *p, size_t s, size_t n, void *ud)
{
    body *b = ud;
    char *nb = realloc(b->p, b->n + s * n + 1);
    if (!nb)
        return 0;
    memcpy(nb + b->n, p, s * n);
    b->n += s * n;
    nb[b->n] = 0;
    b->p = nb;
    return s * n;
}

static struct curl_slist *headers(const char *version, const char *accept)
{
    char v[64], a[128];
    snprintf(v, sizeof v, "X-Daytona-SDK-Version: %s", version);
    snprintf(a, sizeof a, "Accept: %s", accept);
    struct curl_slist *l = curl_slist_append(NULL, "Authorization: Bearer "
                                             KEY);
    l = curl_slist_append(l, "X-Daytona-Source: sdk-c");
    l = curl_slist_append(l, v);
    l = curl_slist_append(l, "User-Agent: sdk-c/floor");
    l = curl_slist_append(l, a);
    l = curl_slist_append(l, "Content-Type: application/json");
    return curl_slist_append(l, "Expect:");
}

/* One request on the keep-alive handle; returns the HTTP status. */
static long req(const char *method, const char *url, const char *json,
                struct curl_slist *h, body *out)
{
    curl_easy_reset(H);
    curl_easy_setopt(H, CURLOPT_URL, url);
    curl_easy_setopt(H, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(H, CURLOPT_WRITEFUNCTION, grow);
    curl_easy_setopt(H, CURLOPT_WRITEDATA, out);
    if (json) {
        curl_easy_setopt(H, CURLOPT_POSTFIELDS, json);
    } else if (strcmp(method, "GET")) {
        curl_easy_setopt(H, CURLOPT_CUSTOMREQUEST, method);
    }
    long st = 0;
    if (curl_easy_perform(H) != CURLE_OK)
        die(url);
    curl_easy_getinfo(H, CURLINFO_RESPONSE_CODE, &st);
    return st;
}

/* The string value of "key" in a JSON text (enough for these replies). */
static void field(const char *json, const char *key, char *out, size_t cap)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = json ? strstr(json, pat) : NULL;
    out[0] = 0;
    if (!p)
        return;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    if (*p++ != '"')
        return;
    size_t n = 0;
    while (p[n] && p[n] != '"' && n + 1 < cap)
        n++;
    memcpy(out, p, n);
    out[n] = 0;
}

static void wait_state(const char *url, const char *want)
{
    for (int i = 0; i < 600; i++) {
        body b = {0};
        char st[64];
        req("GET", url, NULL, HDR_JSON, &b);
        field(b.p, "state", st, sizeof st);
        free(b.p);
        if (!strcmp(st, want))
            return;
        usleep(20000);
    }
    die("state not reached");
}

static char *seed_json(size_t target)
{
    char *s = malloc(target + 256);
    size_t n = (size_t)sprintf(s, "{\"tests\":[");
    for (int i = 0; n < target - 80; i++)
        n += (size_t)sprintf(s + n, "%s{\"name\":\"test_%06d\",\"ok\":true,"
                             "\"ms\":%d}", i ? "," : "", i, i % 97);
    n += (size_t)sprintf(s + n, "],\"pad\":\"");
    while (n < target - 2)
        s[n++] = 'x';
    s[n++] = '"';
    s[n++] = '}';
    s[n] = 0;
    return s;
}

/* snapshot, sandbox, seed upload; returns the toolbox base */
static void setup(const char *base, char *tb, size_t cap)
{
    char url[1024], id[128], proxy[256];
    body b = {0};
    snprintf(url, sizeof url, "%s/api/snapshots", base);
    req("POST", url, "{\"name\":\"bench-floor\",\"imageName\":"
        "\"debian:12-slim\"}", HDR_JSON, &b);
    free(b.p);
    snprintf(url, sizeof url, "%s/api/snapshots/bench-floor", base);
    wait_state(url, "active");
    b = (body){0};
    snprintf(url, sizeof url, "%s/api/sandbox", base);
    char create[128];
    snprintf(create, sizeof create, "{\"name\":\"bench-floor-%d\","
             "\"snapshot\":\"bench-floor\"}", (int)getpid());
    req("POST", url, create, HDR_JSON, &b);
    field(b.p, "id", id, sizeof id);
    free(b.p);
    snprintf(url, sizeof url, "%s/api/sandbox/%s", base, id);
    wait_state(url, "started");
    b = (body){0};
    req("GET", url, NULL, HDR_JSON, &b);
    field(b.p, "toolboxProxyUrl", proxy, sizeof proxy);
    free(b.p);
    size_t pl = strlen(proxy);
    if (pl && proxy[pl - 1] == '/')
        proxy[pl - 1] = 0;
    snprintf(tb, cap, "%s/%s", proxy, id);
    char *seed = seed_json(65536);
    curl_easy_reset(H);
    curl_mime *m = curl_mime_init(H);
    curl_mimepart *p = curl_mime_addpart(m);
    curl_mime_name(p, "files[0].path");
    curl_mime_data(p, SEED_PATH, CURL_ZERO_TERMINATED);
    p = curl_mime_addpart(m);
    curl_mime_name(p, "files[0].file");
    curl_mime_filename(p, "seed.json");
    curl_mime_data(p, seed, strlen(seed));
    snprintf(url, sizeof url, "%s/files/bulk-upload", tb);
    struct curl_slist *h = curl_slist_append(NULL, "Authorization: Bearer "
                                             KEY);
    curl_easy_setopt(H, CURLOPT_URL, url);
    curl_easy_setopt(H, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(H, CURLOPT_MIMEPOST, m);
    b = (body){0};
    curl_easy_setopt(H, CURLOPT_WRITEFUNCTION, grow);
    curl_easy_setopt(H, CURLOPT_WRITEDATA, &b);
    if (curl_easy_perform(H) != CURLE_OK)
        die("upload");
    free(b.p);
    curl_mime_free(m);
    curl_slist_free_all(h);
    free(seed);
}

/* WebSocket upgrade over a CONNECT_ONLY connection, up to the 101 head */
static CURL *ws_open(const char *url)
{
    CURL *e = curl_easy_init();
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_CONNECT_ONLY, 1L);
    if (curl_easy_perform(e) != CURLE_OK)
        die("ws connect");
    const char *path = strstr(url + 7, "/");
    const char *host = url + 7;
    char rq[2048];
    int n = snprintf(rq, sizeof rq, "GET %s HTTP/1.1\r\nHost: %.*s\r\n"
                     "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\nAuthorization: Bearer "
                     KEY "\r\nX-Daytona-Source: sdk-c\r\n"
                     "X-Daytona-SDK-Version: 0.190.0\r\n"
                     "User-Agent: sdk-c/floor\r\n\r\n", path,
                     (int)(path - host), host);
    size_t sent = 0;
    if (curl_easy_send(e, rq, (size_t)n, &sent) != CURLE_OK ||
        sent != (size_t)n)
        die("ws send");
    char buf[4096];
    size_t have = 0;
    while (!memmem(buf, have, "\r\n\r\n", 4)) {
        size_t got = 0;
        CURLcode r = curl_easy_recv(e, buf + have, sizeof buf - have, &got);
        if (r == CURLE_AGAIN) {
            curl_socket_t fd;
            curl_easy_getinfo(e, CURLINFO_ACTIVESOCKET, &fd);
            fd_set s;
            FD_ZERO(&s);
            FD_SET(fd, &s);
            select(fd + 1, &s, NULL, NULL, NULL);
            continue;
        }
        if (r != CURLE_OK || !got || (have += got) == sizeof buf)
            die("ws reply");
    }
    if (strncmp(buf, "HTTP/1.1 101", 12))
        die("ws not 101");
    return e;
}

static void ws_close(CURL *e)
{
    /* masked close 1000, key 0: the payload is sent as is */
    static const unsigned char f[] = {0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8};
    size_t sent;
    curl_easy_send(e, f, sizeof f, &sent);
    curl_easy_cleanup(e);
}

static void one_loop(const char *tb, int i)
{
    char url[1024], json[512], sid[64], cmd[128];
    body b = {0};
    snprintf(sid, sizeof sid, "floor-%d-%d", i, (int)getpid());
    snprintf(url, sizeof url, "%s/process/session", tb);
    snprintf(json, sizeof json, "{\"sessionId\":\"%s\"}", sid);
    if (req("POST", url, json, HDR_JSON, &b) != 201)
        die("session");
    snprintf(url, sizeof url, "%s/process/session/%s/exec", tb, sid);
    req("POST", url, "{\"command\":\"" CMD "\",\"runAsync\":true}",
        HDR_JSON, &b);
    field(b.p, "cmdId", cmd, sizeof cmd);
    snprintf(url, sizeof url, "%s/process/session/%s/command/%s/logs"
             "?follow=true", tb, sid, cmd);
    CURL *ws = ws_open(url);
    snprintf(url, sizeof url, "%s/process/session/%s/command/%s", tb, sid,
             cmd);
    req("GET", url, NULL, HDR_JSON, &b);
    ws_close(ws);
    snprintf(url, sizeof url, "%s/process/session/%s/command/%s/logs", tb,
             sid, cmd);
    req("GET", url, NULL, HDR_RAWLOG, &b);
    snprintf(url, sizeof url, "%s/files/bulk-download", tb);
    free(b.p);
    b = (body){0};
    /* the seed: the same 64 KiB, and there whether or not the command
     * (not waited for) has copied it yet */
    if (req("POST", url, "{\"paths\":[\"" SEED_PATH "\"]}",
            HDR_ANY, &b) != 200 || b.n < 65536)
        die("download");
    snprintf(url, sizeof url, "%s/process/session/%s", tb, sid);
    req("DELETE", url, NULL, HDR_ANY, &b);
    free(b.p);
}


static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* requests and connections the emulator counted so far (this call incl.) */
static void emu_stats(const char *base, long *reqs, long *conns)
{
    char url[300];
    body b = {0};
    snprintf(url, sizeof url, "%s/_emu/stats", base);
    req("GET", url, NULL, HDR_ANY, &b);
    const char *r = b.p ? strstr(b.p, "\"requests\": ") : NULL;
    const char *c = b.p ? strstr(b.p, "\"connections\": ") : NULL;
    *reqs = r ? atol(r + 12) : -1;
    *conns = c ? atol(c + 15) : -1;
    free(b.p);
}


int main(int argc, char **argv)
{
    if (argc < 3)
        die("usage: dvfloor BASE N");
    const char *base = argv[1];
    int n = atoi(argv[2]);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    H = curl_easy_init();
    HDR_JSON = headers("0.190.0", "application/json");
    HDR_ANY = headers("0.190.0", "*/*");
    HDR_RAWLOG = headers("0.166.0", "application/json,text/plain");
    char tb[512];
    setup(base, tb, sizeof tb);
    double *wall = calloc((size_t)n, sizeof *wall);
    long r0, c0, r1, c1;
    emu_stats(base, &r0, &c0);
    struct rusage u0, u1;
    long hwm0 = status_kb("VmHWM");
    dump_smaps(".before");
    getrusage(RUSAGE_SELF, &u0);
    for (int i = 0; i < n; i++) {
        int64_t t0 = mono_ns();
        one_loop(tb, i);
        wall[i] = (double)(mono_ns() - t0) / 1e6;
    }
    getrusage(RUSAGE_SELF, &u1);
    emu_stats(base, &r1, &c1);
    double cpu = (double)(u1.ru_utime.tv_sec - u0.ru_utime.tv_sec +
                          u1.ru_stime.tv_sec - u0.ru_stime.tv_sec) * 1e3 +
                 (double)(u1.ru_utime.tv_usec - u0.ru_utime.tv_usec +
                          u1.ru_stime.tv_usec - u0.ru_stime.tv_usec) / 1e3;
    qsort(wall, (size_t)n, sizeof *wall, cmp_d);
    printf("{\"client\":\"floor\",\"n\":%d,\"cpu_ms_per_loop\":%.4f,"
           "\"hwm_kb_before_loop\":%ld,\"hwm_kb\":%ld,"
           "\"requests\":%ld,\"conns\":%ld,\"loop_wall_ms\":{\"n\":%d,"
           "\"p50\":%.3f,\"p90\":%.3f,\"min\":%.3f,\"max\":%.3f}}\n", n,
           cpu / n, hwm0, status_kb("VmHWM"), r1 - r0 - 1, c1 - c0, n, wall[(n - 1) / 2],
           wall[(n * 9 - 1) / 10], wall[0], wall[n - 1]);
    fflush(stdout);
    dump_smaps("");
    free(wall);
    curl_easy_cleanup(H);
    curl_global_cleanup();
    return 0;
}
