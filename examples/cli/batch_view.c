/* The live view of a batch on a terminal (stderr): below the programs'
 * lines, one line per running validation (folder, phase, elapsed) and a
 * line of counts, redrawn in place:
 *
 *     a        run        1.2 s
 *     b        upload     0.3 s
 *   batch: 1 queued, 2 running, 3 passed, 0 failed; 4.5 s
 *
 * Every line is cut to the terminal's width (a wrapped one would throw
 * the count of lines to move up off), a folder's name is shown with its
 * control characters as "?", and no program text is ever part of the
 * view: a program's carriage returns or cursor movements (made inert on
 * a terminal: safeterm.c) cannot move it. Written only under the batch's
 * out_lock, erased before any whole line is written. Not on a pipe. */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"

#define VIEW_MAX_ROWS 20        /* running validations shown at most */

int64_t batch_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int columns(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) || ws.ws_col < 20)
        return 80;
    return ws.ws_col;
}

/* One line of the view, cut to width - 1, control characters as "?";
 * the first has no newline before it. */
static void put_line(batch *b, const char *text, int width)
{
    char line[512];
    size_t n = strlen(text);
    size_t max = (size_t)width - 1 < sizeof line - 1 ? (size_t)width - 1
                                                     : sizeof line - 1;
    n = n < max ? n : max;
    for (size_t i = 0; i < n; i++)
        line[i] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? '?'
                                                                  : text[i];
    line[n] = '\0';
    fprintf(stderr, "%s%s", b->drawn ? "\n" : "", line);
    b->drawn++;
}

void view_clear(batch *b)
{
    if (!b->progress || !b->drawn)
        return;
    if (b->drawn > 1)
        fprintf(stderr, "\r\033[%dA\033[J", b->drawn - 1);
    else
        fputs("\r\033[J", stderr);
    fflush(stderr);
    b->drawn = 0;
}

/* The running validations, oldest first as listed, at most rows. */
static void slot_lines(batch *b, int width, int64_t now)
{
    int shown = 0, more = 0;
    char text[512];
    for (int i = 0; i < b->o->ndirs; i++) {
        const item *it = &b->items[i];
        if (!it->phase[0])
            continue;
        if (shown == VIEW_MAX_ROWS) {
            more++;
            continue;
        }
        snprintf(text, sizeof text, "  %-16.64s %-9s %6.1f s", it->name,
                 it->phase, (double)(now - it->started_ms) / 1000.0);
        put_line(b, text, width);
        shown++;
    }
    if (more) {
        snprintf(text, sizeof text, "  ... and %d more", more);
        put_line(b, text, width);
    }
}

void view_draw(batch *b)
{
    if (!b->progress)
        return;
    int width = columns();
    int64_t now = batch_now_ms();
    slot_lines(b, width, now);
    int next = atomic_load(&b->next), n = b->o->ndirs;
    int done = atomic_load(&b->done), failed = atomic_load(&b->failed);
    char text[256];
    snprintf(text, sizeof text, "batch: %d queued, %d running, %d passed, "
             "%d failed; %.1f s", next < n ? n - next : 0,
             atomic_load(&b->running), done - failed, failed,
             (double)(now - b->t0) / 1000.0);
    put_line(b, text, width);
    fflush(stderr);
}
