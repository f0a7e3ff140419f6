#!/usr/bin/env bash
# ABI gate: compares the ABI of $B/lib/libdaytona-validate.so.1.* (built with
# -g by the Makefile; this script builds nothing) with the committed baseline
# tests/abi/libdaytona-validate.abi.
#   abi-check.sh           compare; ANY non-zero abidiff exit fails (a struct
#                          member int->long exits 4, not 8, with abigail 2.2)
#   abi-check.sh --update  rewrite the baseline (a deliberate, reviewed change)
# Only types reachable from include/ are considered (--headers-dir include
# --drop-private-types); additions are allowed (--no-added-syms).
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
BASE=tests/abi/libdaytona-validate.abi

for t in abidw abidiff; do
    command -v $t >/dev/null || { echo "FAIL: $t not found (apt-get install abigail-tools)"; exit 1; }
done
so=$(ls "$B"/lib/libdaytona-validate.so.1.* 2>/dev/null | grep -E '\.so\.1\.[0-9]+\.[0-9]+$' | head -n 1)
[ -n "$so" ] || { echo "FAIL: no $B/lib/libdaytona-validate.so.1.*.* (run make B=$B lib)"; exit 1; }
if ! readelf -S "$so" | grep -q '\.debug_info'; then
    echo "FAIL: $so has no debug info (build with -g)"; exit 1
fi

mkdir -p "$B/abi"
cur=$B/abi/libdaytona-validate.abi
# --no-corpus-path/--no-comp-dir-path keep build paths out of the XML, so
# the baseline does not depend on where it was produced.
if ! abidw --headers-dir include --drop-private-types --no-corpus-path \
        --no-comp-dir-path --out-file "$cur" "$so"; then
    echo "FAIL: abidw could not read $so"; exit 1
fi

if [ "${1:-}" = "--update" ]; then
    cp "$cur" "$BASE"
    echo "abi-check: baseline $BASE updated from $so"
    exit 0
fi
[ -f "$BASE" ] || { echo "FAIL: no baseline $BASE (make abi-baseline)"; exit 1; }

abidiff --no-added-syms "$BASE" "$cur" >"$B/abi/abidiff.txt" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    what=()
    [ $((rc & 1)) -ne 0 ] && what+=("abidiff error")
    [ $((rc & 2)) -ne 0 ] && what+=("usage error")
    [ $((rc & 4)) -ne 0 ] && what+=("ABI change")
    [ $((rc & 8)) -ne 0 ] && what+=("INCOMPATIBLE ABI change")
    echo "FAIL: abidiff exit $rc (${what[*]}) comparing $BASE with $so:"
    sed 's/^/    /' "$B/abi/abidiff.txt"
    echo "If the change is deliberate (e.g. a new tail member of a size-prefixed"
    echo "struct), refresh the baseline in the same commit: make abi-baseline B=$B"
    exit 1
fi
echo "abi-check: OK ($so matches $BASE)"
