/* Run transcripts: every `run` records its phases, build log and program
 * output under <state dir>/cli-runs/<thread id>.log, so `daytona-validate
 * logs` can show what happened after the fact (progress lines are not
 * printed when stderr is not a terminal). Best effort: a state directory
 * that cannot be written never fails a run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* A program may print without end: the transcript keeps its first 16 MiB
 * and then says that it stops, so it can never fill the disk. */
#define RUNLOG_CAP (16u << 20)

static FILE *runlog_fp;
static char last_tag[32];
static int mid_line;
static size_t logged;
static int truncated;

int runlog_dir(const cli_common *co, char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (co->state_dir)
        n = snprintf(buf, cap, "%s/cli-runs", co->state_dir);
    else if (xdg && *xdg)
        n = snprintf(buf, cap, "%s/daytona-validate/cli-runs", xdg);
    else if (home && *home)
        n = snprintf(buf, cap, "%s/.local/state/daytona-validate/cli-runs",
                     home);
    else
        return -1;
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* mkdir -p */
static int mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0700);
        *p = '/';
        if (rc && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0700) && errno != EEXIST ? -1 : 0;
}

void runlog_open(const cli_common *co, const char *thread_id)
{
    char dir[4096], path[4200];
    if (runlog_dir(co, dir, sizeof dir) || mkdirs(dir))
        return;
    snprintf(path, sizeof path, "%s/%s.log", dir, thread_id);
    runlog_fp = fopen(path, "w");
    snprintf(path, sizeof path, "%s.log", thread_id);
    runlog_prune(dir, path);
    logged = 0;
    truncated = 0;
    snprintf(path, sizeof path, "%s/last", dir);
    FILE *last = fopen(path, "w");
    if (last) {
        fprintf(last, "%s\n", thread_id);
        fclose(last);
    }
}

void runlog_write(const char *tag, const char *data, size_t len)
{
    if (!runlog_fp || truncated)
        return;
    if (len > RUNLOG_CAP - logged) {
        len = RUNLOG_CAP - logged;
        truncated = 1;
    }
    logged += len;
    if (strcmp(tag, last_tag)) {
        fprintf(runlog_fp, "%s[%s]\n", mid_line ? "\n" : "", tag);
        snprintf(last_tag, sizeof last_tag, "%s", tag);
        mid_line = 0;
    }
    fwrite(data, 1, len, runlog_fp);
    if (len)
        mid_line = data[len - 1] != '\n';
    if (truncated)
        fprintf(runlog_fp, "%s[transcript truncated: over %u MiB]\n",
                mid_line ? "\n" : "", RUNLOG_CAP >> 20);
}

void runlog_close(void)
{
    if (runlog_fp)
        fclose(runlog_fp);
    runlog_fp = NULL;
}
