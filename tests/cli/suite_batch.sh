#!/usr/bin/env bash
# The batch form of `daytona-validate run` (several DIRs, --jobs,
# --isolation) end to end on the local executor and on the emulator: the
# summary table, JSON Lines, prefixed whole lines, the exit status, and a
# hostile folder that rewrites the others' results (it succeeds with
# --isolation session - the attack is real - and fails with sandbox).
# Last line: "N passed, N failed, N skipped".
. "$(dirname "$0")/common.sh" dval-batch

mkdir -p "$T/a" "$T/b" "$T/hostile" "$T/failing" "$T/state"
for d in a b; do
    cat >"$T/$d/run.sh" <<EOS
echo start $d
mkdir -p \$DVAL_RESULTS_DIR; echo '{"mine":"$d"}' > \$DVAL_RESULTS_DIR/r.json
sleep 1
echo end $d
EOS
done
cat >"$T/hostile/run.sh" <<'EOS'
mkdir -p $DVAL_RESULTS_DIR; echo '{}' > $DVAL_RESULTS_DIR/h.json
i=0; while [ $i -lt 15 ]; do for d in /sandbox/*/results; do [ "$d" = "$DVAL_RESULTS_DIR" ] || echo '"pwned"' > $d/r.json 2>/dev/null; done; sleep 0.1; i=$((i+1)); done
EOS
printf 'echo going to fail\nexit 3\n' >"$T/failing/run.sh"

# batch EXECUTOR-ARGS...: the three folders, table and JSON Lines
batch() {
    local tag=$1; shift
    for iso in session sandbox; do
        timeout 300 "$CLI" run "$@" --profile shell --jobs 3 --isolation $iso \
            "$T/a" "$T/b" "$T/hostile" >"$T/$tag-$iso.out" 2>"$T/$tag-$iso.err" </dev/null
        echo $? >"$T/$tag-$iso.rc"
        timeout 300 "$CLI" run "$@" --profile shell --jobs 3 --isolation $iso --json \
            "$T/a" "$T/b" "$T/hostile" >"$T/$tag-$iso.jsonl" 2>/dev/null </dev/null
    done
    local o=$T/$tag-sandbox
    if [ "$(cat "$o.rc")" = 0 ] && grep -q '^FOLDER  *VERDICT  *EXIT CODE  *WALL MS' "$o.out" &&
       grep -Eq '^a +passed +0 +[0-9]+' "$o.out" && grep -q '^\[a\] start a$' "$o.out" &&
       grep -q '^\[b\] end b$' "$o.out"; then
        ok "$tag: table, prefixed whole lines, exit 0"
    else
        bad "$tag: table" "$(cat "$o.out" "$o.err")"
    fi
    local n
    n=$("$PY" -c 'import json,sys; d=[json.loads(l) for l in open(sys.argv[1])]; print(len(d), sum(1 for x in d if x["schema"]=="daytona-validate-run/2" and x["ok"]))' "$o.jsonl")
    [ "$n" = "3 3" ] && ok "$tag: --json gives 3 run documents, one per line" || bad "$tag: json lines" "$n $(cat "$o.jsonl")"
    # each line says which folder it is (as given, absolute, its index),
    # its thread id, and what the program printed
    if "$PY" - "$o.jsonl" "$T" <<'EOP'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
by = {d["index"]: d for d in docs}
for i, name in enumerate(["a", "b", "hostile"]):
    d = by[i]
    assert d["folder"] == sys.argv[2] + "/" + name, d
    assert d["folder_path"] == sys.argv[2] + "/" + name, d
    assert d["thread_id"], d
    if name != "hostile":
        assert d["stdout"] == "start %s\nend %s\n" % (name, name), d
        assert d["output_truncated"] is False, d
assert len({d["thread_id"] for d in docs}) == 3
EOP
    then ok "$tag: --json lines name folder, index, thread id and carry stdout"
    else bad "$tag: json line fields" "$(cat "$o.jsonl")"
    fi
    if grep -q '"mine":"b"' "$o.jsonl" && grep -q '"mine":"a"' "$o.jsonl" && ! grep -q pwned "$o.jsonl"; then
        ok "$tag: --isolation sandbox: the hostile folder cannot touch the others' results"
    else
        bad "$tag: isolation sandbox" "$(cat "$o.jsonl")"
    fi
    # damaged: rewritten ("pwned") or caught half-written (invalid). The
    # local executor gives each working directory its own uid, so even a
    # shared sandbox keeps the attack out; the emulator (like Daytona)
    # runs every session as one user, so there the attack works.
    local intact=0
    grep -q '"mine":"a"' "$T/$tag-session.jsonl" && grep -q '"mine":"b"' "$T/$tag-session.jsonl" &&
        ! grep -q pwned "$T/$tag-session.jsonl" && intact=1
    if [ "$tag" = local ] && [ $intact = 1 ]; then
        ok "$tag: --isolation session: per-validation uids keep the attack out of a shared sandbox"
    elif [ "$tag" != local ] && [ $intact = 0 ]; then
        ok "$tag: --isolation session: the same attack works (it is real)"
    else
        bad "$tag: isolation session, results intact=$intact" "$(cat "$T/$tag-session.jsonl")"
    fi
    timeout 300 "$CLI" run "$@" --profile shell --jobs 2 "$T/a" "$T/failing" >"$T/$tag-f.out" 2>"$T/$tag-f.err" </dev/null
    local rc=$?
    if [ $rc = 1 ] && grep -Eq '^failing +runtime_error +3 ' "$T/$tag-f.out" && grep -q '^\[failing\] going to fail$' "$T/$tag-f.out"; then
        ok "$tag: a failing folder: exit 1, its verdict and exit code in the table"
    else
        bad "$tag: failing folder (rc $rc)" "$(cat "$T/$tag-f.out" "$T/$tag-f.err")"
    fi
}

# one DIR keeps the single-run contract: program output as it comes (no
# prefix, no table), the results JSON after it
out=$("$CLI" run --executor local --state-dir "$T/state" --profile shell --results "$T/one.json" "$T/a" 2>/dev/null)
rc=$?
if [ $rc = 0 ] && [ "$out" = "$(printf 'start a\nend a')" ] &&
   "$PY" -c 'import json,sys; assert json.load(open(sys.argv[1]))=={"r.json":{"mine":"a"}}' "$T/one.json" 2>/dev/null; then
    ok "one DIR: unprefixed output, no table, the results file as before"
else
    bad "one DIR contract (rc $rc)" "$out"
fi
"$CLI" run --profile shell --thread x "$T/a" "$T/b" >/dev/null 2>"$T/thr.err"
[ $? = 64 ] && ok "several DIRs refuse --thread (64)" || bad "--thread with several DIRs" "$(cat "$T/thr.err")"
"$CLI" run --profile shell --jobs 0 "$T/a" "$T/b" >/dev/null 2>&1
[ $? = 64 ] && ok "--jobs 0 refused (64)" || bad "--jobs 0"

batch local --executor local --state-dir "$T/state"

# Ctrl-C with --json: one run document per folder, also for the folders
# the interrupt kept from starting (they had none)
mkdir -p "$T/slow"; printf 'echo slow\nsleep 30\n' >"$T/slow/run.sh"
"$CLI" run --executor local --state-dir "$T/state" --profile shell --jobs 1 --json \
    "$T/slow" "$T/a" "$T/b" >"$T/intr.jsonl" 2>"$T/intr.err" </dev/null &
cpid=$!
for _ in $(seq 100); do grep -q '\[slow\] slow' "$T/intr.err" 2>/dev/null && break; sleep 0.1; done
sleep 0.5; kill -INT $cpid; wait $cpid; rc=$?
n=$("$PY" -c 'import json,sys; d=[json.loads(l) for l in open(sys.argv[1])]; print(len(d), sorted(x["status"] for x in d))' "$T/intr.jsonl" 2>&1)
[ $rc = 130 ] && [ "$n" = "3 ['interrupted', 'interrupted', 'interrupted']" ] &&
    ok "Ctrl-C with --json: exit 130, a run document for every folder, started or not" ||
    bad "Ctrl-C with --json (rc $rc)" "$n $(cat "$T/intr.jsonl" "$T/intr.err")"

if "$PY" -c 'import aiohttp' 2>/dev/null; then
    "$PY" tests/emulator/emulator.py --port-file "$T/port" --lifetime 600 2>"$T/emu.log" &
    EMU_PID=$!
    for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.1; done
    PORT=$(cat "$T/port")
    "$PY" -c 'import sys,urllib.request as u; u.urlopen(u.Request(sys.argv[1], data=b"{\"transition_ms\":10,\"snapshot_build_ms\":50}", method="POST"))' "http://127.0.0.1:$PORT/_emu/config"
    export DAYTONA_API_URL=http://127.0.0.1:$PORT/api DAYTONA_API_KEY=dtn_batch
    batch emulator --executor daytona
    # the batch's pool left its shared sandbox (release keep): reap finds
    # it by the pool label
    before=$("$CLI" sandbox ls --executor daytona 2>&1)
    "$CLI" reap --executor daytona --pool pool-shell >"$T/reap.out" 2>&1
    rc=$?
    after=$("$CLI" sandbox ls --executor daytona 2>&1)
    if [ $rc = 0 ] && grep -Eq '^pool-shell-0 ' <<<"$before" && ! grep -Eq '^pool-shell-0 ' <<<"$after"; then
        ok "reap --pool deletes the pool's sandboxes"
    else
        bad "reap (rc $rc)" "$before
--
$(cat "$T/reap.out")
--
$after"
    fi
else
    skipped "emulator batch" "python3-aiohttp missing"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
