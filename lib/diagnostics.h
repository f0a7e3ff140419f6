/* Compiler diagnostics from a build phase's output (diagnostics.c). */
#ifndef DVAL_DIAGNOSTICS_H
#define DVAL_DIAGNOSTICS_H

#include <jansson.h>

#include "internal.h"

/* Appends to the array out one {"file","line","column","severity",
 * "code","message"} object per diagnostic found in text (C#, MSBuild,
 * NuGet, javac, Maven forms), files relative to workdir. */
void dval__diagnostics_parse(const char *text, size_t len,
                             const char *workdir, json_t *out);

#endif
