/* Host ids of sandboxed commands (shared by the library and the helper).
 * When the caller is root every command of an isolated sandbox runs as an
 * unprivileged host uid (gid = uid): LX_UID_DEFAULT for commands outside
 * /sandbox/<dir>, LX_UID_DEFAULT + n for /sandbox/<dir> number n of the
 * sandbox (so validations in one sandbox cannot touch each other). The
 * range is far above any login or subordinate range. */
#ifndef DVAL_SANDBOX_IDS_H
#define DVAL_SANDBOX_IDS_H

#define LX_UID_DEFAULT 1879048192L /* 0x70000000 */
#define LX_UID_SLOTS 65536L

#endif
