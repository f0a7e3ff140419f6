/* dval_exec_options.env: the variables a caller adds to one command's
 * environment. Checked once here (names a shell accepts, UTF-8, bounded:
 * the local executor sends a command in one message of at most 64 KiB),
 * then given to the executor as data (dval_command.env); an executor
 * whose wire takes one shell string writes it as text with
 * dval__exec_env_text (command_text.c). */
#include "internal.h"
#include "exec_env.h"

#include <string.h>

/* NAME=value, NAME a shell variable's name ([A-Za-z_][A-Za-z0-9_]*) */
static int env_entry(const char *kv)
{
    size_t n = strspn(kv, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                          "_0123456789");
    return n > 0 && kv[n] == '=' && !(kv[0] >= '0' && kv[0] <= '9');
}

int dval__exec_env_check(const char *const *env, char *err, size_t cap)
{
    size_t n = 0, bytes = 0;
    for (; env && env[n]; n++) {
        size_t len = strlen(env[n]);
        bytes += len + 1;
        if (!dval__utf8_valid(env[n], len)) {
            dval__fmt(err, cap, "environment entry %zu is not valid UTF-8",
                      n);
            return DVAL_EINVAL;
        }
        if (!env_entry(env[n])) {
            dval__fmt(err, cap, "environment entry \"%.64s\" is not "
                      "NAME=value", env[n]);
            return DVAL_EINVAL;
        }
        if (n >= DVAL__ENV_MAX || bytes > DVAL__ENV_BYTES) {
            dval__fmt(err, cap, "environment: more than %d entries or %d "
                      "bytes", DVAL__ENV_MAX, DVAL__ENV_BYTES);
            return DVAL_EINVAL;
        }
    }
    return DVAL_OK;
}
