#!/usr/bin/env bash
# `make bench`: side-by-side performance figures of libdaytona-validate.
# Builds the bench programs against $B/lib (the Makefile does not), starts
# its own emulators on 127.0.0.1 (bounded lifetime, killed on exit), runs
# the benchmarks, prints a table and writes $B/bench/report.json.
#
# Sizes (env): BENCH_LOOP_N=200 (validation loops per client),
# BENCH_LAT_LINES=1000 BENCH_LAT_US=1000 (log latency lines, interval),
# BENCH_LOCAL_N=50 (acquires; exec `true` runs 4x that),
# BENCH_SCALE_LEVELS=1,4,16,64 BENCH_SCALE_LOOPS=3 (loops per thread),
# BENCH_XFER_MIB=256 BENCH_XFER_REPS=2, BENCH_SERIAL=1 (run the C and SDK
# loops one after the other instead of at the same time),
# BENCH_JAVA_N=30 BENCH_JAVA_COLD=5 (java time to verdict: warm runs,
# cold processes), BENCH_POOL_LEVELS=1,4,16,64 BENCH_POOL_PER_LEVEL=16
# BENCH_POOL_EXECUTORS="local emu" (pool throughput, C and SDK),
# BENCH_PULL_REPS=3 (registry pull + unpack, library vs skopeo + umoci),
# BENCH_DOTNET_N=30 BENCH_DOTNET_COLD=5 (C# time to verdict: warm runs,
# cold sandboxes), BENCH_DB_N=30 (database services: provisions, validations),
# BENCH_ONLY="loop latency local scale xfer java pool pull corpus dotnet db batch" (subset).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
B=${B:-build}
out=$B/bench
mkdir -p "$out"
out=$(cd "$out" && pwd)
N_LOOP=${BENCH_LOOP_N:-200}
LAT_LINES=${BENCH_LAT_LINES:-1000}
LAT_US=${BENCH_LAT_US:-1000}
LOCAL_N=${BENCH_LOCAL_N:-50}
SCALE_LEVELS=${BENCH_SCALE_LEVELS:-1,4,16,64}
SCALE_LOOPS=${BENCH_SCALE_LOOPS:-3}
XFER_MIB=${BENCH_XFER_MIB:-256}
export BENCH_XFER_REPS=${BENCH_XFER_REPS:-2}
ONLY=${BENCH_ONLY:-loop latency local scale xfer java pool pull corpus dotnet db batch}
PY=/usr/bin/python3
want() { [[ " $ONLY " == *" $1 "* ]]; }
say() { echo "bench: $*" >&2; }

# ---- build (against the static library of $B)
[ -f "$B/lib/libdaytona-validate.a" ] || { say "build $B first (make B=$B all)"; exit 1; }
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -Iinclude -Ilib -o "$out/dvbench" "$here/dvbench.c" \
    "$B/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread
cc -O2 -Wall -o "$out/printer" "$here/printer.c"
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -o "$out/dvfloor" "$here/floor.c" $(pkg-config --libs libcurl)
export DVAL_LOCAL_HELPER=$root/$B/libexec/dval-local-helper
[ -x "$DVAL_LOCAL_HELPER" ] || DVAL_LOCAL_HELPER=$(cd "$B/libexec" && pwd)/dval-local-helper

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dval-bench.XXXXXX")
state=$tmp/state
emu_pids=()
cleanup() {
    for p in "${emu_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${emu_pids[@]}"; do wait "$p" 2>/dev/null || true; done
    # init processes of local sandboxes a failed run left behind
    for f in "$state"/sandboxes/*/state; do
        [ -f "$f" ] || continue
        p=$(sed -n 's/^pid=//p' "$f")
        [ -n "$p" ] && [ "$p" -gt 0 ] && kill -9 "$p" 2>/dev/null || true
    done
    # a snapshot's shared services' tmpfs (lib/executor/local/services.c;
    # a snapshot delete unmounts it): its services host ends once the
    # directory is gone
    awk -v t="$tmp/" 'index($2, t) == 1 { print $2 }' /proc/mounts |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_emu NAME: an emulator living at most 900 s; sets $emu_base
start_emu() {
    local pf=$tmp/$1.port
    $PY tests/emulator/emulator.py --port-file "$pf" --lifetime 900 --root "$tmp/$1.root" \
        2>"$tmp/$1.log" &
    emu_pids+=($!)
    for _ in $(seq 1 150); do [ -s "$pf" ] && break; sleep 0.1; done
    [ -s "$pf" ] || { cat "$tmp/$1.log" >&2; say "emulator $1 did not start"; exit 1; }
    emu_base="http://127.0.0.1:$(cat "$pf")"
}

# the official SDK: the conformance suite's install, else our own (same pin)
sdk_dir=""
if command -v node >/dev/null; then
    for d in tests/conformance tests/bench; do
        if [ -f "$d/node_modules/@daytonaio/sdk/package.json" ] &&
           grep -q '"version": "0.218.0"' "$d/node_modules/@daytonaio/sdk/package.json"; then
            sdk_dir=$root/$d; break
        fi
    done
    if [ -z "$sdk_dir" ] && { want loop || want pool; }; then
        say "installing @daytonaio/sdk 0.218.0 into tests/bench/node_modules"
        if (cd "$here" && timeout 300 npm install --no-audit --no-fund --no-save \
                >"$tmp/npm.log" 2>&1); then
            sdk_dir=$here
        else
            tail -n 5 "$tmp/npm.log" >&2; say "SDK unavailable: loop runs C only"
        fi
    fi
fi

res=$out/results
rm -rf "$res"
mkdir -p "$res"
echo "{\"date\":\"$(date -u +%FT%TZ)\",\"host\":\"$(uname -srm)\",\"nproc\":$(nproc),\"libcurl\":\"$(pkg-config --modversion libcurl)\",\"node\":\"$(node --version 2>/dev/null || echo none)\",\"git\":\"$(git rev-parse --short HEAD 2>/dev/null || echo ?)\"}" >"$res/meta.json"

# ---- 1. client overhead per validation loop (C and SDK side by side)
if want loop; then
    start_emu loop_c; base_c=$emu_base
    start_emu loop_sdk; base_sdk=$emu_base
    say "1. validation loop x$N_LOOP: C library vs @daytonaio/sdk (about $((N_LOOP * 11 / 10)) s)"
    # C side, on its own emulator: the floor client (the same requests back
    # to back) just before and just after the library's loop, N/2 each, so
    # both see the machine's load of that moment
    half=$(( (N_LOOP + 1) / 2 ))
    c_side() {
        "$out/dvbench" rusage "$res/loop_floor.rusage.json" "$out/dvfloor" "$base_c" "$half" \
            >"$res/loop_floor.json" || say "floor client failed"
        "$out/dvbench" rusage "$res/loop_c.rusage.json" "$out/dvbench" loop "$base_c" "$N_LOOP" \
            >"$res/loop_c.json" || return 1
        "$out/dvbench" rusage "$res/loop_floor2.rusage.json" "$out/dvfloor" "$base_c" "$half" \
            >"$res/loop_floor2.json" || say "floor client failed"
    }
    sdk_side() {
        [ -n "$sdk_dir" ] || return 0
        "$out/dvbench" rusage "$res/loop_sdk.rusage.json" env -u DAYTONA_API_KEY \
            -u DAYTONA_API_URL -u DAYTONA_TARGET -u DAYTONA_JWT_TOKEN \
            -u DAYTONA_ORGANIZATION_ID node "$here/sdk_loop.js" "$base_sdk" "$N_LOOP" "$sdk_dir" \
            >"$res/loop_sdk.json" || say "SDK loop failed"
    }
    if [ "${BENCH_SERIAL:-0}" = 1 ]; then
        c_side || { say "C loop failed"; exit 1; }
        sdk_side
    else
        # the SDK loop (about 1 s per loop) runs meanwhile; its start-up
        # (node, module loading) is left out of the C side's window
        sdk_side &
        sdk_pid=$!
        sleep 5
        c_side || { say "C loop failed"; exit 1; }
        wait $sdk_pid
    fi
    "$out/dvbench" rssfloor >"$res/rss_floor.json"
fi

# ---- 2. log latency (local executor, emulator)
if want latency; then
    say "2. log latency: $LAT_LINES lines every $LAT_US us"
    "$out/dvbench" latency local "$state" "$out/printer" "$LAT_LINES" "$LAT_US" \
        >"$res/latency_local.json" || say "local latency failed (isolation?)"
    start_emu lat; base_lat=$emu_base
    "$out/dvbench" latency emu "$base_lat" "$out/printer" "$LAT_LINES" "$LAT_US" \
        >"$res/latency_emu.json"
fi

# ---- 3. local executor: acquire, exec true, floors
if want local; then
    say "3. local executor: $LOCAL_N acquires, $((LOCAL_N * 4)) execs, floors"
    "$out/dvbench" local "$state" "$DVAL_LOCAL_HELPER" "$LOCAL_N" >"$res/local.json" ||
        say "local executor bench failed (isolation?)"
fi

# ---- 4. scaling
if want scale; then
    say "4. scaling: $SCALE_LEVELS concurrent sessions x $SCALE_LOOPS loops"
    start_emu scale; base_scale=$emu_base
    "$out/dvbench" scale emu "$base_scale" "$SCALE_LEVELS" "$SCALE_LOOPS" >"$res/scale_emu.json"
    "$out/dvbench" scale local "$state" "$SCALE_LEVELS" "$SCALE_LOOPS" >"$res/scale_local.json" ||
        say "local scaling failed (isolation?)"
fi

# ---- 5. transfers
if want xfer; then
    say "5. transfer: ${XFER_MIB} MiB up and down, library vs curl"
    start_emu xfer; base_xfer=$emu_base
    head -c $((XFER_MIB * 1048576)) /dev/urandom >"$tmp/big.bin"
    "$out/dvbench" xfer "$base_xfer" "$tmp/big.bin" >"$res/xfer.json"
    rm -f "$tmp/big.bin"
fi

# ---- 6. java time to verdict (local executor; compile service vs javac)
if want java; then
    JAVA_N=${BENCH_JAVA_N:-30} JAVA_COLD=${BENCH_JAVA_COLD:-5}
    say "6. java time to verdict: $JAVA_COLD cold, $JAVA_N warm (service, javac), plain javac"
    "$here/java.sh" "$B" "$out" "$state" "$res" "$JAVA_N" "$JAVA_COLD" ||
        say "java bench failed (isolation? JDK?)"
fi

# ---- 9. the Java corpus: byte-exact with plain java, both isolations
if want corpus; then
    say "9. java corpus: plain, session, sandbox, host javac + java, 4 at a time"
    "$here/corpus.sh" "$B" "$state" "$res" || say "corpus bench failed (isolation? root?)"
fi

# ---- 7. pool throughput (C pool and SDK side by side, tests/bench/pool.sh)
if want pool; then
    say "7. pool: ${BENCH_POOL_LEVELS:-1,4,16,64} concurrent validations, both isolation levels"
    B=$B POOL_LEVELS=${BENCH_POOL_LEVELS:-1,4,16,64} POOL_PER_LEVEL=${BENCH_POOL_PER_LEVEL:-16} \
        POOL_EXECUTORS=${BENCH_POOL_EXECUTORS:-local emu} POOL_SDK_DIR=$sdk_dir TMPDIR=$tmp \
        "$here/pool.sh" >"$res/pool.jsonl" || say "pool bench failed"
fi

# ---- 8. registry pull + unpack (library vs skopeo + umoci, tests/bench/pull.sh)
if want pull; then
    say "8. pull + unpack of a 3-layer image from a local registry: library vs skopeo + umoci"
    TMPDIR=$tmp "$here/pull.sh" "$B" "$out" "$res" "${BENCH_PULL_REPS:-3}" >/dev/null ||
        say "pull bench failed (isolation? docker-registry, skopeo, umoci?)"
fi

# ---- 10. C# time to verdict (local executor; compile service vs dotnet build)
if want dotnet; then
    say "10. C# time to verdict: service, full build, plain dotnet build && run, cold"
    "$here/dotnet.sh" "$B" "$out" "$state" "$res" "${BENCH_DOTNET_N:-30}" \
        "${BENCH_DOTNET_COLD:-5}" || say "dotnet bench failed (isolation? .NET SDK?)"
fi

# ---- 11. database services (tests/bench/db.sh)
if want db; then
    say "11. database services: a fresh database per validation, the service's start"
    "$here/db.sh" "$B" "$out" "$state" "$res" "${BENCH_DB_N:-30}" ||
        say "db bench failed (isolation? root?)"
fi

# ---- 12. a batch of N equal programs on N slots (tests/bench/batch.sh)
if want batch; then
    say "12. batch: 6 programs of 3 s on 6 slots (run --jobs 6), cold and warm"
    TMPDIR=$tmp "$here/batch.sh" "$B" "$state" "$res" 6 3 3 ||
        say "batch bench failed (isolation? root?)"
fi

for l in "$tmp"/*.log; do
    [ -f "$l" ] || continue   # no emulator of this script ran (BENCH_ONLY)
    if grep -q Traceback "$l"; then say "emulator errors in $(basename "$l"):"; cat "$l" >&2; fi
done
$PY "$here/report.py" "$res" "$out/report.json"
