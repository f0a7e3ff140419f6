/* This process's memory as the kernel reports it, for the bench clients
 * (dvbench.c, the library; floor.c, the minimal libcurl client): the
 * same figures read the same way on both sides. Measurement only;
 * header-only. */
#ifndef DVAL_BENCH_PROCMEM_H
#define DVAL_BENCH_PROCMEM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A /proc/self/status value in kB (VmHWM: peak RSS so far, VmRSS), -1 if
 * none. */
static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':')
            v = atol(line + kl + 1);
    if (f)
        fclose(f);
    return v;
}

/* BENCH_SMAPS=FILE: a copy of /proc/self/smaps into FILE<suffix> (the
 * loop's end: "", before it: ".before"), to compare the clients mapping
 * by mapping (tests/bench/RSS.md, tests/bench/rss.py). After the
 * ".before" copy the pages' referenced bits are cleared, so the end
 * copy's Referenced is what the loop itself touched: of a file mapping's
 * Rss, the rest was mapped by fault-around or by the setup. */
static void dump_smaps(const char *suffix)
{
    char to[4096];
    const char *base = getenv("BENCH_SMAPS");
    if (base)
        snprintf(to, sizeof to, "%s%s", base, suffix);
    FILE *in = base ? fopen("/proc/self/smaps", "r") : NULL;
    FILE *out = in ? fopen(to, "w") : NULL;
    char buf[4096];
    size_t n;
    while (out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    if (out)
        fclose(out);
    if (in)
        fclose(in);
    FILE *refs = out && !strcmp(suffix, ".before")
                     ? fopen("/proc/self/clear_refs", "w") : NULL;
    if (refs) {
        fputs("1", refs);
        fclose(refs);
    }
}

#endif
