/* The batch form of `run` (cmd_batch.c) and its live view on a terminal
 * (batch_view.c). */
#ifndef DVAL_CLI_BATCH_H
#define DVAL_CLI_BATCH_H

#include <pthread.h>
#include <stdatomic.h>

#include "cli.h"

typedef struct item {
    const char *dir;
    char name[64];             /* the folder's base name, for prefixes */
    run_state *st;
    char line[2][4096];        /* a partial line per stream */
    size_t line_len[2];
    int exit_status;
    const char *status;
    char verdict[32];          /* the table's: the library's verdict, or
                                * the status where there is none */
    int64_t wall_ms;
    dval_cancel *token;
    char results[96];          /* its file in --results DIR */
    /* the live view's (batch_view.c), under the batch's out_lock */
    char phase[16];            /* the phase running now, "" when none */
    int64_t started_ms;        /* 0: not started */
} item;

typedef struct batch {
    const batch_opts *o;
    dval_client *client;
    dval_pool *pool;
    item *items;
    atomic_int next, done, failed, running;
    int64_t t0;
    pthread_mutex_t out_lock;  /* whole lines, progress and JSON lines */
    dval_cancel *master;       /* fired by SIGINT/SIGTERM */
    int progress;              /* stderr is a terminal: the live view */
    int drawn;                 /* lines of the view on the screen */
} batch;

int64_t batch_now_ms(void);
/* Under b->out_lock: erase the view, so that whole lines can be written;
 * draw it again below them. Nothing without a terminal (b->progress). */
void view_clear(batch *b);
void view_draw(batch *b);

#endif
