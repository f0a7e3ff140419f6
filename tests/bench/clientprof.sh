#!/usr/bin/env bash
# The client's cost per validation of one poolbench run on the emulator
# (as pool.sh runs it: daytona, session isolation; default 16 concurrent
# x 256 validations): instructions (callgrind, whole process / (N + 1),
# the warm-up validation included) and system calls (strace -c -f, same
# division). Deterministic enough to compare two builds on a loaded
# machine. Env: B=build, PROF_CONC=16, PROF_N=256, PROF_OUT=DIR (keeps
# callgrind.out and strace.txt; default a temporary directory),
# PROF_BIN=PATH (another build's poolbench instead of one linked here).
# Two runs with different N give the cost without the set-up:
# (I(N2) - I(N1)) / (N2 - N1).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
CONC=${PROF_CONC:-16}
N=${PROF_N:-256}
PY=/usr/bin/python3
out=$B/bench
mkdir -p "$out"
bin=$out/poolbench
if [ -n "${PROF_BIN:-}" ]; then bin=$PROF_BIN; else
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -Iinclude -o "$bin" tests/bench/poolbench.c \
    "$B/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dval-clientprof.XXXXXX")
res=${PROF_OUT:-$tmp}
mkdir -p "$res"
emu=""
cleanup() {
    [ -z "$emu" ] || { kill "$emu" 2>/dev/null; wait "$emu" 2>/dev/null; } || true
    rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/src" "$tmp/state" "$tmp/root"
cat >"$tmp/src/run.sh" <<'EOF'
echo '{"ok":true}' >"$DVAL_RESULTS_DIR/r.json" && echo ok
EOF
$PY tests/emulator/emulator.py --port-file "$tmp/port" --lifetime 1800 \
    --root "$tmp/root" 2>"$tmp/emu.log" &
emu=$!
for _ in $(seq 150); do [ -s "$tmp/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$tmp/port")"
$PY -c 'import sys,urllib.request as u; u.urlopen(u.Request(sys.argv[1], data=b"{\"transition_ms\":10,\"snapshot_build_ms\":50}", method="POST"))' \
    "$base/_emu/config"
export DAYTONA_API_URL=$base/api DAYTONA_API_KEY=dtn_bench POOLBENCH_STATE=$tmp/state
args=("$bin" daytona session "$CONC" "$N" "$tmp/src")
valgrind --tool=callgrind --callgrind-out-file="$res/callgrind.out" "${args[@]}" \
    >/dev/null 2>"$tmp/cg.log"
strace -c -f -o "$res/strace.txt" "${args[@]}" >/dev/null
ir=$(awk '/^summary:/ {print $2}' "$res/callgrind.out")
sys=$(awk '$NF == "total" {print $(NF-2)}' "$res/strace.txt")
$PY -c 'import sys; n=int(sys.argv[3])+1; print("instructions/validation %.0f  syscalls/validation %.1f" % (int(sys.argv[1])/n, int(sys.argv[2])/n))' \
    "$ir" "$sys" "$N"
echo "per call (calls / (N+1)):"
awk -v n="$N" 'NR > 2 && $NF != "total" && $1 !~ /^-/ {printf "  %-16s %6.2f\n", $NF, $4 / (n + 1)}' "$res/strace.txt" | sort -k2 -nr
