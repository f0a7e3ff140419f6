#!/usr/bin/env bash
# Runs Java programs in the java profile's sandboxes with both isolations
# and as plain `javac` + `java` in the same snapshot's sandbox, 4 at a
# time, and compares each program's stdout byte for byte with the plain
# run's. Usage: compare.sh B STATE OUT DIR...; prints one line per
# isolation ("session: N/N byte-exact, X programs/s") and each mismatch;
# OUT/<mode>.json has the runner's figures. Exit 1 on a mismatch.
set -u
B=$1 state=$2 out=$3
shift 3
mkdir -p "$out"
run="$B/corpus/corpusrun"
if [ ! -x "$run" ] || [ tests/corpus/corpusrun.c -nt "$run" ]; then
    mkdir -p "$B/corpus"
    # shellcheck disable=SC2046
    cc -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Iinclude -o "$run" \
        tests/corpus/corpusrun.c "$B/lib/libdaytona-validate.a" \
        $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread || exit 2
fi
bad=0
for mode in plain session sandbox; do
    mkdir -p "$out/$mode"
    "$run" "$state" "$mode" 4 "$out/$mode" "$@" >"$out/$mode.json" || exit 2
    [ "$mode" = plain ] && continue
    same=0
    for d in "$@"; do
        n=$(basename "$d")
        if grep -q '^0 ' "$out/plain/$n.rc" && cmp -s "$out/plain/$n.out" "$out/$mode/$n.out"; then
            same=$((same + 1))
        else
            echo "  $mode: $n differs from plain java (or failed: $(cat "$out/$mode/$n.rc"))"
            bad=1
        fi
    done
    echo "$mode: $same/$# byte-exact with plain java, $(sed 's/.*"per_s":\([0-9.]*\).*/\1/' "$out/$mode.json") programs/s"
done
exit $bad
