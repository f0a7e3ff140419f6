/* Run a command in a session of a sandbox, streaming its output. */
#include <stdio.h>
#include <dval.h>

static int on_output(int stream, const char *channel, const char *data,
                     size_t len, void *userdata)
{
    (void)channel;
    (void)userdata;
    fwrite(data, 1, len, stream == DVAL_STDERR ? stderr : stdout);
    return 0;
}

static int run(dval_sandbox *sb, const char *command)
{
    dval_session *s;
    int rc = dval_session_open(&s, sb);
    if (rc != DVAL_OK)
        return rc;
    /* variables as data: the value is never read as shell text */
    static const char *const env[] = { "GREETING=hello, $USER", NULL };
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.timeout_ms = 60000;
    eo.env = env;
    int exit_code = -1;
    rc = dval_session_exec(s, command, &eo, on_output, NULL, &exit_code);
    if (rc == DVAL_OK)
        printf("session %s: exit code %d\n", dval_session_id(s), exit_code);
    else
        fprintf(stderr, "%s\n", dval_session_errmsg(s));
    if (dval_session_close(s) != DVAL_OK)
        fprintf(stderr, "close: %s\n", dval_session_errmsg(s));
    dval_session_free(s);
    return rc;
}

int main(void)
{
    dval_client *client;
    dval_sandbox *sb;
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "example-sandbox";
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    int rc = dval_sandbox_acquire(&sb, client, &o);
    if (rc == DVAL_OK) {
        rc = run(sb, "echo \"$GREETING\"; uname -a");
        dval_sandbox_free(sb);
    }
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
