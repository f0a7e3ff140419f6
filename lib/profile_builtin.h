/* The built-in profiles: profiles/builtin/NAME.json, embedded when the
 * library is built ($(B)/gen/builtin_profiles.h, made by
 * profiles/embed.sh) and parsed by the profile-file parser
 * (profile_file.c) the first time a profile is looked up (profile.c). */
#ifndef DVAL_PROFILE_BUILTIN_H
#define DVAL_PROFILE_BUILTIN_H

#include <stddef.h>

#include "dval.h"

/* Parses text (the file profiles/builtin/<label>) as dval_profile_load
 * parses a file and hands the profile to keep, whose status it returns
 * (keep copies what it keeps: the profile is freed after). On failure
 * errbuf says why. */
int dval__profile_parse_builtin(const char *label, const char *text,
                                int (*keep)(const dval_profile *, void *),
                                void *arg, char *errbuf, size_t errcap);

#endif
