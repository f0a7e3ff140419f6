/* A command that needs no shell ("exec WORD...") can be started as a
 * program: the core decides which texts qualify, once, and hands the
 * executor words, a directory and an environment (dval_command) instead
 * of shell text. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command_text.h"
#include "core.h"
#include "harness.h"
#include "support_fake.h"

static fake F;
static fake_fixture FX;

/* The words of text joined by '|', or "" when it needs a shell. */
static const char *words(const char *text)
{
    static char out[512];
    char **v = NULL;
    out[0] = 0;
    int rc = dval__command_words(text, &v);
    CHECK(rc == 0 || rc == 1);
    CHECK((rc == 1) == (v != NULL));
    for (size_t i = 0; v && v[i]; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s",
                 i ? "|" : "", v[i]);
    dval__free(v);
    return out;
}

TEST(exec_argv__plain_words_after_exec_are_the_program_and_arguments)
{
    CHECK_STR(words("exec sh run.sh"), "sh|run.sh");
    CHECK_STR(words("  exec\tjava -cp out:lib/a.jar Main --n=3 50% a@b,c+d "),
              "java|-cp|out:lib/a.jar|Main|--n=3|50%|a@b,c+d");
    CHECK_STR(words("exec /usr/bin/env"), "/usr/bin/env");
}

TEST(exec_argv__anything_a_shell_would_interpret_keeps_the_shell)
{
    static const char *const shell[] = {
        "sh run.sh",                 /* no exec: the shell stays the parent */
        "exec",                      /* exec alone does nothing */
        "exec ",
        "execsh run.sh",
        "exec sh run.sh; echo x",
        "exec sh run.sh && x",
        "exec sh $HOME/run.sh",
        "exec sh 'run.sh'",
        "exec sh \"run.sh\"",
        "exec sh run\\.sh",
        "exec sh *.sh",
        "exec sh run?.sh",
        "exec sh [r]un.sh",
        "exec sh ~/run.sh",
        "exec sh run.sh > out",
        "exec sh run.sh < in",
        "exec sh run.sh | cat",
        "exec sh run.sh &",
        "exec sh run.sh # comment",
        "exec sh `x`",
        "exec sh {a,b}",
        "exec sh (x)",
        "exec sh run.sh\nexec other",
        "exec A=1 sh run.sh",        /* an assignment where a name goes */
        "exec -a name sh",           /* an option of some shells' exec */
        "exec sh r\xc3\xa9.sh",      /* beyond ASCII: left to the shell */
    };
    for (size_t i = 0; i < sizeof shell / sizeof shell[0]; i++) {
        if (words(shell[i])[0])
            th_fail(__FILE__, __LINE__, "\"%s\" was split into words",
                    shell[i]);
    }
}

TEST(exec_argv__at_most_64_words)
{
    char text[1024] = "exec p";
    for (int i = 1; i < 64; i++)
        strcat(text, " a");
    CHECK(words(text)[0] != 0);
    strcat(text, " a");
    CHECK_STR(words(text), "");
}

/* What /bin/sh makes of the words after "exec" in text: "set --" in its
 * place, the arguments printed '|'-separated. */
static void shell_words(const char *text, char *out, size_t cap)
{
    const char *rest = strstr(text, "exec") + 4;
    char script[600];
    snprintf(script, sizeof script, "set -- %s; IFS='|'; printf %%s \"$*\"",
             rest);
    int p[2];
    CHECK_INT(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t k;
    while (n + 1 < cap && (k = read(p[0], out + n, cap - 1 - n)) > 0)
        n += (size_t)k;
    out[n] = 0;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
}

/* Differential: random texts of word characters and shell syntax; every
 * one split into words must be split so by the shell too. */
TEST(exec_argv__every_accepted_text_means_the_same_to_the_shell)
{
    static const char plain[] = "ab9_=-.:/%@+,  \t";
    static const char alphabet[] = "ab9_=-.:/%@+, \t$'\"\\;&|<>(){}~#*?[]!`";
    unsigned seed = 12345;
    int accepted = 0;
    for (int i = 0; i < 600; i++) {
        char text[64] = "exec ";
        size_t len = 1 + (seed = seed * 1103515245u + 12345u) % 20;
        for (size_t j = 0; j < len; j++) {
            seed = seed * 1103515245u + 12345u;
            /* mostly plain characters, so that many texts qualify */
            text[5 + j] = (seed >> 8) % 16
                              ? plain[(seed >> 16) % (sizeof plain - 1)]
                              : alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        text[5 + len] = 0;
        const char *ours = words(text);
        if (!ours[0])
            continue;
        accepted++;
        char theirs[512];
        shell_words(text, theirs, sizeof theirs);
        if (strcmp(ours, theirs))
            th_fail(__FILE__, __LINE__, "\"%s\": words \"%s\", the shell "
                    "\"%s\"", text, ours, theirs);
    }
    CHECK(accepted > 50); /* the test saw accepted texts at all */
}

static int exec_owned(const char *const *argv, const char *const *env,
                      const char *cwd, const char *owner)
{
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.cwd = cwd;
    dval__command cmd = { NULL, argv, env, owner };
    int code = -1;
    return dval__session_exec_command(FX.s, &cmd, &eo, NULL, NULL, &code);
}

static int exec_cmd(const char *const *argv, const char *const *env,
                    const char *cwd)
{
    return exec_owned(argv, env, cwd, NULL);
}

TEST(exec_argv__the_executor_gets_words_directory_and_environment)
{
    fake_init(&F);
    fakeclock_install();
    CHECK_INT(fake_fixture_open(&FX, &F, "sb", 1), DVAL_OK);
    const char *argv[] = { "sh", "run.sh", NULL };
    const char *env[] = { "DVAL_THREAD_ID=t 1", "EMPTY=", NULL };
    CHECK_INT(exec_owned(argv, env, "/sandbox/t 1", "t1"), DVAL_OK);
    CHECK_INT(F.started_argv, 1);
    CHECK_INT((int)F.start_struct_size, (int)sizeof(dval_command));
    CHECK_STR(F.started, "sh run.sh");
    CHECK_STR(F.started_env, "DVAL_THREAD_ID=t 1 EMPTY=");
    CHECK_STR(F.started_cwd, "/sandbox/t 1");
    CHECK_STR(F.started_owner, "t1");
    /* a plain text exec stays text, and nobody's in particular: the
     * owner comes from the core's caller, never from the cwd */
    CHECK_INT(dval_session_exec(FX.s, "exec sh run.sh", NULL, NULL, NULL,
                                NULL), DVAL_OK);
    CHECK_INT(F.started_argv, 0);
    CHECK_STR(F.started, "exec sh run.sh");
    CHECK_INT(F.owner_null, 1);
    fake_fixture_free(&FX);
}

TEST(exec_argv__bad_words_or_environment_are_refused_before_the_executor)
{
    fake_init(&F);
    fakeclock_install();
    CHECK_INT(fake_fixture_open(&FX, &F, "sb", 1), DVAL_OK);
    F.trace[0] = 0;
    const char *empty[] = { "", NULL };
    const char *bad_utf8[] = { "sh", "\xff", NULL };
    const char *ok[] = { "true", NULL };
    const char *no_eq[] = { "NAME", NULL };
    const char *only_eq[] = { "=x", NULL };
    const char *bad_name[] = { "A-B=x", NULL };
    CHECK_INT(exec_cmd(empty, NULL, NULL), DVAL_EINVAL);
    CHECK_CONTAINS(dval_session_errmsg(FX.s), "command is empty");
    CHECK_INT(exec_cmd(bad_utf8, NULL, NULL), DVAL_EINVAL);
    CHECK_CONTAINS(dval_session_errmsg(FX.s), "argument is not valid UTF-8");
    CHECK_INT(exec_cmd(ok, no_eq, NULL), DVAL_EINVAL);
    CHECK_CONTAINS(dval_session_errmsg(FX.s), "\"NAME\" is not NAME=value");
    CHECK_INT(exec_cmd(ok, only_eq, NULL), DVAL_EINVAL);
    CHECK_INT(exec_cmd(ok, bad_name, NULL), DVAL_EINVAL);
    CHECK(strstr(F.trace, "cmd_start") == NULL);
    fake_fixture_free(&FX);
}

/* The same check every executor makes (dval__command_check), made by
 * the core before any executor sees the description. */
TEST(exec_argv__a_bad_owner_or_too_many_words_never_reach_the_executor)
{
    fake_init(&F);
    fakeclock_install();
    CHECK_INT(fake_fixture_open(&FX, &F, "sb", 1), DVAL_OK);
    F.trace[0] = 0;
    const char *ok[] = { "true", NULL };
    static const char *many[DVAL__WORDS_MAX + 2];
    for (int i = 0; i <= DVAL__WORDS_MAX; i++)
        many[i] = "w";
    const char *bad[] = { "", ".", "..", "a/b", "../t2", "a\nb", NULL };
    for (int i = 0; bad[i]; i++) {
        CHECK_INT(exec_owned(ok, NULL, NULL, bad[i]), DVAL_EINVAL);
        CHECK_CONTAINS(dval_session_errmsg(FX.s), "not a plain name");
    }
    CHECK_INT(exec_cmd(many, NULL, NULL), DVAL_EINVAL);
    CHECK_CONTAINS(dval_session_errmsg(FX.s), "at most 64");
    CHECK(strstr(F.trace, "cmd_start") == NULL);
    many[DVAL__WORDS_MAX] = NULL; /* 64 words are fine */
    CHECK_INT(exec_cmd(many, NULL, NULL), DVAL_OK);
    fake_fixture_free(&FX);
}

TEST(exec_argv__a_description_is_text_or_argv_exactly)
{
    dval_call c;
    memset(&c, 0, sizeof c);
    const char *argv[] = { "true", NULL }, *none[] = { NULL };
    dval_command d = { .struct_size = sizeof d, .sandbox_id = "sb",
                       .session_id = "s" };
    CHECK_INT(dval__command_check(&c, &d), DVAL_EINVAL);
    CHECK_CONTAINS(c.errmsg, "neither is set");
    d.text = "true";
    d.argv = argv;
    CHECK_INT(dval__command_check(&c, &d), DVAL_EINVAL);
    CHECK_CONTAINS(c.errmsg, "both are set");
    d.text = NULL;
    CHECK_INT(dval__command_check(&c, &d), DVAL_OK);
    d.argv = none;
    CHECK_INT(dval__command_check(&c, &d), DVAL_EINVAL);
    CHECK_CONTAINS(c.errmsg, "no program");
    d.argv = argv;
    d.owner = "0123456789abcdef-_.x";
    CHECK_INT(dval__command_check(&c, &d), DVAL_OK);
    d.struct_size = sizeof(size_t);
    CHECK_INT(dval__command_check(&c, &d), DVAL_EINVAL);
    CHECK_INT(dval__command_check(&c, NULL), DVAL_EINVAL);
}

static const char *quoted(const char *s)
{
    static char out[256];
    dval__buf b = {0};
    CHECK(dval__shell_quote(&b, s) == 0);
    snprintf(out, sizeof out, "%s", b.data ? b.data : "(null)");
    dval__buf_free(&b);
    return out;
}

TEST(exec_argv__shell_quote_wraps_runs_and_escapes_each_quote)
{
    CHECK_STR(quoted(""), "''");
    CHECK_STR(quoted("abc def"), "'abc def'");
    CHECK_STR(quoted("a'b"), "'a'\\''b'");
    CHECK_STR(quoted("'"), "''\\'''");
    CHECK_STR(quoted("''x'"), "''\\'''\\''x'\\'''");
    CHECK_STR(quoted("$HOME \"q\" \\n"), "'$HOME \"q\" \\n'");
}
