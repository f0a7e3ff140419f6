/* How a snapshot build step is shown in the build log ("$ <step>"). A
 * profile writes its scripts into the snapshot with steps such as
 * "mkdir -p D && echo <4.7 KB of base64> | base64 -d > D/F": shown as
 * they are, one such line buried the build's output and told a reader
 * nothing. A step of at most SHOW_MAX bytes is shown as it is; a longer
 * one part by part ("&&"): "echo WORD | base64 -d > PATH" (or >>) as
 * "write PATH (size)", consecutive ones into one directory as one "write
 * N files to DIR (size): names"; any other word over LONG_WORD bytes as
 * its size; the whole cut at SHOW_MAX bytes. */
#include "helper.h"

#include <stdio.h>
#include <string.h>

#define SHOW_MAX 500
#define LONG_WORD 64

typedef struct tok {
    const char *p;
    size_t n;
} tok;

typedef struct show {
    char *out;
    size_t cap, len;
    int nw;               /* pending writes into dir */
    size_t wbytes;
    tok dir;
    char names[160];
} show;

static void put(show *s, const char *p, size_t n)
{
    size_t room = s->cap - 1 - s->len;
    n = n < room ? n : room;
    memcpy(s->out + s->len, p, n);
    s->len += n;
    s->out[s->len] = '\0';
}

static void put_size(show *s, const char *fmt, size_t bytes)
{
    char b[48];
    if (bytes < 1024)
        snprintf(b, sizeof b, "%zu B", bytes);
    else
        snprintf(b, sizeof b, "%.1f KiB", (double)bytes / 1024);
    char t[96];
    snprintf(t, sizeof t, fmt, b);
    put(s, t, strlen(t));
}

/* The words of s[0..n) split at blanks, at most max; -1 when more. */
static int words(const char *s, size_t n, tok *w, int max)
{
    int k = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
            i++;
        if (i == n)
            break;
        if (k == max)
            return -1;
        w[k].p = s + i;
        while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\n')
            i++;
        w[k].n = (size_t)(s + i - w[k].p);
        k++;
    }
    return k;
}

static int is(const tok *t, const char *word)
{
    return t->n == strlen(word) && !memcmp(t->p, word, t->n);
}

/* The bytes base64 text t decodes to. */
static size_t b64_size(const tok *t)
{
    size_t n = t->n / 4 * 3;
    for (size_t i = 1; i <= 2 && i <= t->n && n; i++)
        n -= t->p[t->n - i] == '=';
    return n;
}

static void separator(show *s)
{
    if (s->len)
        put(s, " && ", 4);
}

/* The pending writes, as one entry. */
static void flush_writes(show *s)
{
    if (!s->nw)
        return;
    separator(s);
    if (s->nw == 1) {
        put(s, "write ", 6);
        put(s, s->dir.p, s->dir.n);
        put(s, s->names, strlen(s->names));
        put_size(s, " (%s)", s->wbytes);
    } else {
        char head[64];
        snprintf(head, sizeof head, "write %d files to ", s->nw);
        put(s, head, strlen(head));
        put(s, s->dir.p, s->dir.n ? s->dir.n - 1 : 0);
        put_size(s, " (%s): ", s->wbytes);
        put(s, s->names, strlen(s->names));
    }
    s->nw = 0;
    s->wbytes = 0;
    s->names[0] = '\0';
}

/* "echo WORD | base64 -d > PATH": the write of PATH, pending. */
static int as_write(show *s, const tok *w, int k)
{
    if (k != 7 || !is(&w[0], "echo") || !is(&w[2], "|") ||
        !is(&w[3], "base64") || !is(&w[4], "-d") ||
        (!is(&w[5], ">") && !is(&w[5], ">>")))
        return 0;
    const char *slash = memrchr(w[6].p, '/', w[6].n);
    tok dir = { w[6].p, slash ? (size_t)(slash + 1 - w[6].p) : 0 };
    if (s->nw && (dir.n != s->dir.n || memcmp(dir.p, s->dir.p, dir.n)))
        flush_writes(s);
    size_t used = strlen(s->names);
    snprintf(s->names + used, sizeof s->names - used, "%s%.*s",
             s->nw ? ", " : "", (int)(w[6].n - dir.n), w[6].p + dir.n);
    s->dir = dir;
    s->wbytes += b64_size(&w[1]);
    s->nw++;
    return 1;
}

/* Any other part: its words, a long one as its size. */
static void as_words(show *s, const char *p, size_t n)
{
    tok w[64];
    int k = words(p, n, w, 64);
    flush_writes(s);
    separator(s);
    if (k < 0) { /* too many words to look at: cut below */
        put(s, p, n);
        return;
    }
    for (int i = 0; i < k; i++) {
        if (i)
            put(s, " ", 1);
        if (w[i].n > LONG_WORD)
            put_size(s, "[%s of text]", w[i].n);
        else
            put(s, w[i].p, w[i].n);
    }
}

void build_step_show(const char *step, char *out, size_t cap)
{
    show s = { .out = out, .cap = cap };
    out[0] = '\0';
    if (strlen(step) <= SHOW_MAX) {
        put(&s, step, strlen(step));
        return;
    }
    for (const char *p = step; *p;) {
        const char *amp = strstr(p, "&&");
        size_t n = amp ? (size_t)(amp - p) : strlen(p);
        tok w[8];
        int k = words(p, n, w, 7);
        if (k && !as_write(&s, w, k)) /* k -1: more words */
            as_words(&s, p, n);
        p += n + (amp ? 2 : 0);
    }
    flush_writes(&s);
    if (s.len > SHOW_MAX && cap > SHOW_MAX)
        memcpy(out + SHOW_MAX - 3, "...", 4);
}
