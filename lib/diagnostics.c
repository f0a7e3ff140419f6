/* Compiler diagnostics parsed from a build phase's output, so a pipeline
 * reads file, line, code and message without knowing the compiler:
 *   C# / MSBuild  FILE(LINE,COL): error CS0029: MESSAGE [PROJECT]
 *                 FILE : error NU1101: MESSAGE [PROJECT]
 *   javac         FILE:LINE: error: MESSAGE
 *   Maven         [ERROR] FILE:[LINE,COL] MESSAGE
 * Paths under the validation's directory are made relative to it; a
 * diagnostic printed twice (MSBuild repeats them in its summary) is kept
 * once. Lines that match no form are skipped. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "diagnostics.h"

#define MAX_DIAGNOSTICS 200

typedef struct diag {
    char file[512], severity[16], code[32], message[1024];
    long line, col;
} diag;

static int is_sev(const char *s, size_t n)
{
    return (n == 5 && !strncmp(s, "error", 5)) ||
           (n == 7 && !strncmp(s, "warning", 7));
}

/* "error CS0029: MESSAGE [PROJECT]" or "error: MESSAGE" at s. */
static int sev_code_msg(const char *s, diag *d)
{
    size_t n = strcspn(s, " :");
    if (!is_sev(s, n))
        return 0;
    dval__fmt(d->severity, sizeof d->severity, "%.*s", (int)n, s);
    s += n;
    if (*s == ' ') {
        size_t c = strcspn(s + 1, ": ");
        if (c == 0 || c >= sizeof d->code || s[1 + c] != ':')
            return 0;
        dval__fmt(d->code, sizeof d->code, "%.*s", (int)c, s + 1);
        s += 1 + c;
    }
    if (s[0] != ':' || s[1] != ' ')
        return 0;
    s += 2;
    size_t m = strlen(s);
    const char *br = m && s[m - 1] == ']' ? strrchr(s, '[') : NULL;
    if (br && br > s && br[-1] == ' ') /* MSBuild's " [project]" */
        m = (size_t)(br - 1 - s);
    dval__fmt(d->message, sizeof d->message, "%.*s", (int)m, s);
    return 1;
}

/* FILE(LINE,COL): ... */
static int csharp(const char *l, diag *d)
{
    const char *p = strstr(l, "): ");
    const char *o = p ? memrchr(l, '(', (size_t)(p - l)) : NULL;
    char *end;
    if (!o || o == l)
        return 0;
    d->line = strtol(o + 1, &end, 10);
    if (*end != ',')
        return 0;
    d->col = strtol(end + 1, &end, 10);
    if (end != p)
        return 0;
    dval__fmt(d->file, sizeof d->file, "%.*s", (int)(o - l), l);
    return sev_code_msg(p + 3, d);
}

/* FILE : error CODE: ... (MSBuild, NuGet: no position) */
static int project(const char *l, diag *d)
{
    const char *p = strstr(l, " : ");
    if (!p || p == l)
        return 0;
    dval__fmt(d->file, sizeof d->file, "%.*s", (int)(p - l), l);
    return sev_code_msg(p + 3, d) && d->code[0];
}

/* FILE:LINE: error: ... (javac) */
static int javac(const char *l, diag *d)
{
    const char *p = strstr(l, ".java:");
    char *end;
    if (!p)
        return 0;
    d->line = strtol(p + 6, &end, 10);
    if (end == p + 6 || end[0] != ':' || end[1] != ' ')
        return 0;
    dval__fmt(d->file, sizeof d->file, "%.*s", (int)(p + 5 - l), l);
    return sev_code_msg(end + 2, d);
}

/* [ERROR] FILE:[LINE,COL] MESSAGE (Maven's compiler plugin) */
static int maven(const char *l, diag *d)
{
    int warn = !strncmp(l, "[WARNING] ", 10);
    if (strncmp(l, "[ERROR] ", 8) && !warn)
        return 0;
    l += warn ? 10 : 8;
    const char *p = strstr(l, ":[");
    char *end;
    if (!p)
        return 0;
    d->line = strtol(p + 2, &end, 10);
    if (*end != ',')
        return 0;
    d->col = strtol(end + 1, &end, 10);
    if (end[0] != ']' || end[1] != ' ')
        return 0;
    dval__fmt(d->file, sizeof d->file, "%.*s", (int)(p - l), l);
    dval__fmt(d->severity, sizeof d->severity, warn ? "warning" : "error");
    dval__fmt(d->message, sizeof d->message, "%s", end + 2);
    return 1;
}

static void relative(diag *d, const char *workdir)
{
    size_t n = strlen(workdir);
    if (n && !strncmp(d->file, workdir, n) && d->file[n] == '/')
        memmove(d->file, d->file + n + 1, strlen(d->file + n + 1) + 1);
}

static json_t *to_json(const diag *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(d->file));
    json_object_set_new(o, "line", d->line ? json_integer(d->line)
                                           : json_null());
    json_object_set_new(o, "column", d->col ? json_integer(d->col)
                                            : json_null());
    json_object_set_new(o, "severity", json_string(d->severity));
    json_object_set_new(o, "code", d->code[0] ? json_string(d->code)
                                              : json_null());
    json_object_set_new(o, "message", json_string(d->message));
    return o;
}

static int seen(json_t *list, json_t *o)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
        if (json_equal(e, o))
            return 1;
    return 0;
}

static void parse_line(const char *l, const char *workdir, json_t *out)
{
    diag d;
    memset(&d, 0, sizeof d);
    while (isspace((unsigned char)*l))
        l++;
    if (!csharp(l, &d) && (memset(&d, 0, sizeof d), !project(l, &d)) &&
        (memset(&d, 0, sizeof d), !javac(l, &d)) &&
        (memset(&d, 0, sizeof d), !maven(l, &d)))
        return;
    relative(&d, workdir);
    if (!dval__utf8_valid(d.file, strlen(d.file)) ||
        !dval__utf8_valid(d.message, strlen(d.message)))
        return;
    json_t *o = to_json(&d);
    if (o && !seen(out, o) && json_array_size(out) < MAX_DIAGNOSTICS)
        json_array_append(out, o);
    json_decref(o);
}

void dval__diagnostics_parse(const char *text, size_t len,
                             const char *workdir, json_t *out)
{
    char line[2048];
    for (size_t i = 0; i < len;) {
        size_t n = 0;
        while (i + n < len && text[i + n] != '\n')
            n++;
        if (n < sizeof line) {
            memcpy(line, text + i, n);
            line[n] = 0;
            if (n && line[n - 1] == '\r')
                line[n - 1] = 0;
            parse_line(line, workdir, out);
        }
        i += n + 1;
    }
}
