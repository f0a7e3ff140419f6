/* dval_result's accessors: the outcome, a phase, a results file, a
 * difference. Each output struct is filled up to the caller's size (its
 * struct_size says how far), so an older caller gets the fields it
 * knows. */
#include <string.h>

#include "result.h"

/* Copies the first size bytes of mine (known bytes) to out, struct_size
 * set to what was filled; DVAL_EABI when size does not reach min. */
static int fill(void *out, size_t size, void *mine, size_t known,
                size_t min)
{
    if (!out)
        return DVAL_EINVAL;
    if (size < min)
        return DVAL_EABI;
    size_t n = size < known ? size : known;
    *(size_t *)mine = n;
    memset(out, 0, size);
    memcpy(out, mine, n);
    return DVAL_OK;
}

static int signal_of(int code)
{
    return code > 128 && code < 128 + 65 ? code - 128 : 0;
}

DVAL_API int dval_result_status(const dval_result *r)
{
    return r ? r->status : DVAL_EINVAL;
}

DVAL_API int dval_result_verdict(const dval_result *r)
{
    return r ? r->verdict : 0;
}

DVAL_API const char *dval_result_verdict_detail(const dval_result *r)
{
    const char *s = r ? json_string_value(json_object_get(r->doc,
                                          "verdict_detail")) : NULL;
    return s ? s : "";
}

DVAL_API int dval_result_exit_code(const dval_result *r)
{
    return r ? r->exit_code : -1;
}

DVAL_API int dval_result_signal(const dval_result *r)
{
    return r ? signal_of(r->exit_code) : 0;
}

DVAL_API const char *dval_result_summary(const dval_result *r)
{
    return r ? r->summary : "";
}

static const char *text(const json_t *o, const char *key, size_t *len)
{
    const json_t *s = json_object_get(o, key);
    *len = json_string_length(s);
    return json_is_string(s) ? json_string_value(s) : "";
}

/* The summary's "usage" of a phase: null when the executor did not
 * measure it, a member null when it could not measure that. */
static void usage(const json_t *u, dval_phase_info *i)
{
    const json_t *cpu = json_object_get(u, "cpu_ms");
    const json_t *mem = json_object_get(u, "peak_memory_bytes");
    i->usage_known = json_is_object(u);
    i->cpu_ms = json_is_integer(cpu) ? json_integer_value(cpu) : -1;
    i->peak_memory_bytes = json_is_integer(mem) ? json_integer_value(mem)
                                                : -1;
}

DVAL_API int dval_result_phase(const dval_result *r, const char *phase,
                               dval_phase_info *info, size_t size)
{
    if (!r || !phase)
        return DVAL_EINVAL;
    const json_t *p = json_object_get(json_object_get(r->doc, "phases"),
                                      phase);
    if (!p)
        return DVAL_ENOTFOUND;
    dval_phase_info i = { 0 };
    const json_t *code = json_object_get(p, "exit_code");
    i.exited = json_is_integer(code);
    i.exit_code = i.exited ? (int32_t)json_integer_value(code) : -1;
    i.signal = signal_of(i.exit_code);
    i.wall_ms = json_integer_value(json_object_get(p, "wall_ms"));
    i.stdout_data = text(p, "stdout", &i.stdout_len);
    i.stderr_data = text(p, "stderr", &i.stderr_len);
    i.output_truncated = json_is_true(json_object_get(p,
                                                      "output_truncated"));
    usage(json_object_get(p, "usage"), &i);
    return fill(info, size, &i, sizeof i, offsetof(dval_phase_info,
                                                   stdout_data));
}

DVAL_API size_t dval_result_file_count(const dval_result *r)
{
    return r ? r->nfiles : 0;
}

DVAL_API int dval_result_file(const dval_result *r, size_t index,
                              dval_file_info *file, size_t size)
{
    if (!r)
        return DVAL_EINVAL;
    if (index >= r->nfiles)
        return DVAL_ENOTFOUND;
    const dval__rfile *rf = &r->files[index];
    dval_file_info f = { 0 };
    f.name = rf->name;
    f.json = rf->json;
    f.json_len = strlen(f.json);
    f.data = rf->data;
    f.len = rf->len;
    f.is_json = rf->is_json;
    return fill(file, size, &f, sizeof f, offsetof(dval_file_info, data));
}

DVAL_API size_t dval_result_differences(const dval_result *r)
{
    return r ? r->differences : 0;
}

DVAL_API int dval_result_diff(const dval_result *r, size_t index,
                              dval_diff_entry *entry, size_t size)
{
    if (!r)
        return DVAL_EINVAL;
    if (index >= r->ndiffs)
        return DVAL_ENOTFOUND;
    const json_t *e = json_array_get(json_object_get(json_object_get(
        r->doc, "comparison"), "diff"), index);
    dval_diff_entry d = { 0 };
    d.path = json_string_value(json_object_get(e, "path"));
    d.kind = json_string_value(json_object_get(e, "kind"));
    d.expected = r->diff_text[2 * index];
    d.actual = r->diff_text[2 * index + 1];
    return fill(entry, size, &d, sizeof d, sizeof d);
}
