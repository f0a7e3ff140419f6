/* Starts the Daytona emulator (tests/emulator/emulator.py) for a test and
 * talks to its control API. Also a one-shot raw HTTP server for replies
 * the emulator cannot produce (a lying Content-Length). */
#ifndef DVAL_SUPPORT_EMULATOR_H
#define DVAL_SUPPORT_EMULATOR_H

#include <stddef.h>
#include <sys/types.h>

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

#endif
