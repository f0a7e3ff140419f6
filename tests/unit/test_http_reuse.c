/* The daytona executor's pooled easy handle is not reset between
 * requests (lib/executor/daytona/http.c sets only what changes): nothing
 * one request sets may reach the next on the same handle. A server on a
 * thread keeps every request it is sent, raw, on one kept-alive
 * connection; one thread makes the requests one after another, so each
 * takes the handle the previous one gave back. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "executor/daytona/dt.h"

#define MAXREQ 16

typedef struct srv {
    int lfd;
    int port;
    int accepted;               /* connections */
    int n;
    char *req[MAXREQ];          /* head and body, as received */
} srv;

/* One request (head, then Content-Length bytes of body); NULL at EOF. */
static char *read_request(int fd)
{
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap + 1);
    char *end = NULL;
    while (!end) {
        ssize_t r = recv(fd, b + len, cap - len, 0);
        if (r <= 0) {
            free(b);
            return NULL;
        }
        len += (size_t)r;
        b[len] = '\0';
        end = strstr(b, "\r\n\r\n");
    }
    const char *cl = strcasestr(b, "\r\nContent-Length:");
    size_t want = (size_t)(end + 4 - b) +
                  (cl && cl < end ? strtoul(cl + 17, NULL, 10) : 0);
    while (len < want && len < cap) {
        ssize_t r = recv(fd, b + len, cap - len, 0);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    b[len] = '\0';
    return b;
}

static void *srv_main(void *ud)
{
    srv *s = ud;
    for (;;) {
        int fd = accept(s->lfd, NULL, NULL);
        if (fd < 0)
            return NULL;
        s->accepted++;
        char *r;
        while ((r = read_request(fd)) && s->n < MAXREQ) {
            s->req[s->n++] = r;
            if (strstr(r, " /slow "))
                usleep(600 * 1000);
            static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Type: "
                "application/json\r\nContent-Length: 2\r\n\r\n{}";
            if (send(fd, ok, sizeof ok - 1, MSG_NOSIGNAL) < 0)
                break;
        }
        close(fd);
    }
}

static void srv_start(srv *s)
{
    memset(s, 0, sizeof *s);
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    CHECK(bind(s->lfd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(s->lfd, 4) == 0);
    CHECK(getsockname(s->lfd, (struct sockaddr *)&a, &al) == 0);
    s->port = ntohs(a.sin_port);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, srv_main, s) == 0);
    pthread_detach(t);
}

typedef struct fx {
    srv s;
    dt_exec ex;
    dval_call c;
} fx;

/* the executor's transport (the proxy variables are read here) */
static void fx_client(fx *f)
{
    dval_daytona_options o;
    dval_daytona_options_init(&o, sizeof o);
    memset(&f->ex, 0, sizeof f->ex);
    f->ex.token = "dtn_test";
    char err[256];
    CHECK_INT(dt_http_new(&f->ex.http, &o, err, sizeof err), DVAL_OK);
    memset(&f->c, 0, sizeof f->c);
    f->c.struct_size = sizeof f->c;
    f->c.cancel_fd = -1;
}

static void fx_start(fx *f)
{
    srv_start(&f->s);
    fx_client(f);
}

static int call(fx *f, dt_req *rq, const char *path)
{
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", f->s.port, path);
    rq->url = url;
    dt_resp rs;
    int rc = dt_http_do(&f->ex, &f->c, rq, &rs);
    dt_resp_free(&rs);
    return rc;
}

/* the body of request i (after the head) */
static const char *body_of(fx *f, int i)
{
    CHECK(i < f->s.n);
    return strstr(f->s.req[i], "\r\n\r\n") + 4;
}

static int has_header(fx *f, int i, const char *name)
{
    const char *r = f->s.req[i], *end = strstr(r, "\r\n\r\n");
    const char *h = strcasestr(r, name);
    return h && h < end;
}

typedef struct src {
    const char *p;
    size_t left;
} src;

static int read_src(char *buf, size_t cap, size_t *len, void *ud)
{
    src *s = ud;
    size_t n = s->left < cap ? s->left : cap;
    memcpy(buf, s->p, n);
    s->p += n;
    s->left -= n;
    *len = n;
    return 0;
}

TEST(post_then_get_sends_no_body)
{
    static fx f;   /* the server thread keeps using it */
    fx_start(&f);
    dt_req post = {.method = "POST", .json = "{\"a\":1}"};
    dt_req get = {.method = "GET"};
    dt_req del = {.method = "DELETE"};
    CHECK_INT(call(&f, &post, "/p"), DVAL_OK);
    CHECK_INT(call(&f, &get, "/g"), DVAL_OK);
    CHECK_INT(call(&f, &post, "/p2"), DVAL_OK);
    CHECK_INT(call(&f, &del, "/d"), DVAL_OK);
    CHECK_INT(call(&f, &get, "/g2"), DVAL_OK);
    CHECK_INT(f.s.n, 5);
    CHECK_INT(f.s.accepted, 1);          /* one handle, kept alive */
    CHECK(strncmp(f.s.req[0], "POST /p HTTP/1.1\r\n", 18) == 0);
    CHECK_STR(body_of(&f, 0), "{\"a\":1}");
    CHECK(strncmp(f.s.req[1], "GET /g HTTP/1.1\r\n", 17) == 0);
    CHECK_STR(body_of(&f, 1), "");
    CHECK(!has_header(&f, 1, "Content-Length:"));
    CHECK(!has_header(&f, 1, "Content-Type:"));
    CHECK(strncmp(f.s.req[3], "DELETE /d HTTP/1.1\r\n", 20) == 0);
    CHECK_STR(body_of(&f, 3), "");
    CHECK(!has_header(&f, 3, "Content-Length:"));
    CHECK(strncmp(f.s.req[4], "GET /g2 HTTP/1.1\r\n", 18) == 0);
    CHECK(!has_header(&f, 4, "Content-Length:"));
    dt_http_free(f.ex.http);
}

TEST(upload_leaves_nothing_behind)
{
    static fx f;   /* the server thread keeps using it */
    fx_start(&f);
    src s = {"file bytes", 10};
    dt_req up = {.method = "POST", .up_path = "/w/f.txt", .up_src = read_src,
                 .up_ud = &s, .up_size = 10};
    dt_req post = {.method = "POST", .json = "{\"b\":2}"};
    dt_req get = {.method = "GET"};
    CHECK_INT(call(&f, &up, "/u"), DVAL_OK);
    CHECK_INT(call(&f, &post, "/p"), DVAL_OK);
    s = (src){"file bytes", 10};
    CHECK_INT(call(&f, &up, "/u2"), DVAL_OK);
    CHECK_INT(call(&f, &get, "/g"), DVAL_OK);
    CHECK_INT(f.s.n, 4);
    CHECK_INT(f.s.accepted, 1);
    CHECK(has_header(&f, 0, "Content-Type: multipart/form-data"));
    CHECK(strstr(body_of(&f, 0), "file bytes") != NULL);
    /* the JSON POST: its own body and type, not the upload's */
    CHECK_STR(body_of(&f, 1), "{\"b\":2}");
    CHECK(has_header(&f, 1, "Content-Type: application/json"));
    CHECK(!has_header(&f, 1, "multipart"));
    /* an upload after a JSON POST streams the source, not the fields */
    CHECK(strstr(body_of(&f, 2), "file bytes") != NULL);
    CHECK(strstr(body_of(&f, 2), "{\"b\":2}") == NULL);
    CHECK(strncmp(f.s.req[3], "GET /g HTTP/1.1\r\n", 17) == 0);
    CHECK_STR(body_of(&f, 3), "");
    CHECK(!has_header(&f, 3, "Content-Type:"));
    dt_http_free(f.ex.http);
}

TEST(a_call_timeout_does_not_stay)
{
    static fx f;   /* the server thread keeps using it */
    fx_start(&f);
    dt_req get = {.method = "GET"};
    CHECK_INT(call(&f, &get, "/warm"), DVAL_OK);   /* connected */
    f.c.timeout_ms = 300;
    CHECK_INT(call(&f, &get, "/fast"), DVAL_OK);
    CHECK_INT(call(&f, &get, "/slow"), DVAL_ETIMEOUT);
    /* the next call has no timeout of its own: the 600 ms reply comes */
    f.c.timeout_ms = 0;
    CHECK_INT(call(&f, &get, "/slow"), DVAL_OK);
    dt_http_free(f.ex.http);
}

/* The proxy variables are read once, when the executor is made (curl
 * read them per request): http_proxy still sends requests to the proxy,
 * and no_proxy still exempts a host. */
TEST(http_proxy_from_the_environment)
{
    static fx f;   /* the server thread keeps using it */
    char proxy[64];
    srv_start(&f.s);
    snprintf(proxy, sizeof proxy, "http://127.0.0.1:%d", f.s.port);
    setenv("http_proxy", proxy, 1);
    unsetenv("no_proxy");
    unsetenv("NO_PROXY");
    fx_client(&f);
    dt_req get = {.method = "GET", .url = "http://dval-proxy.invalid/x"};
    dt_resp rs;
    CHECK_INT(dt_http_do(&f.ex, &f.c, &get, &rs), DVAL_OK);
    dt_resp_free(&rs);
    CHECK_INT(f.s.n, 1);
    CHECK(strncmp(f.s.req[0], "GET http://dval-proxy.invalid/x HTTP/1.1\r\n",
                  42) == 0);
    dt_http_free(f.ex.http);
}

TEST(no_proxy_from_the_environment)
{
    static fx f;   /* the server thread keeps using it */
    char proxy[64];
    srv_start(&f.s);
    snprintf(proxy, sizeof proxy, "http://127.0.0.1:%d", f.s.port);
    setenv("http_proxy", proxy, 1);
    unsetenv("no_proxy");
    setenv("NO_PROXY", "dval-proxy.invalid", 1);
    fx_client(&f);
    dt_req get = {.method = "GET", .url = "http://dval-proxy.invalid/x"};
    dt_resp rs;
    /* straight to the (unknown) host, not to the proxy */
    CHECK_INT(dt_http_do(&f.ex, &f.c, &get, &rs), DVAL_ENETWORK);
    dt_resp_free(&rs);
    CHECK_INT(f.s.n, 0);
    dt_http_free(f.ex.http);
}

/* scheme: "http://", or "" for a URL whose scheme curl guesses */
static int call_url(fx *f, const srv *s, const char *scheme, const char *path)
{
    char url[160];
    snprintf(url, sizeof url, "%s127.0.0.1:%d%s", scheme, s->port, path);
    dt_req get = {.method = "GET", .url = url};
    dt_resp rs;
    int rc = dt_http_do(&f->ex, &f->c, &get, &rs);
    dt_resp_free(&rs);
    return rc;
}

static int call_at(fx *f, const srv *s, const char *path)
{
    return call_url(f, s, "http://", path);
}

/* request i of s starts with this line (percent-encodings compared
 * without case: curl may send them in either) */
static int line_is(const srv *s, int i, const char *line)
{
    return i < s->n && strncasecmp(s->req[i], line, strlen(line)) == 0;
}

/* The URL is the one part of a request that is never left to the next:
 * its origin, path and query each come from its own URL on a reused
 * handle, and what curl normalised or refused it still does. */
TEST(each_request_goes_where_its_url_says)
{
    static fx f;   /* the server threads keep using them */
    static srv b;
    fx_start(&f);
    srv_start(&b);
    CHECK_INT(call_at(&f, &f.s, "/a/b?path=%2Fsandbox%2Fr"), DVAL_OK);
    CHECK_INT(call_at(&f, &f.s, "/c"), DVAL_OK);           /* no query */
    CHECK_INT(call_at(&f, &b, "/d?q=1"), DVAL_OK);         /* another host */
    CHECK_INT(call_at(&f, &f.s, "/e/./x/../f"), DVAL_OK);  /* dot segments */
    CHECK_INT(call_at(&f, &f.s, "/g#part"), DVAL_OK);      /* a fragment */
    CHECK_INT(call_at(&f, &f.s, "/h?"), DVAL_OK);
    CHECK_INT(call_at(&f, &f.s, "/bad path"), DVAL_EINVAL); /* curl refuses */
    CHECK_INT(call_at(&f, &f.s, "/i"), DVAL_OK);
    CHECK_INT(call_at(&f, &f.s, "/j/.k/..l"), DVAL_OK);  /* no dot segment */
    CHECK_INT(call_at(&f, &f.s, "/m/n/.."), DVAL_OK);
    /* no scheme: not a reference relative to the handle's last URL */
    CHECK_INT(call_url(&f, &f.s, "", "/o"), DVAL_OK);
    CHECK_INT(f.s.n, 9);
    CHECK_INT(b.n, 1);
    CHECK(line_is(&f.s, 0, "GET /a/b?path=%2Fsandbox%2Fr HTTP/1.1\r\n"));
    CHECK(line_is(&f.s, 1, "GET /c HTTP/1.1\r\n"));
    CHECK(line_is(&b, 0, "GET /d?q=1 HTTP/1.1\r\n"));
    char host[64];
    snprintf(host, sizeof host, "\r\nHost: 127.0.0.1:%d\r\n", b.port);
    CHECK(strstr(b.req[0], host) != NULL);
    CHECK(line_is(&f.s, 2, "GET /e/f HTTP/1.1\r\n"));
    CHECK(line_is(&f.s, 3, "GET /g HTTP/1.1\r\n"));
    CHECK(line_is(&f.s, 4, "GET /h? HTTP/1.1\r\n") ||
          line_is(&f.s, 4, "GET /h HTTP/1.1\r\n"));
    CHECK(line_is(&f.s, 5, "GET /i HTTP/1.1\r\n"));
    CHECK(line_is(&f.s, 6, "GET /j/.k/..l HTTP/1.1\r\n"));
    CHECK(line_is(&f.s, 7, "GET /m/ HTTP/1.1\r\n"));
    CHECK(line_is(&f.s, 8, "GET /o HTTP/1.1\r\n"));
    snprintf(host, sizeof host, "\r\nHost: 127.0.0.1:%d\r\n", f.s.port);
    CHECK(strstr(f.s.req[5], host) != NULL);
    dt_http_free(f.ex.http);
}
