/* `run --json`: one document of one shape for success and every failure,
 * described by man/daytona-validate-run.schema.json (installed beside the
 * man page). Every key is always present; unknown values are null. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void str_or_null(FILE *f, const char *s)
{
    if (s && *s)
        jt_string(f, s, strlen(s));
    else
        fputs("null", f);
}

/* A member of the library's summary copied verbatim, else `dflt`. */
static void member(FILE *f, const char *summary, const char *key,
                   const char *dflt)
{
    const char *val;
    size_t len;
    if (summary && !jt_member(summary, key, &val, &len))
        fwrite(val, 1, len, f);
    else
        fputs(dflt, f);
}

static void error_object(FILE *f, const run_report *r)
{
    const run_info *ri = r->ri;
    if (ri->pb.exit_status == 0) {
        fputs("null", f);
        return;
    }
    fputs("{\"phase\":", f);
    str_or_null(f, ri->phase);
    fputs(",\"message\":", f);
    str_or_null(f, ri->pb.message);
    fputs(",\"hint\":", f);
    str_or_null(f, ri->pb.hint);
    fputc('}', f);
}

/* The summary's string member key into dst ("" when absent). */
static void summary_text(const char *summary, const char *key, char *dst,
                         size_t cap)
{
    const char *val;
    size_t len;
    dst[0] = '\0';
    if (summary && !jt_member(summary, key, &val, &len))
        jt_unquote(val, len, dst, cap);
}

void run_info_verdict(run_info *ri, const char *summary)
{
    summary_text(summary, "verdict", ri->verdict, sizeof ri->verdict);
    summary_text(summary, "verdict_detail", ri->verdict_detail,
                 sizeof ri->verdict_detail);
}

/* The run phase's output as the library kept it (the summary's
 * phases.run), else nothing. */
static void program_output(FILE *f, const char *summary)
{
    const char *phases = NULL, *run = NULL;
    size_t n;
    if (summary && !jt_member(summary, "phases", &phases, &n) &&
        jt_member(phases, "run", &run, &n))
        run = NULL;
    fputs(",\"stdout\":", f);
    member(f, run, "stdout", "\"\"");
    fputs(",\"stderr\":", f);
    member(f, run, "stderr", "\"\"");
    fputs(",\"output_truncated\":", f);
    member(f, run, "output_truncated", "false");
}

/* Which folder of the command line the document is about. */
static void folder(FILE *f, const run_report *r)
{
    char abs[4096];
    fputs(",\"folder\":", f);
    str_or_null(f, r->folder);
    fputs(",\"folder_path\":", f);
    str_or_null(f, r->folder && realpath(r->folder, abs) ? abs : NULL);
    fprintf(f, ",\"index\":%d", r->index);
}

void report_diff(FILE *f, const char *summary)
{
    const char *cmp, *diff;
    size_t n;
    if (!summary || jt_member(summary, "comparison", &cmp, &n) ||
        jt_member(cmp, "diff", &diff, &n))
        return;
    fputs("differences (path, kind, expected, actual):\n", f);
    jt_pretty(f, diff, n);
    fputc('\n', f);
}

void report_json(FILE *f, const run_report *r)
{
    const run_info *ri = r->ri;
    const run_state *st = r->st;
    fprintf(f, "{\"schema\":\"daytona-validate-run/2\",\"status\":\"%s\","
            "\"ok\":%s,\"exit_status\":%d,\"exit_code\":", ri->status,
            ri->pb.exit_status == 0 ? "true" : "false", ri->pb.exit_status);
    if (st && st->ran)
        fprintf(f, "%d", st->exit_code);
    else
        fputs("null", f);
    fputs(",\"code\":", f);
    str_or_null(f, r->called ? dval_status_name(ri->rc) : NULL);
    fputs(",\"verdict\":", f);
    member(f, r->summary, "verdict", "null");
    fputs(",\"verdict_detail\":", f);
    member(f, r->summary, "verdict_detail", "null");
    fputs(",\"phases\":", f);
    member(f, r->summary, "phases", "{}");
    fputs(",\"diagnostics\":", f);
    member(f, r->summary, "diagnostics", "[]");
    fputs(",\"error\":", f);
    error_object(f, r);
    fputs(",\"errors\":", f);
    member(f, r->summary, "errors", "[]");
    fputs(",\"results\":", f);
    member(f, r->summary, "results", "{}");
    fputs(",\"files\":", f);
    member(f, r->summary, "files", "{}");
    fputs(",\"comparison\":", f);
    member(f, r->summary, "comparison", "null");
    fputs(",\"thread_id\":", f);
    if (ri->thread_id)
        str_or_null(f, ri->thread_id);
    else
        member(f, r->summary, "thread_id", "null");
    folder(f, r);
    fputs(",\"profile\":", f);
    str_or_null(f, r->profile);
    fputs(",\"executor\":", f);
    str_or_null(f, ri->executor);
    fputs(",\"sandbox\":", f);
    str_or_null(f, st ? st->sandbox : NULL);
    fputs(",\"session\":", f);
    str_or_null(f, st ? st->session : NULL);
    fputs(",\"timings_ms\":{", f);
    if (st && st->timings_len)
        fprintf(f, "%s,", st->timings);
    fprintf(f, "\"total\":%lld}", (long long)r->total_ms);
    program_output(f, r->summary);
    fputs("}\n", f);
    fflush(f);
}
