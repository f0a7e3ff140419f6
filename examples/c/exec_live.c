/* Run a command in a sandbox session with live output. CC0.
 * usage: exec_live SANDBOX SNAPSHOT COMMAND */
#include <stdio.h>

#include "dval.h"

static int on_output(int stream, const char *channel, const char *data, size_t len,
                     void *userdata)
{
    (void)channel;
    (void)userdata;
    fwrite(data, 1, len, stream == DVAL_STDERR ? stderr : stdout);
    fflush(stream == DVAL_STDERR ? stderr : stdout);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s SANDBOX SNAPSHOT COMMAND\n", argv[0]);
        return 2;
    }
    dval_client *c = NULL;
    dval_sandbox *sb = NULL;
    dval_session *s = NULL;
    int code = -1;
    int rc = dval_client_new(&c, NULL);
    if (rc == DVAL_OK) {
        dval_sandbox_options o;
        dval_sandbox_options_init(&o, sizeof o);
        o.name = argv[1];
        o.snapshot = argv[2];
        rc = dval_sandbox_acquire(&sb, c, &o);
        if (rc != DVAL_OK)
            fprintf(stderr, "acquire: %s\n", dval_client_errmsg(c));
    }
    if (rc == DVAL_OK && (rc = dval_session_open(&s, sb)) != DVAL_OK)
        fprintf(stderr, "session: %s\n", dval_sandbox_errmsg(sb));
    if (rc == DVAL_OK) {
        rc = dval_session_exec(s, argv[3], NULL, on_output, NULL, &code);
        if (rc != DVAL_OK)
            fprintf(stderr, "exec: %s: %s\n", dval_status_name(rc), dval_session_errmsg(s));
        if (dval_session_close(s) != DVAL_OK)
            fprintf(stderr, "close: %s\n", dval_session_errmsg(s));
    }
    dval_session_free(s);
    dval_sandbox_free(sb);
    dval_client_free(c);
    if (rc != DVAL_OK)
        return 1;
    printf("exit code %d\n", code);
    return code == 0 ? 0 : 1;
}
