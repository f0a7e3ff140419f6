/* The log WebSocket's connect-only curl handle is kept for the next
 * stream (lib/executor/daytona/http_ws_pool.c): nothing of one stream may
 * reach the next, every stream has its own connection, and a finished
 * stream's connection is closed when the stream ends, not left open in
 * the handle. A server thread takes the connections one after another:
 * "/ok/<word>" upgrades, sends <word> and a close frame; "/404" refuses
 * and keeps the connection open; "/early" closes without a reply. For
 * each it records the request and whether the client closed it. A
 * CONNECT proxy in front of it checks that a stream through a proxy
 * still names the origin in its tunnel and its upgrade request. */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "harness.h"
#include "executor/daytona/dt.h"
#include "executor/daytona/sha1.h"

#define MAXCONN 8

typedef struct srv {
    int lfd, port;
    _Atomic int n;               /* connections done with */
    char *req[MAXCONN];         /* upgrade request heads */
    int eof[MAXCONN];           /* the client closed it within 3 s */
} srv;

static char *read_head(int fd)
{
    size_t cap = 8192, len = 0;
    char *b = calloc(1, cap + 1);
    while (!strstr(b, "\r\n\r\n") && len < cap) {
        ssize_t r = recv(fd, b + len, cap - len, 0);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    return b;
}

/* The 101 reply for the request's key; then <word> and close 1000. */
static void upgrade(int fd, const char *req, const char *word)
{
    char key[64] = "", accept[29], out[512];
    const char *k = strcasestr(req, "\r\nSec-WebSocket-Key: ");
    if (k)
        sscanf(k + 21, "%63[^\r]", key);
    dt_ws_accept(key, accept);
    size_t wl = strcspn(word, " ");
    int n = snprintf(out, sizeof out, "HTTP/1.1 101 Switching Protocols\r\n"
                     "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Accept: %s\r\n\r\n", accept);
    /* the frames in a later read than the head: a stream that kept
     * the last one's state (its close) would not read them */
    send(fd, out, (size_t)n, MSG_NOSIGNAL);
    usleep(20 * 1000);
    n = 0;
    out[n++] = (char)0x81;      /* FIN, text */
    out[n++] = (char)wl;
    memcpy(out + n, word, wl);
    n += (int)wl;
    memcpy(out + n, "\x88\x02\x03\xe8", 4);   /* close 1000 */
    send(fd, out, (size_t)n + 4, MSG_NOSIGNAL);
}

/* 1 when the client closes fd within the receive timeout */
static int client_closes(int fd)
{
    char b[256];
    ssize_t r;
    while ((r = recv(fd, b, sizeof b, 0)) > 0)
        ;
    return r == 0;
}

static void *srv_main(void *ud)
{
    srv *s = ud;
    struct timeval tv = {.tv_sec = 3};
    while (s->n < MAXCONN) {
        int fd = accept(s->lfd, NULL, NULL);
        if (fd < 0)
            return NULL;
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        char *r = read_head(fd);
        int i = s->n;
        s->req[i] = r;
        if (strncmp(r, "GET /ok/", 8) == 0)
            upgrade(fd, r, r + 8);
        else if (strncmp(r, "GET /404 ", 9) == 0) {
            static const char no[] = "HTTP/1.1 404 Not Found\r\nContent-Type:"
                " text/plain\r\nContent-Length: 4\r\n\r\nnope";
            send(fd, no, sizeof no - 1, MSG_NOSIGNAL);
        }
        if (strncmp(r, "GET /early ", 11) != 0)
            s->eof[i] = client_closes(fd);
        close(fd);
        s->n = i + 1;
    }
    return NULL;
}

/* a listening socket on a free loopback port */
static int listen_lo(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(fd, 8) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)&a, &al) == 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void srv_start(srv *s)
{
    memset(s, 0, sizeof *s);
    s->lfd = listen_lo(&s->port);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, srv_main, s) == 0);
    pthread_detach(t);
}

/* One tunnel: the CONNECT line kept, then bytes both ways to the
 * server (whatever host the line names) until either side closes. */
typedef struct proxy {
    int lfd, port, target;
    char connect[128];
} proxy;

static void relay(int a, int b)
{
    char buf[4096];
    struct pollfd p[2] = {{.fd = a, .events = POLLIN},
                          {.fd = b, .events = POLLIN}};
    while (poll(p, 2, 5000) > 0) {
        int from = p[0].revents ? 0 : 1;
        ssize_t n = recv(p[from].fd, buf, sizeof buf, 0);
        if (n <= 0 || send(p[!from].fd, buf, (size_t)n, MSG_NOSIGNAL) != n)
            return;
    }
}

static void *proxy_main(void *ud)
{
    proxy *p = ud;
    int fd = accept(p->lfd, NULL, NULL);
    char *h = read_head(fd);
    snprintf(p->connect, sizeof p->connect, "%.*s",
             (int)strcspn(h, "\r\n"), h);
    free(h);
    int up = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)p->target),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(up, (struct sockaddr *)&a, sizeof a) == 0) {
        static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
        send(fd, ok, sizeof ok - 1, MSG_NOSIGNAL);
        relay(fd, up);
    }
    close(up);
    close(fd);
    return NULL;
}

typedef struct fx {
    srv s;
    dt_exec ex;
    dval_call c;
    char out[64];
} fx;

static int sink(const char *p, size_t n, void *ud)
{
    char *o = ud;
    strncat(o, p, n);
    return 0;
}

/* One stream to path: its output in f->out; the open's status. */
static int stream(fx *f, const char *path)
{
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", f->s.port, path);
    f->out[0] = '\0';
    dt_ws *ws = NULL;
    int rc = dt_ws_open(&f->ex, &f->c, url, &ws);
    for (int closed = 0; !rc && !closed;)
        rc = dt_ws_read(&f->ex, &f->c, ws, sink, f->out, &closed);
    dt_ws_close(ws);
    return rc;
}

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    while (d && readdir(d))
        n++;
    if (d)
        closedir(d);
    return n;
}

/* Open descriptors once the server is done with n connections (it
 * holds one while it waits for the client to close). */
static int served_fds(srv *s, int n)
{
    for (int i = 0; i < 50 && s->n < n; i++)
        usleep(100 * 1000);
    return open_fds();
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

TEST(each_stream_its_own_output_and_connection)
{
    static fx f;   /* the server thread keeps using it */
    srv_start(&f.s);
    dval_daytona_options o;
    dval_daytona_options_init(&o, sizeof o);
    f.ex.token = "dtn_test";
    char err[256];
    CHECK_INT(dt_http_new(&f.ex.http, &o, err, sizeof err), DVAL_OK);
    f.c.struct_size = sizeof f.c;
    f.c.cancel_fd = -1;
    f.c.timeout_ms = 5000;

    CHECK_INT(stream(&f, "/ok/one"), DVAL_OK);
    CHECK_STR(f.out, "one");
    CHECK(stream(&f, "/404") != DVAL_OK);        /* refused upgrade */
    CHECK_INT(stream(&f, "/early"), DVAL_ENETWORK);
    CHECK_INT(stream(&f, "/ok/two"), DVAL_OK);
    CHECK_STR(f.out, "two");
    int fds = served_fds(&f.s, 4);
    CHECK_INT(stream(&f, "/ok/three"), DVAL_OK);
    CHECK_STR(f.out, "three");
    CHECK_INT(served_fds(&f.s, 5), fds);         /* nothing left open */
    CHECK_INT(f.s.n, 5);                         /* a connection each */
    static const char *path[] = {"/ok/one", "/404", "/early", "/ok/two",
                                 "/ok/three"};
    for (int i = 0; i < 5; i++) {
        char line[64];
        snprintf(line, sizeof line, "GET %s HTTP/1.1\r\n", path[i]);
        CHECK(strncmp(f.s.req[i], line, strlen(line)) == 0);
        CHECK_INT(count(f.s.req[i], "Sec-WebSocket-Key:"), 1);
        CHECK_INT(count(f.s.req[i], "Authorization:"), 1);
        /* closed by the client when its stream ended, the refused one
         * (which the server would keep) too */
        if (i != 2)
            CHECK_INT(f.s.eof[i], 1);
    }
    /* a query is the stream's own: the next has none */
    CHECK_INT(stream(&f, "/ok/four?follow=true"), DVAL_OK);
    CHECK_INT(stream(&f, "/ok/five"), DVAL_OK);
    CHECK_STR(f.out, "five");
    static const char four[] = "GET /ok/four?follow=true HTTP/1.1\r\n",
                      five[] = "GET /ok/five HTTP/1.1\r\n";
    CHECK(strncmp(f.s.req[5], four, sizeof four - 1) == 0);
    CHECK(strncmp(f.s.req[6], five, sizeof five - 1) == 0);
    dt_http_free(f.ex.http);
}

/* Through http_proxy the tunnel and the upgrade request both name the
 * origin (a name only the proxy could reach), as curl's URL parser gave
 * them before the request took them from the URL itself. */
TEST(through_a_proxy_the_origin_is_named)
{
    static fx f;
    static proxy p;
    srv_start(&f.s);
    p.lfd = listen_lo(&p.port);
    p.target = f.s.port;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, proxy_main, &p) == 0);
    char env[64], url[128], host[64], line[160];
    snprintf(env, sizeof env, "http://127.0.0.1:%d", p.port);
    setenv("http_proxy", env, 1);
    unsetenv("no_proxy");
    unsetenv("NO_PROXY");
    dval_daytona_options o;
    dval_daytona_options_init(&o, sizeof o);
    f.ex.token = "dtn_test";
    char err[256];
    CHECK_INT(dt_http_new(&f.ex.http, &o, err, sizeof err), DVAL_OK);
    f.c.struct_size = sizeof f.c;
    f.c.cancel_fd = -1;
    f.c.timeout_ms = 5000;
    snprintf(host, sizeof host, "dval-ws.invalid:%d", f.s.port);
    snprintf(url, sizeof url, "http://%s/ok/px?follow=true", host);
    dt_ws *ws = NULL;
    int rc = dt_ws_open(&f.ex, &f.c, url, &ws);
    CHECK_INT(rc, DVAL_OK);
    for (int closed = 0; !rc && !closed;)
        rc = dt_ws_read(&f.ex, &f.c, ws, sink, f.out, &closed);
    dt_ws_close(ws);
    CHECK_STR(f.out, "px?follow=true");
    pthread_join(t, NULL);
    snprintf(line, sizeof line, "CONNECT %s HTTP/1.1", host);
    CHECK_STR(p.connect, line);
    snprintf(line, sizeof line, "GET /ok/px?follow=true HTTP/1.1\r\n"
             "Host: %s\r\n", host);
    CHECK(f.s.req[0] && strncmp(f.s.req[0], line, strlen(line)) == 0);
    dt_http_free(f.ex.http);
}
