/* `make bench` section 8 (pull.sh): one pull + unpack of a registry image
 * by the library, as a host would make it: a snapshot of the image on
 * the local executor, with an empty image cache (DVAL_LOCAL_CACHE_DIR,
 * set by pull.sh) and state directory, so every blob is downloaded,
 * verified, cached and extracted. Prints the wall milliseconds.
 * Usage: pullbench STATE IMAGE */
#define _POSIX_C_SOURCE 200809L
#include <dval.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int quiet(const char *data, size_t len, void *ud)
{
    (void)data, (void)len, (void)ud;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: pullbench STATE IMAGE\n");
        return 2;
    }
    dval_local_options l;
    dval_local_options_init(&l, sizeof l);
    l.state_dir = argv[1];
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    o.local = &l;
    dval_client *c;
    if (dval_client_new(&c, &o))
        return 1;
    dval_snapshot_spec s;
    dval_snapshot_spec_init(&s, sizeof s);
    s.name = "pullbench";
    s.image = argv[2];
    dval_snapshot *snap = NULL;
    double t0 = now_ms();
    int rc = dval_snapshot_ensure(&snap, c, &s, quiet, NULL);
    double ms = now_ms() - t0;
    if (rc) {
        fprintf(stderr, "pullbench: %s\n", dval_client_errmsg(c));
        dval_client_free(c);
        return 1;
    }
    printf("%.1f\n", ms);
    dval_snapshot_delete(snap);
    dval_snapshot_free(snap);
    dval_client_free(c);
    return 0;
}
