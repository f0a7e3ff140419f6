/* See command_text.h. */
#include <string.h>

#include "command_text.h"

int dval__command_in_dir(dval__buf *out, const char *cwd,
                         const char *command)
{
    int rc = DVAL_OK;
    if (cwd) {
        rc = dval__buf_append(out, "cd ", 3);
        rc = rc ? rc : dval__shell_quote(out, cwd);
        /* not "&&": "cd D && a; b" would still run b, elsewhere. Every
         * command runs in a child shell of its own, so exit ends only it,
         * with cd's status. */
        rc = rc ? rc : dval__buf_append(out, " || exit; ", 10);
    }
    return rc ? rc : dval__buf_append(out, command, strlen(command));
}

int dval__owner_valid(const char *owner)
{
    return owner[0] && strcmp(owner, ".") && strcmp(owner, "..") &&
           !strchr(owner, '/') && !strchr(owner, '\n') && strlen(owner) < 256;
}

int dval__command_check(dval_call *c, const dval_command *cmd)
{
    if (!cmd || cmd->struct_size < sizeof *cmd)
        return dval__call_fail(c, DVAL_EINVAL, "no command description "
                               "(or struct_size %zu too small)",
                               cmd ? cmd->struct_size : 0);
    if (!cmd->text == !cmd->argv)
        return dval__call_fail(c, DVAL_EINVAL, "a command is either text or "
                               "argv, exactly one of them: %s",
                               cmd->text ? "both are set" : "neither is set");
    if (cmd->argv && (!cmd->argv[0] || !cmd->argv[0][0]))
        return dval__call_fail(c, DVAL_EINVAL, "no program to run");
    size_t n = 0;
    while (cmd->argv && cmd->argv[n])
        n++;
    if (n > DVAL__WORDS_MAX)
        return dval__call_fail(c, DVAL_EINVAL, "argv has %zu words (at most "
                               "%d)", n, DVAL__WORDS_MAX);
    if (cmd->owner && !dval__owner_valid(cmd->owner))
        return dval__call_fail(c, DVAL_EINVAL, "owner \"%.64s\" is not a "
                               "plain name (no '/', not '.' or '..', under "
                               "256 bytes)", cmd->owner);
    return DVAL_OK;
}

static int word_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || (ch && strchr("_@%+=:,./-", ch));
}

static int blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* The number of words of text after "exec", or 0 when it is not of the
 * form dval__command_words accepts. */
static size_t count_words(const char *text)
{
    const char *p = text;
    while (blank(*p))
        p++;
    if (strncmp(p, "exec", 4) || !blank(p[4]))
        return 0;
    p += 4;
    size_t n = 0;
    for (;;) {
        while (blank(*p))
            p++;
        if (!*p)
            return n;
        const char *w = p;
        while (word_char(*p))
            p++;
        if (*p && !blank(*p))
            return 0; /* a character the shell would interpret */
        if (n == 0 && (w[0] == '-' || memchr(w, '=', (size_t)(p - w))))
            return 0;
        if (++n > DVAL__WORDS_MAX)
            return 0;
    }
}

int dval__command_words(const char *text, char ***argv)
{
    *argv = NULL;
    size_t n = text ? count_words(text) : 0;
    if (!n)
        return 0;
    size_t len = strlen(text) + 1;
    char **v = dval__malloc((n + 1) * sizeof *v + len);
    if (!v)
        return DVAL_ENOMEM;
    char *p = memcpy((char *)(v + n + 1), text, len);
    while (blank(*p))
        p++;
    p += 4; /* "exec" */
    for (size_t i = 0; i < n; i++) {
        while (blank(*p))
            *p++ = 0;
        v[i] = p;
        while (word_char(*p))
            p++;
    }
    *p = 0;
    v[n] = NULL;
    *argv = v;
    return 1;
}

int dval__exec_env_text(dval__buf *out, const char *const *env,
                        const char *text)
{
    int rc = dval__buf_appendf(out, "export");
    for (size_t i = 0; !rc && env[i]; i++) {
        const char *eq = strchr(env[i], '=');
        rc = dval__buf_appendf(out, " %.*s=", (int)(eq - env[i]), env[i]);
        rc = rc ? rc : dval__shell_quote(out, eq + 1);
    }
    /* a newline, not "; ": a command that starts with a comment or a
     * here-document's word still reads as it would alone */
    return rc ? rc : dval__buf_appendf(out, "\n%s", text);
}
