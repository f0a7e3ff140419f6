/* Support for the dotnet suites: a sandbox of the dotnet profile's
 * snapshot whose compile service answers, projects put into it, and the
 * profile's build and run phases run as a validation would run them. */
#ifndef DVAL_TEST_DOTNET_H
#define DVAL_TEST_DOTNET_H

#include "lt.h"

/* the profile's phases, with the trace line naming the builder */
#define DN_RUN "DVAL_CSC_TRACE=1; export DVAL_CSC_TRACE; " \
               "sh /opt/dval-dotnet/build.sh 1>&2 && exec sh /opt/dval-dotnet/run.sh"
#define DN_BUILD "DVAL_CSC_TRACE=1 sh /opt/dval-dotnet/build.sh 1>&2"
#define DN_FULL "DVAL_CSC=0 DVAL_CSC_TRACE=1 sh /opt/dval-dotnet/build.sh 1>&2"
#define DN_VIA_SERVICE "dval-csc: service\n"
#define DN_VIA_BUILD "dval-csc: dotnet build\n"

/* Skips without a .NET SDK on the host; else builds the dotnet snapshot
 * in t and starts sandbox `name` on it, waiting for its service. */
void dn_sandbox(lt *t, const char *name);
/* Starts another sandbox `name` of that snapshot, waiting for the
 * service's socket in it. */
void dn_start(lt *t, const char *name);
/* Uploads every file of the local directory (flat) into remote. */
void dn_put_dir(lt *t, const char *sb, const char *local, const char *remote);
/* Uploads data as remote/rel. */
void dn_put(lt *t, const char *sb, const char *remote, const char *rel,
            const char *data);
const char *dn_text(const lt_out *o, int err);

#endif
