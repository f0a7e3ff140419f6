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
        rc = rc ? rc : dval__buf_append(out, " && ", 4);
    }
    return rc ? rc : dval__buf_append(out, command, strlen(command));
}
