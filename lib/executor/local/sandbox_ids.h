/* Host ids of sandboxed commands (shared by the library and the helper).
 * When the caller is root every command of an isolated sandbox runs as an
 * unprivileged host uid (gid = uid) of the sandbox's own range of
 * LX_UID_SLOTS ids, LX_UID_BASE(r): the range's first id for commands
 * outside /sandbox/<dir>, first + n for /sandbox/<dir> number n of the
 * sandbox (so validations in one sandbox cannot touch each other). No
 * two sandboxes of the host share a range (uid_ranges.c), so no per-user
 * kernel limit (inotify instances, RLIMIT_NPROC, message queue bytes) of
 * one sandbox's commands is another's. The ids are far above any login
 * or subordinate range. */
#ifndef DVAL_SANDBOX_IDS_H
#define DVAL_SANDBOX_IDS_H

#define LX_UID_DEFAULT 1879048192L /* 0x70000000: range 0's first id */
#define LX_UID_SLOTS 65536L
/* Range 0 served every sandbox before ranges were per sandbox (a
 * sandbox without one in its state); range 1 holds the compile
 * service's uid (tests/javac_service.h); sandboxes get 2 .. LX_UID_RANGES - 1,
 * which ends at 0x7fffffff: a uid that a signed 32-bit int holds, since
 * programs in the sandbox may keep one in an int. */
#define LX_UID_RANGE_FIRST 2L
#define LX_UID_RANGES 4096L
#define LX_UID_BASE(r) (LX_UID_DEFAULT + (long)(r) * LX_UID_SLOTS)

#endif
