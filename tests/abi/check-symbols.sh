#!/usr/bin/env bash
# Checks the exported surface of the shared library against include/dval.h:
#  1. nm -D --defined-only exports only dval_* symbols;
#  2. the exported set equals the DVAL_API functions of the header;
#  3. every identifier the header defines starts with dval_/DVAL_;
#  4. lib/libdaytona-validate.map covers every export (global) and hides the
#     rest (local: *);
#  5. the SONAME is libdaytona-validate.so.1.
# B = build directory (default build). Prints what differs; exit 1 on any.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
MAP=lib/libdaytona-validate.map
SONAME=libdaytona-validate.so.1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

so=$(ls "$B"/lib/libdaytona-validate.so.1.* 2>/dev/null | grep -E '\.so\.1\.[0-9]+\.[0-9]+$' | head -n 1)
if [ -z "$so" ]; then
    echo "FAIL: no $B/lib/libdaytona-validate.so.1.*.* (run make B=$B lib)"
    exit 1
fi
echo "library: $so"

# 1. exports
# Version-node definitions (type A, e.g. DVAL_1) are not symbols of the API.
nodes=$(sed 's/#.*//' "$MAP" | grep -oE '^[[:space:]]*[A-Za-z_][A-Za-z0-9_.]*[[:space:]]*\{' | tr -d ' \t{' || true)
nm -D --defined-only "$so" | awk 'NF >= 3 && $2 != "A" { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/exports"
nm -D --defined-only "$so" | awk 'NF >= 3 && $2 == "A" { print $3 }' | while read -r a; do
    grep -qxF "$a" <<<"$nodes" || echo "$a"
done >"$tmp/abs"
if [ -s "$tmp/abs" ]; then
    bad "absolute symbols that are not version nodes of $MAP:"; sed 's/^/    /' "$tmp/abs"
fi
grep -v '^dval_' "$tmp/exports" >"$tmp/foreign" || true
if [ -s "$tmp/foreign" ]; then
    bad "exported symbols without the dval_ prefix:"; sed 's/^/    /' "$tmp/foreign"
fi
if grep -q '^dval__' "$tmp/exports"; then
    bad "internal dval__* symbols are exported:"; grep '^dval__' "$tmp/exports" | sed 's/^/    /'
fi

# 2. exports == header functions
tests/abi/header-api.sh functions >"$tmp/header" || { bad "cannot parse include/dval.h"; }
comm -23 "$tmp/header" "$tmp/exports" >"$tmp/missing"
comm -13 "$tmp/header" "$tmp/exports" >"$tmp/extra"
if [ -s "$tmp/missing" ]; then
    bad "declared DVAL_API in include/dval.h but not exported by $so:"; sed 's/^/    /' "$tmp/missing"
fi
if [ -s "$tmp/extra" ]; then
    bad "exported by $so but not declared DVAL_API in include/dval.h:"; sed 's/^/    /' "$tmp/extra"
fi

# 3. header namespace
tests/abi/header-api.sh identifiers | grep -vE '^(dval_|DVAL_)' >"$tmp/ns" || true
if [ -s "$tmp/ns" ]; then
    bad "identifiers in include/dval.h outside the dval_/DVAL_ namespace:"; sed 's/^/    /' "$tmp/ns"
fi

# 4. version script: every export matches a global pattern; local: * present
sed 's/#.*//' "$MAP" | tr -s ' \t\n' ' ' >"$tmp/map1"
globals=$(sed -E 's/.*global:([^}]*)(local:|\}).*/\1/' "$tmp/map1" | tr ';' '\n' | sed 's/ //g' | grep -v '^$' || true)
if ! grep -qE 'local: *\* *;' "$tmp/map1"; then
    bad "$MAP has no 'local: *;' (internal symbols would be exported)"
fi
while read -r sym; do
    [ -n "$sym" ] || continue
    covered=0
    for pat in $globals; do
        # shellcheck disable=SC2053
        [[ $sym == $pat ]] && { covered=1; break; }
    done
    [ $covered -eq 1 ] || echo "$sym"
done <"$tmp/header" >"$tmp/uncovered"
if [ -s "$tmp/uncovered" ]; then
    bad "public functions not covered by a global: entry of $MAP:"; sed 's/^/    /' "$tmp/uncovered"
fi
nver=$(nm -D --defined-only "$so" | awk 'NF >= 3 && $3 ~ /^dval_/ && $3 !~ /@/' | wc -l)
[ "$nver" -eq 0 ] || bad "$nver exported symbols carry no version node (version script not applied?)"

# 5. SONAME
soname=$(readelf -d "$so" | sed -nE 's/.*\(SONAME\).*\[(.*)\].*/\1/p')
[ "$soname" = "$SONAME" ] || bad "SONAME is '${soname:-none}', expected $SONAME"

n=$(wc -l <"$tmp/exports")
if [ $fail -eq 0 ]; then
    echo "symbols-check: OK ($n exports = header functions, SONAME $soname, map $MAP)"
else
    echo "symbols-check: FAILED"
fi
exit $fail
