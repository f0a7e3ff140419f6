#!/usr/bin/env bash
# Helpers shared by the ABI checks: lists what include/dval.h declares.
#   header-api.sh functions   - every DVAL_API function name, sorted
#   header-api.sh identifiers - every file-scope identifier the header defines
#                               (macros, typedef names, struct/enum tags, enum
#                               constants, functions), sorted
set -euo pipefail
H=${DVAL_HEADER:-$(dirname "$0")/../../include/dval.h}

# The header without comments (directives kept); the compiler does the
# comment stripping so commented-out text never counts.
stripped() { gcc -fpreprocessed -dD -E -P -w "$H"; }

functions() {
    # A declaration starts at a line beginning with DVAL_API; the name is the
    # identifier right before the first "(".
    stripped | grep -E '^[[:space:]]*DVAL_API[[:space:]]' |
        sed -E 's/\(.*//; s/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*$/\1/' |
        sort -u
}

identifiers() {
    stripped | awk '
        /^[[:space:]]*#[[:space:]]*define[[:space:]]/ {
            sub(/^[[:space:]]*#[[:space:]]*define[[:space:]]+/, ""); sub(/[^A-Za-z0-9_].*/, "");
            print; next }
        /^[[:space:]]*#/ { next }
        { text = text " " $0 }
        END {
            s = text
            # enum bodies: constants
            while (match(s, /enum[[:space:]]+[A-Za-z0-9_]*[[:space:]]*\{[^}]*\}/)) {
                body = substr(s, RSTART, RLENGTH)
                s = substr(s, RSTART + RLENGTH)
                tag = body; sub(/^enum[[:space:]]+/, "", tag); sub(/[^A-Za-z0-9_].*/, "", tag)
                if (tag != "") print tag
                sub(/^[^{]*\{/, "", body); sub(/\}$/, "", body)
                n = split(body, items, ",")
                for (i = 1; i <= n; i++) {
                    it = items[i]; gsub(/^[[:space:]]+/, "", it); sub(/[^A-Za-z0-9_].*/, "", it)
                    if (it != "") print it
                }
            }
            s = text
            # struct tags (definitions and forward declarations)
            while (match(s, /struct[[:space:]]+[A-Za-z_][A-Za-z0-9_]*/)) {
                t = substr(s, RSTART, RLENGTH); sub(/^struct[[:space:]]+/, "", t); print t
                s = substr(s, RSTART + RLENGTH)
            }
            s = text
            # typedefs: take each "typedef ... ;" statement at brace depth 0
            while (match(s, /typedef[^;{]*(\{[^}]*\})?[^;]*;/)) {
                st = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
                if (match(st, /\(\*[[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\)/)) {
                    t = substr(st, RSTART, RLENGTH); gsub(/[(*) \t]/, "", t); print t
                } else {
                    sub(/[[:space:]]*;$/, "", st); sub(/.*[^A-Za-z0-9_]/, "", st); print st
                }
            }
        }' | sort -u
    functions
}

case "${1:-}" in
    functions) functions ;;
    identifiers) identifiers | sort -u ;;
    *) echo "usage: $0 functions|identifiers" >&2; exit 2 ;;
esac
