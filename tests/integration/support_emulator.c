/* Emulator process control for the integration tests. */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dval.h"
#include "harness.h"
#include "support_emulator.h"

#define PY "/usr/bin/python3"
#define EMU "tests/emulator/emulator.py"

static int read_port(const char *file)
{
    FILE *f = fopen(file, "r");
    int port = 0;
    if (f) {
        if (fscanf(f, "%d", &port) != 1)
            port = 0;
        fclose(f);
    }
    return port;
}

int emu_start(emu *e)
{
    struct stat st;
    memset(e, 0, sizeof *e);
    if (stat(PY, &st) != 0 || stat(EMU, &st) != 0)
        th_skip("emulator or /usr/bin/python3 not available");
    snprintf(e->portfile, sizeof e->portfile, "/tmp/dval-emu-%d-%ld.port",
             (int)getpid(), (long)time(NULL));
    unlink(e->portfile);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execl(PY, PY, EMU, "--port-file", e->portfile, "--lifetime", "300",
              (char *)NULL);
        _exit(127);
    }
    e->pid = pid;
    for (int i = 0; i < 300 && !e->port; i++) {   /* up to 15 s */
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            e->pid = 0;
            th_skip("the emulator exited at start (aiohttp missing?)");
        }
        e->port = read_port(e->portfile);
        if (!e->port)
            usleep(50000);
    }
    if (!e->port) {
        emu_stop(e);
        th_fail(__FILE__, __LINE__, "emulator did not start");
    }
    snprintf(e->base, sizeof e->base, "http://127.0.0.1:%d", e->port);
    snprintf(e->api, sizeof e->api, "%s/api", e->base);
    return 0;
}

void emu_stop(emu *e)
{
    if (e->pid > 0) {
        kill(e->pid, SIGTERM);
        int st;
        for (int i = 0; i < 100; i++) {
            if (waitpid(e->pid, &st, WNOHANG) == e->pid) {
                e->pid = 0;
                break;
            }
            usleep(20000);
        }
        if (e->pid > 0) {
            kill(e->pid, SIGKILL);
            waitpid(e->pid, &st, 0);
        }
        e->pid = 0;
    }
    if (e->portfile[0])
        unlink(e->portfile);
}

typedef struct body {
    char *p;
    size_t n;
} body;

static size_t collect(char *p, size_t s, size_t n, void *ud)
{
    body *b = ud;
    char *q = realloc(b->p, b->n + s * n + 1);
    if (!q)
        return 0;
    memcpy(q + b->n, p, s * n);
    b->p = q;
    b->n += s * n;
    q[b->n] = '\0';
    return s * n;
}

static long request(emu *e, const char *path, const char *json, body *b)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", e->base, path);
    CURL *c = curl_easy_init();
    struct curl_slist *h = curl_slist_append(NULL,
                                             "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, b);
    if (json) {
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
    }
    long status = -1;
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return status;
}

int emu_post(emu *e, const char *path, const char *json)
{
    body b = {0};
    long s = request(e, path, json ? json : "{}", &b);
    free(b.p);
    return (int)s;
}

char *emu_get(emu *e, const char *path)
{
    body b = {0};
    if (request(e, path, NULL, &b) != 200) {
        free(b.p);
        return NULL;
    }
    return b.p ? b.p : calloc(1, 1);
}

/* ---- one-shot raw server */

typedef struct raw {
    int fd;
    char *reply;
    size_t len;
} raw;

static void *raw_main(void *arg)
{
    raw *r = arg;
    struct pollfd p = {.fd = r->fd, .events = POLLIN};
    if (poll(&p, 1, 30000) == 1) {
        int c = accept(r->fd, NULL, NULL);
        if (c >= 0) {
            char buf[4096];
            /* read the request head, then answer */
            ssize_t n = recv(c, buf, sizeof buf, 0);
            (void)n;
            size_t off = 0;
            while (off < r->len) {
                ssize_t w = send(c, r->reply + off, r->len - off,
                                 MSG_NOSIGNAL);
                if (w <= 0)
                    break;
                off += (size_t)w;
            }
            usleep(200000);
            close(c);
        }
    }
    close(r->fd);
    free(r->reply);
    free(r);
    return NULL;
}

int raw_server(const char *reply, size_t len)
{
    raw *r = calloc(1, sizeof *r);
    r->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(r->fd, (struct sockaddr *)&a, sizeof a) || listen(r->fd, 1) ||
        getsockname(r->fd, (struct sockaddr *)&a, &al))
        return -1;
    r->reply = malloc(len);
    memcpy(r->reply, reply, len);
    r->len = len;
    pthread_t t;
    pthread_create(&t, NULL, raw_main, r);
    pthread_detach(t);
    return ntohs(a.sin_port);
}

/* ---- additions for the public-API suites */

int emu_fault(emu *e, const char *method, const char *path_regex, int times,
              const char *rest)
{
    char j[4096];
    snprintf(j, sizeof j, "{\"method\":\"%s\",\"path_regex\":\"%s\","
             "\"times\":%d%s%s}", method, path_regex, times,
             rest && *rest ? "," : "", rest ? rest : "");
    return emu_post(e, "/_emu/faults", j);
}

int emu_force(emu *e, const char *kind, const char *name, const char *json)
{
    char path[512];
    snprintf(path, sizeof path, "/_emu/%s/%s/state", kind, name);
    return emu_post(e, path, json);
}

int emu_count(emu *e, const char *method, const char *path_re)
{
    char *text = emu_get(e, "/_emu/requests");
    if (!text)
        return -1;
    regex_t re;
    if (path_re && regcomp(&re, path_re, REG_EXTENDED | REG_NOSUB)) {
        free(text);
        return -1;
    }
    /* recorded bodies may hold NUL bytes (\u0000) */
    json_t *list = json_loads(text, JSON_ALLOW_NUL, NULL);
    free(text);
    int n = json_is_array(list) ? 0 : -1;
    size_t i;
    json_t *r;
    json_array_foreach(list, i, r) {
        const char *m = json_string_value(json_object_get(r, "method"));
        const char *p = json_string_value(json_object_get(r, "path"));
        if (method && (!m || strcmp(m, method)))
            continue;
        if (path_re && (!p || regexec(&re, p, 0, NULL, 0)))
            continue;
        n++;
    }
    json_decref(list);
    if (path_re)
        regfree(&re);
    return n;
}

dval_client *emu_client(emu *e, const char *api_key, int64_t base_ms,
                        const dval_client_options *opts)
{
    dval_client_options o;
    if (opts)
        o = *opts;
    else
        dval_client_options_init(&o, sizeof o);
    dval_daytona_options d;
    dval_daytona_options_init(&d, sizeof d);
    d.api_url = e->api;
    d.api_key = api_key ? api_key : "dtn_test-key";
    d.connect_timeout_ms = 5000;
    d.request_timeout_ms = 60000;
    o.daytona = &d;
    o.executor = "daytona";
    o.retry_base_ms = base_ms;
    if (!o.retry_attempts)
        o.retry_attempts = 5;
    if (o.log_fn && !o.log_level)
        o.log_level = DVAL_LOG_DEBUG;
    dval_client *c = NULL;
    int rc = dval_client_new(&c, &o);
    if (rc)
        th_fail(__FILE__, __LINE__, "dval_client_new: %s",
                dval_status_name(rc));
    return c;
}

int emu_clear_faults(emu *e)
{
    char url[256];
    snprintf(url, sizeof url, "%s/_emu/faults", e->base);
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "DELETE");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    body b = {0};
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    long status = -1;
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(c);
    free(b.p);
    return (int)status;
}

dval_client *emu_fast(emu *e)
{
    emu_start(e);
    CHECK_INT(emu_post(e, "/_emu/config", "{\"transition_ms\":10,"
                       "\"snapshot_build_ms\":50}"), 200);
    return emu_client(e, NULL, 20, NULL);
}

void emu_program(char *dir, const char *run_sh)
{
    strcpy(dir, "/tmp/dval-prog-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    char f[64];
    snprintf(f, sizeof f, "%s/run.sh", dir);
    FILE *fp = fopen(f, "w");
    CHECK(fp != NULL);
    fputs(run_sh, fp);
    fclose(fp);
}

void emu_program_rm(const char *dir)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}
