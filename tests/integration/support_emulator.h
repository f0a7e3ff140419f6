/* Starts the Daytona emulator (tests/emulator/emulator.py) for a test and
 * talks to its control API. Also a one-shot raw HTTP server for replies
 * the emulator cannot produce (a lying Content-Length). */
#ifndef DVAL_SUPPORT_EMULATOR_H
#define DVAL_SUPPORT_EMULATOR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dval.h"

typedef struct emu {
    pid_t pid;
    int port;
    char base[64];        /* http://127.0.0.1:PORT */
    char api[96];         /* base + /api */
    char portfile[128];
} emu;

/* 0 on success; skips the test (th_skip) when python/aiohttp or the
 * emulator is missing. */
int emu_start(emu *e);
void emu_stop(emu *e);
/* POST JSON to base+path; returns the HTTP status (or -1). */
int emu_post(emu *e, const char *path, const char *json);
/* GET base+path; returns a malloc'd NUL-terminated body (free()). */
char *emu_get(emu *e, const char *path);

/* Serves `reply` verbatim to the first connection on 127.0.0.1 (then
 * closes it) from a thread; returns the port. Stops after one client or
 * 30 s. */
int raw_server(const char *reply, size_t len);

/* ---- additions for the public-API suites (test_api_*.c) */
/* Adds a fault rule: {"method":M,"path_regex":RE,"times":N, <rest>}.
 * rest is extra JSON members without braces ("\"action\":\"reset\"").
 * Returns the HTTP status of the control call (200). */
int emu_fault(emu *e, const char *method, const char *path_regex, int times,
              const char *rest);
/* DELETE /_emu/faults: drops every fault rule. Returns the HTTP status. */
int emu_clear_faults(emu *e);
/* POST /_emu/{kind}/{name}/state with json; kind "sandbox" or "snapshot". */
int emu_force(emu *e, const char *kind, const char *name, const char *json);
/* Recorded requests (since reset) with this method (NULL: any) whose path
 * matches the extended regex path_re (NULL: any). -1 on error. */
int emu_count(emu *e, const char *method, const char *path_re);
/* A public-API client on the emulator: executor "daytona" with its own
 * options (api_url e->api, the given key (NULL: "dtn_test-key"),
 * connect/request timeouts 5 s/60 s), retry_base_ms base_ms without
 * jitter, 5 attempts, log_fn at DEBUG when set. opts (may be NULL)
 * supplies other fields; its daytona, executor and retry_base_ms are
 * overridden. Fails the test on error. */
dval_client *emu_client(emu *e, const char *api_key, int64_t base_ms,
                        const dval_client_options *opts);
/* An emulator with fast transitions (transition_ms 10, builds 50 ms) and a
 * client on it, for validation tests; fails the test on error. */
dval_client *emu_fast(emu *e);
/* A fresh program folder /tmp/dval-prog-XXXXXX (into dir, >= 32 bytes)
 * holding run.sh with run_sh; emu_program_rm removes it. */
void emu_program(char *dir, const char *run_sh);
void emu_program_rm(const char *dir);

#endif
