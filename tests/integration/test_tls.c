/* TLS: verification is on by default (a self-signed server is refused
 * with a message), a CA bundle makes it trusted, and only the explicit
 * insecure option skips verification. The server is a TLS forwarder in
 * front of the emulator on 127.0.0.1. */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dval.h"
#include "harness.h"
#include "support_emulator.h"

typedef struct tls {
    emu e;
    pid_t proxy;
    char dir[64];
    char url[128];
} tls;

static void tls_start(tls *t)
{
    if (access("/usr/bin/openssl", X_OK) != 0)
        th_skip("openssl is not installed");
    emu_start(&t->e);
    snprintf(t->dir, sizeof t->dir, "/tmp/dval-tls-XXXXXX");
    CHECK(mkdtemp(t->dir));
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "
             "/CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout "
             "%s/key.pem -out %s/cert.pem >/dev/null 2>&1",
             t->dir, t->dir);
    CHECK_INT(system(cmd), 0);
    char pf[96], to[16], cert[96], key[96];
    snprintf(pf, sizeof pf, "%s/port", t->dir);
    snprintf(to, sizeof to, "%d", t->e.port);
    snprintf(cert, sizeof cert, "%s/cert.pem", t->dir);
    snprintf(key, sizeof key, "%s/key.pem", t->dir);
    t->proxy = fork();
    if (t->proxy == 0) {
        execl("/usr/bin/python3", "python3", "tests/integration/tls_proxy.py",
              "--cert", cert, "--key", key, "--to", to, "--port-file", pf,
              "--lifetime", "120", (char *)NULL);
        _exit(127);
    }
    int port = 0;
    for (int i = 0; i < 200 && !port; i++) {
        FILE *f = fopen(pf, "r");
        if (f) {
            if (fscanf(f, "%d", &port) != 1)
                port = 0;
            fclose(f);
        }
        if (!port)
            usleep(25000);
    }
    CHECK(port > 0);
    snprintf(t->url, sizeof t->url, "https://127.0.0.1:%d/api", port);
}

static void tls_stop(tls *t)
{
    kill(t->proxy, SIGTERM);
    waitpid(t->proxy, NULL, 0);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", t->dir);
    CHECK_INT(system(cmd), 0);
    emu_stop(&t->e);
}

static int probe(tls *t, const char *ca, int insecure, char *msg, size_t cap)
{
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "daytona";
    dval_daytona_options d;
    dval_daytona_options_init(&d, sizeof d);
    d.api_url = t->url;
    d.api_key = "dtn_tls-test";
    d.ca_bundle = ca;
    d.insecure_skip_tls_verify = insecure;
    o.daytona = &d;
    o.retry_attempts = 1;
    dval_client *c;
    CHECK_INT(dval_client_new(&c, &o), DVAL_OK);
    dval_snapshot *s = NULL;
    int rc = dval_snapshot_get(&s, c, "no-such-snapshot");
    snprintf(msg, cap, "%s", dval_client_errmsg(c));
    dval_snapshot_free(s);
    dval_client_free(c);
    return rc;
}

TEST(tls__verification_is_on_by_default)
{
    tls t;
    tls_start(&t);
    char msg[1024];
    int rc = probe(&t, NULL, 0, msg, sizeof msg);
    CHECK(rc != DVAL_OK && rc != DVAL_ENOTFOUND); /* never reached HTTP */
    CHECK(strstr(msg, "certificate") || strstr(msg, "SSL") ||
          strstr(msg, "TLS"));
    /* trusting the server's certificate explicitly works */
    char ca[128];
    snprintf(ca, sizeof ca, "%s/cert.pem", t.dir);
    CHECK_INT(probe(&t, ca, 0, msg, sizeof msg), DVAL_ENOTFOUND);
    /* and so does the explicit opt-out */
    CHECK_INT(probe(&t, NULL, 1, msg, sizeof msg), DVAL_ENOTFOUND);
    tls_stop(&t);
}
