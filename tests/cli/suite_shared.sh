#!/usr/bin/env bash
# Two CLI processes on one profile's shared sandbox at once (issue 40):
# whichever finishes first must not delete or stop the sandbox the other
# still runs in; the last one out applies the release policy. On the
# local executor and on the emulator (Daytona's session list).
# Last line: "N passed, N failed, N skipped".
. "$(dirname "$0")/common.sh" dval-shared

mkdir -p "$T/short" "$T/long" "$T/state"
cat >"$T/short/run.sh" <<'EOS'
mkdir -p $DVAL_RESULTS_DIR; echo '{"who":"short"}' > $DVAL_RESULTS_DIR/r.json
echo short done
EOS
cat >"$T/long/run.sh" <<'EOS'
echo long started
sleep 3
mkdir -p $DVAL_RESULTS_DIR; echo '{"who":"long"}' > $DVAL_RESULTS_DIR/r.json
echo long done
EOS

# pair TAG POLICY ARGS...: the long run starts, the short one runs and
# ends while the long one sleeps; both must pass
pair() {
    local tag=$1 policy=$2; shift 2
    # the shared sandbox exists before, as a pipeline's would
    "$CLI" run "$@" --profile shell --release keep "$T/short" >/dev/null 2>&1 </dev/null
    "$CLI" run "$@" --profile shell --release "$policy" "$T/long" \
        >"$T/$tag-long.out" 2>"$T/$tag-long.err" </dev/null &
    local lpid=$!
    for _ in $(seq 100); do grep -q 'long started' "$T/$tag-long.out" 2>/dev/null && break; sleep 0.1; done
    "$CLI" run "$@" --profile shell --release "$policy" "$T/short" \
        >"$T/$tag-short.out" 2>"$T/$tag-short.err" </dev/null
    local src=$?
    wait $lpid
    local lrc=$?
    # once: a re-run on a fresh sandbox would mean it was taken away
    if [ $src = 0 ] && [ $lrc = 0 ] && grep -q '"who": "long"' "$T/$tag-long.out" &&
       [ "$(grep -c 'long started' "$T/$tag-long.out")" = 1 ]; then
        ok "$tag: --release $policy: the first to finish leaves the other's sandbox alone"
    else
        bad "$tag: --release $policy (short rc $src, long rc $lrc)" \
            "$(cat "$T/$tag-short.err" "$T/$tag-long.out" "$T/$tag-long.err")"
    fi
    # the last one out applied the policy: no shell sandbox is left running
    local left
    left=$("$CLI" sandbox ls "$@" 2>&1 | grep -E '^shell-sandbox.* started' || true)
    if [ -z "$left" ]; then
        ok "$tag: --release $policy: the last one out applied it"
    else
        bad "$tag: --release $policy: the sandbox is still running" "$left"
    fi
}

L=(--executor local --state-dir "$T/state")
pair local delete "${L[@]}"
pair local stop "${L[@]}"

if "$PY" -c 'import aiohttp' 2>/dev/null; then
    "$PY" tests/emulator/emulator.py --port-file "$T/port" --lifetime 600 2>"$T/emu.log" &
    EMU_PID=$!
    for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.1; done
    PORT=$(cat "$T/port")
    "$PY" -c 'import sys,urllib.request as u; u.urlopen(u.Request(sys.argv[1], data=b"{\"transition_ms\":10,\"snapshot_build_ms\":50}", method="POST"))' "http://127.0.0.1:$PORT/_emu/config"
    export DAYTONA_API_URL=http://127.0.0.1:$PORT/api DAYTONA_API_KEY=dtn_shared
    pair emulator delete --executor daytona
    pair emulator stop --executor daytona
else
    skipped "emulator pairs" "python3-aiohttp missing"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
