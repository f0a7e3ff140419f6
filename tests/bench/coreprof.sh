#!/usr/bin/env bash
# The library's cost per validation, deterministic enough to compare two
# builds under any load: poolbench (daytona executor, session isolation,
# C concurrent, N validations) against one emulator, once under callgrind
# (instructions of the whole client / (N + 1): the warm-up validation
# counts) and once under strace -c -f (system calls / (N + 1)). Writes
# callgrind.out and strace.txt to OUT and prints both totals.
# COREPROF_BIN=PATH: that poolbench (another build's) instead of one
# linked here. Two runs with different N give the cost per validation
# without the set-up: (I(N2) - I(N1)) / (N2 - N1).
# Usage: B=build/dev tests/bench/coreprof.sh OUT [C [N]]
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
OUT=$1 C=${2:-16} N=${3:-256}
PY=/usr/bin/python3
mkdir -p "$OUT"
if [ -n "${COREPROF_BIN:-}" ]; then cp "$COREPROF_BIN" "$OUT/poolbench"; else
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -Iinclude -o "$OUT/poolbench" tests/bench/poolbench.c \
    "$B/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dval-coreprof.XXXXXX")
root=$(mktemp -d /dev/shm/dval-coreprof.XXXXXX)
emu=
cleanup() {
    [ -z "$emu" ] || { kill "$emu" 2>/dev/null; wait "$emu" 2>/dev/null; } || true
    rm -rf "$tmp" "$root"
}
trap cleanup EXIT
mkdir -p "$tmp/src" "$tmp/state"
cat >"$tmp/src/run.sh" <<'EOS'
echo '{"ok":true}' >"$DVAL_RESULTS_DIR/r.json" && echo ok
EOS
$PY tests/emulator/emulator.py --port-file "$tmp/port" --lifetime 1800 --root "$root" \
    2>"$tmp/emu.log" &
emu=$!
for _ in $(seq 150); do [ -s "$tmp/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$tmp/port")"
$PY -c 'import sys,urllib.request as u; u.urlopen(u.Request(sys.argv[1], data=b"{\"transition_ms\":10,\"snapshot_build_ms\":50}", method="POST"))' \
    "$base/_emu/config"
export DAYTONA_API_URL=$base/api DAYTONA_API_KEY=dtn_bench POOLBENCH_STATE=$tmp/state
valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" \
    "$OUT/poolbench" daytona session "$C" "$N" "$tmp/src" >"$OUT/cg.json" 2>"$OUT/cg.log"
strace -c -f -o "$OUT/strace.txt" \
    "$OUT/poolbench" daytona session "$C" "$N" "$tmp/src" >"$OUT/st.json"
ir=$(grep -m1 '^summary:\|^totals:' "$OUT/callgrind.out" | awk '{print $2}')
sc=$(awk '/^100.00|total$/ {print $4}' "$OUT/strace.txt" | tail -1)
echo "instructions $ir per_validation $((ir / (N + 1)))"
echo "syscalls $sc per_validation $(awk -v s="$sc" -v n=$((N + 1)) 'BEGIN{printf "%.1f", s/n}')"
