#!/usr/bin/env bash
# Pool throughput (issue 14): validations/s and p50/p99 wall per
# validation at 1/4/16/64 concurrent validations through dval_pool, both
# isolation levels, on the local executor and on the emulator. Separate
# from run.sh (another section); prints JSON lines to stdout.
# Sizes: POOL_LEVELS=1,4,16,64 POOL_PER_LEVEL=4 (validations per thread).
# POOL_EXECUTORS="local emu" (default both; "local" or "emu" runs one side).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
LEVELS=${POOL_LEVELS:-1,4,16,64}
PER=${POOL_PER_LEVEL:-4}
EXECUTORS=${POOL_EXECUTORS:-local emu}
want() { [[ " $EXECUTORS " == *" $1 "* ]]; }
out=$B/bench
mkdir -p "$out"
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -Iinclude -o "$out/poolbench" tests/bench/poolbench.c \
    "$B/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid) -lpthread
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dval-poolbench.XXXXXX")
emu=
trap '[ -n "$emu" ] && kill $emu 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/state"
echo 'echo ok' >"$tmp/src/run.sh"
export DVAL_LOCAL_HELPER=$PWD/$B/libexec/dval-local-helper POOLBENCH_STATE=$tmp/state
if want local; then
    for c in ${LEVELS//,/ }; do
        for iso in session sandbox; do
            "$out/poolbench" local $iso "$c" $((c * PER)) "$tmp/src" || true
        done
    done
fi
want emu || exit 0
/usr/bin/python3 tests/emulator/emulator.py --port-file "$tmp/port" --lifetime 900 2>/dev/null &
emu=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
/usr/bin/python3 -c 'import sys,urllib.request as u; u.urlopen(u.Request(sys.argv[1], data=b"{\"transition_ms\":10,\"snapshot_build_ms\":50}", method="POST"))' "http://127.0.0.1:$port/_emu/config"
export DAYTONA_API_URL=http://127.0.0.1:$port/api DAYTONA_API_KEY=dtn_bench
for c in ${LEVELS//,/ }; do
    for iso in session sandbox; do
        "$out/poolbench" daytona $iso "$c" $((c * PER)) "$tmp/src" || true
    done
done
