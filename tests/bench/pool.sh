#!/usr/bin/env bash
# Pool throughput (issue 14): validations/s and p50/p99 wall per
# validation at 1/4/16/64 concurrent validations through dval_pool, both
# isolation levels, on the local executor and on the emulator, and next to
# it the official SDK doing the same concurrent loop (sdk_pool.js,
# Promise.all) on an emulator of its own. For each level and isolation the
# C run and the SDK run follow each other, so both see the machine's load of
# that moment. Prints one JSON line per run to stdout (the `make bench`
# section "pool" of run.sh; report.py makes the table).
# With session isolation the libcurl floor (curl_floor.c: the same requests
# with plain libcurl, nothing else) runs between the two on a third
# emulator (POOL_FLOOR=0: not), and right after it on the same emulator the
# same requests by a thread per validation blocking in curl_easy_perform
# (FLOOR_THREADS=1, executor floor_threads: the bound of any blocking API;
# POOL_FLOOR_THREADS=0: not). POOL_ISOLATIONS="session sandbox" (default).
# Env: POOL_LEVELS=1,4,16,64 POOL_PER_LEVEL=16 (validations per concurrent
# lane; POOL_WARM_PER=16 for the warm-pool run), POOL_EXECUTORS="local emu" (default both; "local" or "emu" runs one
# side), POOL_SDK_DIR=DIR holding node_modules/@daytonaio/sdk (no SDK side
# without it), POOL_EMULATOR=PATH (an emulator.py of another checkout, to
# compare two emulators with the same clients), POOL_EMU_ROOT=DIR (where the
# emulators keep their sandboxes' files; default a directory on /dev/shm
# when writable: this machine's disk costs ~0.3 ms CPU per file created,
# which a real sandbox's file system does not charge the client's cores),
# B=build.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
LEVELS=${POOL_LEVELS:-1,4,16,64}
PER=${POOL_PER_LEVEL:-16}
EXECUTORS=${POOL_EXECUTORS:-local emu}
SDK_DIR=${POOL_SDK_DIR:-}
PY=/usr/bin/python3
EMU=${POOL_EMULATOR:-tests/emulator/emulator.py}
want() { [[ " $EXECUTORS " == *" $1 "* ]]; }
out=$B/bench
mkdir -p "$out"
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -Iinclude -o "$out/poolbench" tests/bench/poolbench.c \
    "$B/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread
cc -O2 -std=c11 -Wall -Wextra -o "$out/spawnfloor" tests/bench/spawnfloor.c
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -o "$out/curl_floor" tests/bench/curl_floor.c \
    $(pkg-config --libs libcurl jansson) -lpthread
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dval-poolbench.XXXXXX")
emus=()
cleanup() {
    for p in "${emus[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${emus[@]}"; do wait "$p" 2>/dev/null || true; done
    for g in "${cgs[@]}"; do
        for _ in 1 2 3 4 5; do rmdir "$g" 2>/dev/null && break; sleep 0.3; done
    done
    rm -rf "$tmp" ${shm_root:+"$shm_root"}
}
trap cleanup EXIT
mkdir -p "$tmp/src" "$tmp/state"
roots=$tmp
if [ -n "${POOL_EMU_ROOT:-}" ]; then roots=$POOL_EMU_ROOT
elif [ -w /dev/shm ]; then roots=$(mktemp -d /dev/shm/dval-poolbench.XXXXXX) && shm_root=$roots
fi
# the program writes one results JSON: every validation downloads it
cat >"$tmp/src/run.sh" <<'EOF'
echo '{"ok":true}' >"$DVAL_RESULTS_DIR/r.json" && echo ok
EOF
export DVAL_LOCAL_HELPER=$PWD/$B/libexec/dval-local-helper POOLBENCH_STATE=$tmp/state

# CPU ms of an emulator and everything it started: its cpuacct cgroup when
# one could be made (shells not yet reaped count too), else /proc/PID/stat
# (own + waited children)
CG=/sys/fs/cgroup/cpuacct
cgs=()
cpu_of() {
    local g=$CG/dval-poolbench-$1
    if [ -r "$g/cpuacct.usage" ]; then awk '{print $1 / 1e6}' "$g/cpuacct.usage"; return; fi
    awk '{print ($14 + $15 + $16 + $17) * 1000 / '"$(getconf CLK_TCK)"'}' "/proc/$1/stat"
}
cg_join() {
    local g=$CG/dval-poolbench-$1
    mkdir "$g" 2>/dev/null && echo "$1" >"$g/cgroup.procs" 2>/dev/null && cgs+=("$g") && return
    rmdir "$g" 2>/dev/null || true
}

# run EMU_PID CMD...: the command's JSON line with the emulator's CPU per
# validation over the whole run added (setup and the warm-up validation
# included, so divided by N + 1: the server's share of the machine), and
# the client process's voluntary / involuntary context switches per
# validation likewise (/usr/bin/time, when there is one)
TIME=$(command -v /usr/bin/time || true)
run() {
    local pid=$1 c0 line cs=""
    shift
    c0=$(cpu_of "$pid")
    rm -f "$tmp/time"
    line=$(${TIME:+$TIME -f "%w %c" -o "$tmp/time"} "$@") || true
    [ -n "$line" ] || return 0
    [ -s "$tmp/time" ] && cs=$(tail -1 "$tmp/time")
    $PY -c 'import json,sys; d=json.loads(sys.argv[1]); n=d["validations"]+1; d["emu_cpu_ms_per_validation"]=round((float(sys.argv[3])-float(sys.argv[2]))/n,2)
cs=sys.argv[4].split()
if len(cs)==2: d["proc_vol_cs_per_validation"],d["proc_invol_cs_per_validation"]=(round(int(x)/n,2) for x in cs)
print(json.dumps(d))' \
        "$line" "$c0" "$(cpu_of "$pid")" "$cs"
}

# start_emu NAME: an emulator (transition 10 ms) living at most 1800 s;
# sets emu_base, emu_pid
start_emu() {
    local pf=$tmp/$1.port
    $PY "$EMU" --port-file "$pf" --lifetime 1800 --root "$roots/$1.root" \
        2>"$tmp/$1.log" &
    emu_pid=$!
    emus+=("$emu_pid")
    cg_join "$emu_pid"
    for _ in $(seq 150); do [ -s "$pf" ] && break; sleep 0.1; done
    [ -s "$pf" ] || { cat "$tmp/$1.log" >&2; echo "pool.sh: emulator did not start" >&2; exit 1; }
    emu_base="http://127.0.0.1:$(cat "$pf")"
    $PY -c 'import sys,urllib.request as u; u.urlopen(u.Request(sys.argv[1], data=b"{\"transition_ms\":10,\"snapshot_build_ms\":50}", method="POST"))' \
        "$emu_base/_emu/config"
}

if want local; then
    # the machine's own floor first: process creations/s by one spawner and
    # by one per core at once (does starting processes scale here?)
    "$out/spawnfloor" 300 1 || true
    [ "$(nproc)" -le 1 ] || "$out/spawnfloor" 300 "$(nproc)" || true
    for c in ${LEVELS//,/ }; do
        for iso in session sandbox; do
            "$out/poolbench" local $iso "$c" $((c * PER)) "$tmp/src" || true
        done
    done
    # the steady state of a long-running pool at the top level: every
    # slot's sandbox made before the window, then recycled (reset) only
    top=${LEVELS##*,}
    POOLBENCH_WARM=1 "$out/poolbench" local sandbox "$top" \
        $((top * ${POOL_WARM_PER:-16})) "$tmp/src" || true
    # a soak: one sandbox reset after every validation for a while (its
    # first and last tenth's rates side by side: the layer's allocations
    # must not slow down as the resets' freed inodes pile up)
    [ "${POOL_SOAK:-6000}" -gt 0 ] && POOLBENCH_WARM=1 "$out/poolbench" \
        local sandbox 1 "${POOL_SOAK:-6000}" "$tmp/src" || true
fi
want emu || exit 0
start_emu pool_c; base_c=$emu_base pid_c=$emu_pid
sdk=0
if [ -n "$SDK_DIR" ] && [ -f "$SDK_DIR/node_modules/@daytonaio/sdk/package.json" ]; then
    start_emu pool_sdk; base_sdk=$emu_base pid_sdk=$emu_pid sdk=1
else
    echo "pool.sh: no SDK (POOL_SDK_DIR): the C side only" >&2
fi
# the libcurl floor (curl_floor.c): the same requests with plain libcurl,
# on an emulator of its own, after the C run of each session level
floor=0
if [ "${POOL_FLOOR:-1}" = 1 ]; then
    start_emu pool_floor; base_floor=$emu_base pid_floor=$emu_pid floor=1
fi
for c in ${LEVELS//,/ }; do
    for iso in ${POOL_ISOLATIONS:-session sandbox}; do
        DAYTONA_API_URL=$base_c/api DAYTONA_API_KEY=dtn_bench POOLBENCH_EMU=$base_c \
            run "$pid_c" "$out/poolbench" daytona $iso "$c" $((c * PER)) "$tmp/src"
        if [ $floor = 1 ] && [ $iso = session ]; then
            run "$pid_floor" "$out/curl_floor" "$base_floor" "$c" $((c * PER))
            if [ "${POOL_FLOOR_THREADS:-1}" = 1 ]; then
                run "$pid_floor" env FLOOR_THREADS=1 "$out/curl_floor" "$base_floor" \
                    "$c" $((c * PER))
            fi
        fi
        [ $sdk = 1 ] || continue
        run "$pid_sdk" env -u DAYTONA_API_KEY -u DAYTONA_API_URL -u DAYTONA_TARGET \
            -u DAYTONA_JWT_TOKEN -u DAYTONA_ORGANIZATION_ID \
            node tests/bench/sdk_pool.js "$base_sdk" $iso "$c" $((c * PER)) "$SDK_DIR"
    done
done
for l in "$tmp"/*.log; do
    if grep -q Traceback "$l"; then echo "pool.sh: emulator errors in $(basename "$l"):" >&2; cat "$l" >&2; fi
done
