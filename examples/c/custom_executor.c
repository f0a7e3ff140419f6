/* A host-supplied executor through the vtable: an in-memory snapshot store
 * that the core drives through dval_snapshot_ensure(). CC0. */
#include <stdio.h>
#include <string.h>

#include "dval.h"

struct store {
    char name[DVAL_ID_MAX];
    int exists, destroyed;
};

static int snap_get(void *ud, dval_call *c, const char *name, dval_snapshot_info *out)
{
    struct store *st = ud;
    if (!st->exists || strcmp(name, st->name) != 0) {
        snprintf(c->errmsg, sizeof c->errmsg, "snapshot %s not found", name);
        return DVAL_ENOTFOUND;
    }
    memcpy(out->id, "mem-", 4);
    snprintf(out->id + 4, sizeof out->id - 4, "%.*s", (int)(sizeof out->id - 5), st->name);
    snprintf(out->name, sizeof out->name, "%s", st->name);
    out->state = DVAL_SNAPSHOT_ACTIVE;
    return DVAL_OK;
}

static int snap_create(void *ud, dval_call *c, const dval_snapshot_spec *spec,
                       dval_snapshot_info *out, dval_chunk_fn log, void *log_ud)
{
    struct store *st = ud;
    static const char msg[] = "building in memory\n";
    if (log && log(DVAL_STDOUT, msg, sizeof msg - 1, log_ud) != 0)
        return DVAL_EABORTED;
    snprintf(st->name, sizeof st->name, "%s", spec->name);
    st->exists = 1;
    return snap_get(ud, c, spec->name, out);
}

static void destroy(void *ud)
{
    ((struct store *)ud)->destroyed++;
}

static int on_log(const char *data, size_t len, void *userdata)
{
    (void)userdata;
    fwrite(data, 1, len, stdout);
    return 0;
}

int main(void)
{
    struct store st = { "", 0, 0 };
    struct dval_executor ex;
    dval_executor_init(&ex, sizeof ex);
    ex.name = "memory";
    ex.userdata = &st;
    ex.destroy = destroy;
    ex.snapshot_get = snap_get;
    ex.snapshot_create = snap_create;

    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.custom_executor = &ex;
    dval_client *c = NULL;
    int rc = dval_client_new(&c, &o);
    if (rc != DVAL_OK) {
        fprintf(stderr, "client: %s\n", dval_strerror(rc));
        return 1;
    }
    printf("executor: %s\n", dval_client_executor_name(c));
    dval_snapshot_spec spec;
    dval_snapshot_spec_init(&spec, sizeof spec);
    spec.name = "example";
    spec.image = "debian:12-slim";
    dval_snapshot *snap = NULL;
    rc = dval_snapshot_ensure(&snap, c, &spec, on_log, NULL);
    if (rc == DVAL_OK)
        printf("snapshot %s is %s\n", dval_snapshot_id(snap),
               dval_snapshot_state_name(dval_snapshot_state(snap)));
    else
        fprintf(stderr, "ensure: %s: %s\n", dval_status_name(rc), dval_client_errmsg(c));
    dval_snapshot_free(snap);
    dval_client_free(c);
    printf("destroy called %d time(s)\n", st.destroyed);
    return rc == DVAL_OK && st.destroyed == 1 ? 0 : 1;
}
