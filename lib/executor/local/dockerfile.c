/* A Dockerfile turned into a local snapshot's image and build steps (see
 * dockerfile.h). Lines are read as Docker reads them: a trailing backslash
 * continues the instruction, comment and blank lines are dropped even
 * inside a continued one, and keywords are case-insensitive. */
#include "dockerfile.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "internal.h"

#define BLANKS " \t\r\f\v"

typedef struct df_parse {
    dval_call *c;
    lx_dockerfile *out;
    int line;           /* physical line the current instruction starts on */
} df_parse;

/* Skipped: they describe the image and change neither its files nor how
 * commands run in it (the local sandbox has no network to expose). */
static const char *const skipped[] = { "LABEL", "MAINTAINER", "EXPOSE" };
/* Docker's other instructions: each changes the image or its runtime in a
 * way the local executor does not reproduce. */
static const char *const refused[] = {
    "ENV", "ARG", "COPY", "ADD", "WORKDIR", "USER", "CMD", "ENTRYPOINT",
    "VOLUME", "SHELL", "HEALTHCHECK", "STOPSIGNAL", "ONBUILD"
};

static int listed(const char *const *list, size_t n, const char *word)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(list[i], word))
            return 1;
    return 0;
}

static int unsupported(df_parse *p, const char *what)
{
    return dval__call_fail(p->c, DVAL_EUNSUPPORTED, "local executor: "
                           "dockerfile line %d: %s is not supported (only "
                           "FROM and RUN are run; LABEL, MAINTAINER and "
                           "EXPOSE are skipped): use the spec's image and "
                           "build_commands, or the daytona executor",
                           p->line, what);
}

static int invalid(df_parse *p, const char *what)
{
    return dval__call_fail(p->c, DVAL_EINVAL, "dockerfile line %d: %s",
                           p->line, what);
}

static int add_command(lx_dockerfile *d, char *cmd)
{
    char **v = dval__realloc(d->commands, (d->n + 2) * sizeof *v);
    if (!v) {
        dval__free(cmd);
        return DVAL_ENOMEM;
    }
    v[d->n++] = cmd;
    v[d->n] = NULL;
    d->commands = v;
    return DVAL_OK;
}

/* The exec form ["prog", "arg"...] as one sh command line; 0 when args is
 * not a JSON array of strings (Docker then runs it as the shell form). */
static int exec_form(const char *args, char **cmd)
{
    json_t *a = args[0] == '[' ? json_loads(args, 0, NULL) : NULL;
    size_t i, n = json_is_array(a) ? json_array_size(a) : 0;
    for (i = 0; i < n && json_is_string(json_array_get(a, i)); i++)
        ;
    dval__buf b = {0};
    int rc = n && i == n ? DVAL_OK : 1;
    for (i = 0; rc == DVAL_OK && i < n; i++) {
        if (i)
            rc = dval__buf_append(&b, " ", 1);
        if (rc == DVAL_OK)
            rc = dval__shell_quote(&b, json_string_value(json_array_get(a, i)));
    }
    json_decref(a);
    if (rc != DVAL_OK) {
        dval__buf_free(&b);
        return rc == 1 ? 0 : rc;
    }
    *cmd = b.data;
    return 1;
}

static int run(df_parse *p, const char *args)
{
    if (!*args)
        return invalid(p, "RUN needs a command");
    if (!strncmp(args, "--", 2))
        return unsupported(p, "a RUN flag (--mount, --network, --security)");
    if (!strncmp(args, "<<", 2))
        return unsupported(p, "a RUN here-document");
    char *cmd = NULL;
    int rc = exec_form(args, &cmd);
    if (rc < 0)
        return rc;
    if (rc == 0 && !(cmd = dval__strdup(args)))
        return DVAL_ENOMEM;
    return add_command(p->out, cmd);
}

/* FROM <image> [AS <name>]: one stage only, no flags. */
static int from(df_parse *p, const char *args)
{
    if (p->out->image)
        return unsupported(p, "a second FROM (a multi-stage build)");
    if (!strncmp(args, "--", 2))
        return unsupported(p, "a FROM flag (--platform)");
    size_t n = strcspn(args, BLANKS);
    const char *rest = args + n + strspn(args + n, BLANKS);
    size_t asn = strcspn(rest, BLANKS);
    const char *name = rest + asn + strspn(rest + asn, BLANKS);
    if (!n || (*rest && (asn != 2 || strncasecmp(rest, "AS", 2) || !*name ||
                         name[strcspn(name, BLANKS)])))
        return invalid(p, "FROM takes an image and an optional AS name");
    p->out->image = dval__strndup(args, n);
    return p->out->image ? DVAL_OK : DVAL_ENOMEM;
}

static int instruction(df_parse *p, char *text)
{
    size_t n = strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
    if (!n || (text[n] && !isspace((unsigned char)text[n])))
        return invalid(p, "expected an instruction");
    const char *args = text + n + strspn(text + n, BLANKS);
    text[n] = '\0';
    if (!strcasecmp(text, "FROM"))
        return from(p, args);
    if (!p->out->image && strcasecmp(text, "ARG"))
        return invalid(p, "a Dockerfile begins with FROM");
    if (!strcasecmp(text, "RUN"))
        return run(p, args);
    if (listed(skipped, sizeof skipped / sizeof *skipped, text))
        return DVAL_OK;
    if (listed(refused, sizeof refused / sizeof *refused, text)) {
        for (char *s = text; *s; s++)
            *s = (char)toupper((unsigned char)*s);
        return unsupported(p, text);
    }
    return invalid(p, "unknown instruction");
}

/* A parser directive (# name=value) before anything else: 1 when the
 * line is one, 0 when it is a plain comment. Only the default escape
 * character is supported; other directives (syntax, check) are skipped. */
static int directive(df_parse *p, const char *s)
{
    const char *e = s + 1 + strspn(s + 1, " \t");
    size_t n = strspn(e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    const char *v = e + n + strspn(e + n, " \t");
    if (!n || *v != '=')
        return 0;
    v += 1 + strspn(v + 1, " \t");
    if (n == 6 && !strncasecmp(e, "escape", 6) && *v != '\\')
        return unsupported(p, "an escape directive");
    return 1;
}

/* The line [s, s+len) without trailing blanks; 1 when it ends in '\'. */
static int continued(const char *s, size_t *len)
{
    while (*len && isspace((unsigned char)s[*len - 1]))
        (*len)--;
    if (*len && s[*len - 1] == '\\') {
        (*len)--;
        return 1;
    }
    return 0;
}

/* Feeds one physical line; an instruction completes on a line that does
 * not continue. Comment and blank lines are dropped, even inside a
 * continued instruction; a continuation line keeps its indentation. */
static int feed(df_parse *p, dval__buf *ins, const char *s, size_t len,
                int lineno, int *top)
{
    const char *t = s + strspn(s, BLANKS);
    size_t tl = len - (size_t)(t - s);
    if (tl && *t == '#') {
        int rc = *top ? directive(p, t) : 0;
        *top = rc == 1;
        return rc < 0 ? rc : DVAL_OK;
    }
    *top = 0;
    if (!tl)
        return DVAL_OK;
    if (!ins->len) {
        p->line = lineno;
        s = t;
        len = tl;
    }
    int more = continued(s, &len);
    int rc = dval__buf_append(ins, s, len);
    if (rc != DVAL_OK || more)
        return rc;
    rc = instruction(p, ins->data);
    ins->len = 0;
    return rc;
}

int lx_dockerfile_parse(dval_call *c, const char *text, lx_dockerfile *out)
{
    memset(out, 0, sizeof *out);
    df_parse p = { c, out, 0 };
    dval__buf ins = {0};
    int rc = DVAL_OK, lineno = 0, top = 1;
    for (const char *s = text ? text : ""; rc == DVAL_OK && *s;) {
        size_t len = strcspn(s, "\n");
        rc = feed(&p, &ins, s, len, ++lineno, &top);
        s += len + (s[len] == '\n');
    }
    if (rc == DVAL_OK && ins.len) /* a last line ending in a backslash */
        rc = instruction(&p, ins.data);
    dval__buf_free(&ins);
    if (rc == DVAL_OK && !out->image) {
        p.line = lineno;
        rc = invalid(&p, "no FROM");
    }
    if (rc != DVAL_OK)
        lx_dockerfile_free(out);
    return rc;
}

void lx_dockerfile_free(lx_dockerfile *d)
{
    for (size_t i = 0; i < d->n; i++)
        dval__free(d->commands[i]);
    dval__free(d->commands);
    dval__free(d->image);
    memset(d, 0, sizeof *d);
}
