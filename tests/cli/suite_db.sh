#!/usr/bin/env bash
# `daytona-validate run --service ... --seed ...` end to end on the local
# executor (issue 41): the Java and C# samples' query loops against a
# fresh seeded database, the connection never in the transcript or the
# CLI's own output, argument mistakes found before any work, and a
# service failure explained as the infrastructure's. The snapshots are
# kept in the local suites' state directory ($DVAL_LOCAL_TEST_ROOT/db,
# tests/local/db.h), so a run after them builds nothing.
# Last line: "N passed, N failed, N skipped".
. "$(dirname "$0")/common.sh" dval-clidb

S=${DVAL_LOCAL_TEST_ROOT:-/tmp/dval-local-tests}/db
SEEDS=(--seed examples/validation/db/schema.sql --seed examples/validation/db/data.sql)
if [ "$(id -u)" != 0 ]; then
    skipped "database services" "they run only where sandboxes switch to the services' uid (root)"
    echo "$pass passed, $fail failed, $skip skipped"; exit 0
fi
mkdir -p "$S"

# sample PROFILE DIR SERVICES...: the query loop, results checked
sample() {
    local profile=$1 dir=$2; shift 2
    local svc=() s
    for s in "$@"; do svc+=(--service "$s"); done
    timeout 600 "$CLI" run --executor local --state-dir "$S" --profile "$profile" \
        "${svc[@]}" "${SEEDS[@]}" --results "$T/r.json" "$dir" >"$T/s.out" 2>"$T/s.err" </dev/null
    local rc=$?
    if [ $rc = 0 ] && grep -q 'top customer Grace' "$T/s.out" &&
       "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))["results.json"]; assert d["top_customer"]["total_cents"] == 61100 and d["orders_after_insert"] == 8' "$T/r.json"; then
        ok "$profile $dir --service $*: the query loop's results"
    else
        bad "$profile $dir --service $*" "exit $rc $(tail -n 20 "$T/s.out" "$T/s.err")"
    fi
}
sample java examples/validation/java-jdbc-db postgres sqlite
sample java examples/validation/java-jdbc-db sqlite postgres
if command -v dotnet >/dev/null 2>&1; then
    sample dotnet examples/validation/dotnet-efcore-db postgres sqlite
    sample dotnet examples/validation/dotnet-dapper-db sqlite postgres
else
    skipped "C# samples" "no .NET SDK on this host"
fi

# The connection is made in the sandbox: the program may publish it (here
# in its results), nothing of the CLI's own does - its transcript, its
# progress and library logs.
mkdir -p "$T/leak"
cat >"$T/leak/run.sh" <<'EOS'
mkdir -p "$DVAL_RESULTS_DIR"
printf '{"pw":"%s"}\n' "$DVAL_DB_PASSWORD" > "$DVAL_RESULTS_DIR/r.json"
echo "connected as $DVAL_DB_USER"
EOS
"$CLI" run --executor local --state-dir "$S" --profile shell --service postgres --service sqlite \
    "${SEEDS[@]}" --thread "clidb-leak-$$" --verbose --results "$T/leak.json" "$T/leak" \
    >"$T/leak.out" 2>"$T/leak.err" </dev/null
pw=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["r.json"]["pw"])' "$T/leak.json" 2>/dev/null)
log=$S/cli-runs/clidb-leak-$$.log
if [ ${#pw} -ge 32 ] && [ -f "$log" ] && grep -q 'connected as v_' "$log" &&
   ! grep -qF "$pw" "$log" "$T/leak.out" "$T/leak.err"; then
    ok "the password reaches the program only: not in the transcript, output or --verbose logs"
else
    bad "the connection in a log" "pw=${#pw} chars; $(grep -lF "${pw:-none}" "$log" "$T/leak.out" "$T/leak.err" 2>&1)"
fi
rm -f "$log"

# mistakes, before any work
expect() { # NAME STATUS PATTERN ARGS...
    local name=$1 want=$2 pat=$3; shift 3
    "$CLI" run --executor local --state-dir "$T/state" --profile shell "$@" "$T/leak" \
        >"$T/e.out" 2>"$T/e.err" </dev/null
    local rc=$?
    if [ $rc = "$want" ] && grep -q -e "$pat" "$T/e.err"; then ok "$name: exit $want"
    else bad "$name" "exit $rc $(cat "$T/e.err")"; fi
}
expect "an unknown service" 64 'unknown service "mongodb"' --service mongodb
expect "a seed that is not there" 66 'seed /nonexistent.sql' --service postgres --seed /nonexistent.sql
expect "a seed without a service" 64 '--seed without --service' --seed examples/validation/db/schema.sql

# what the services' wrapper prints when a service fails: an
# infrastructure error (70), not the program's failure. The line is
# printed here by the program itself, under the services' wraps: there
# the run's words are believed (the wraps run before and after it).
mkdir -p "$T/infra"
printf 'echo "dval: infrastructure: postgres: the service stopped (during the validation)" >&2\nexit 70\n' \
    >"$T/infra/run.sh"
"$CLI" run --executor local --state-dir "$S" --profile shell --service postgres --service sqlite \
    "${SEEDS[@]}" --allow-missing-results --json \
    "$T/infra" >"$T/infra.json" 2>"$T/infra.err" </dev/null
rc=$?
# without a service nothing of ours ran before the program: its own
# words do not make its failure one "safe to retry"
"$CLI" run --executor local --state-dir "$S" --profile shell --allow-missing-results --json \
    "$T/infra" >"$T/forged.json" 2>"$T/forged.err" </dev/null
if "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert (d["status"], d["verdict"]) == ("program_failed", "runtime_error"), d' "$T/forged.json"; then
    ok "a program's own 'dval: infrastructure:' line without a service: runtime_error"
else
    bad "a forged infrastructure line" "$(cat "$T/forged.err" "$T/forged.json")"
fi
if [ $rc = 70 ] && grep -q 'infrastructure failure: postgres: the service stopped' "$T/infra.err" &&
   "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["status"] == "infrastructure_error", d["status"]' "$T/infra.json"; then
    ok "a service's failure: exit 70, status infrastructure_error, explained"
else
    bad "a service's failure" "exit $rc $(cat "$T/infra.err" "$T/infra.json")"
fi
"$CLI" sandbox rm --all --executor local --state-dir "$S" >/dev/null 2>&1
echo "$pass passed, $fail failed, $skip skipped"
