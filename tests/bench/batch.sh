#!/usr/bin/env bash
# Section 12 of `make bench` (BENCH_ONLY=batch): a batch of N equal
# programs on N slots (the CLI's `run --jobs N`, shared isolation), each
# sleeping S seconds: its wall should be about one program's time plus
# the sandbox starts, not N of them (issue 40: 6 x 3 s on 6 slots within
# 3.8 s warm). One cold batch on a fresh state directory, then warm ones.
# Usage: batch.sh B STATE RESULTS [N] [SECONDS] [WARM_RUNS]. Writes
# RESULTS/batch.json.
set -euo pipefail
B=$1 state=$2 res=$3 n=${4:-6} secs=${5:-3} warm=${6:-3}
cli=$B/bin/daytona-validate
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
src=$(mktemp -d "${TMPDIR:-/tmp}/dval-batch.XXXXXX")
trap 'rm -rf "$src"' EXIT
dirs=()
for i in $(seq 1 "$n"); do
    mkdir -p "$src/p$i"
    printf 'sleep %s\nmkdir -p "$DVAL_RESULTS_DIR"; echo "{\\"i\\":%d}" > "$DVAL_RESULTS_DIR/r.json"\n' \
        "$secs" "$i" >"$src/p$i/run.sh"
    dirs+=("$src/p$i")
done
batch_ms() {
    local t0 t1
    t0=$(date +%s%N)
    "$cli" run --executor local --state-dir "$state/batch" --profile shell --jobs "$n" \
        --json "${dirs[@]}" >"$src/out.jsonl" 2>"$src/err.log" </dev/null ||
        { echo "batch failed:" >&2; tail -n 5 "$src/err.log" >&2; return 1; }
    t1=$(date +%s%N)
    [ "$(grep -c '"verdict":"passed"' "$src/out.jsonl")" = "$n" ] ||
        { echo "not all passed" >&2; return 1; }
    echo $(( (t1 - t0) / 1000000 ))
}
cold=$(batch_ms)
w=()
for _ in $(seq 1 "$warm"); do w+=("$(batch_ms)"); done
printf '{"n":%d,"seconds":%s,"cold_ms":%s,"warm_ms":[%s]}\n' "$n" "$secs" "$cold" \
    "$(IFS=,; echo "${w[*]}")" >"$res/batch.json"
"$cli" sandbox rm --all --executor local --state-dir "$state/batch" >/dev/null 2>&1 || true
