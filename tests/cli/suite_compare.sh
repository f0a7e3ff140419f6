#!/usr/bin/env bash
# `daytona-validate run --expect` and `daytona-validate diff` on the local
# executor: passed and wrong_results (exit 84) with the diff, JSON
# comparison of a results file with --ignore and --tolerance; diff of
# equal and unequal shell pairs (run side by side) and of a java pair;
# option mistakes refused before any work.
# Last line: "N passed, N failed, N skipped".
. "$(dirname "$0")/common.sh" dval-clicmp

S=$T/state
# the java snapshot's shared compile service mounts a tmpfs in the state
# directory: unmounted (lazily: its helper leaves with the last sandbox)
# so the directory goes too
cleanup_all() {
    cleanup
    local m
    for m in $(awk -v t="$T/" 'index($2, t) == 1 { print $2 }' /proc/mounts); do
        umount -l "$m" 2>/dev/null
    done
    rm -rf "$T"
}
trap cleanup_all EXIT
# cli NAME ARGS...: $T/NAME.{out,err,rc}
cli() {
    local name=$1; shift
    timeout -k 5 300 "$CLI" "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
    echo $? >"$T/$name.rc"
}
rc() { cat "$T/$1.rc"; }
diag() { printf 'rc=%s\n--- stdout\n%s\n--- stderr\n%s\n' "$(rc "$1")" "$(head -c 2000 "$T/$1.out")" "$(tail -c 2000 "$T/$1.err")"; }
js() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1" 2>&1; }
LOCAL=(--executor local --state-dir "$S" --profile shell)

# a program that prints two lines and writes one results file
P=$T/prog; mkdir -p "$P"
cat >"$P/run.sh" <<'SH'
printf 'sum=5050\ncount=100\n'
echo "{\"total\":10.0000001,\"at\":\"$(date +%s%N)\",\"rows\":[1,2]}" >"$DVAL_RESULTS_DIR/out.json"
SH
printf 'sum=5050   \ncount=100\n\n' >"$T/good.txt"
printf 'sum=5050\ncount=101\n' >"$T/bad.txt"
printf '{"rows":[1,2],"total":10}' >"$T/good.json"
printf '{"rows":[1,3],"total":10}' >"$T/bad.json"

# ---- arguments, before any work
cli noexp run "${LOCAL[@]}" --ignore '$.x' "$P"
[ "$(rc noexp)" = 64 ] && grep -q 'need --expect FILE' "$T/noexp.err" && ok "comparison options without --expect: exit 64" || bad "--ignore without --expect" "$(diag noexp)"
cli badmode run "${LOCAL[@]}" --expect "$T/good.txt" --expect-mode fuzzy "$P"
[ "$(rc badmode)" = 64 ] && grep -q "expect-mode is json, text or bytes, not 'fuzzy'" "$T/badmode.err" && ok "--expect-mode fuzzy: exit 64" || bad "--expect-mode" "$(diag badmode)"
cli badtol run "${LOCAL[@]}" --expect "$T/good.txt" --tolerance -1 "$P"
[ "$(rc badtol)" = 64 ] && ok "--tolerance -1: exit 64" || bad "--tolerance -1" "$(diag badtol)"
cli nofile run "${LOCAL[@]}" --expect "$T/none.txt" "$P"
[ "$(rc nofile)" = 66 ] && grep -q 'cannot read the expected result' "$T/nofile.err" && ok "--expect of a missing file: exit 66" || bad "--expect missing file" "$(diag nofile)"
cli notjson run "${LOCAL[@]}" --expect "$T/good.txt" --expect-file out.json "$P"
[ "$(rc notjson)" = 64 ] && grep -q 'the expected result is not JSON' "$T/notjson.err" && ok "an expected JSON that is not JSON is refused: exit 64" || bad "expected not JSON" "$(diag notjson)"

# ---- stdout as text
cli tgood run "${LOCAL[@]}" --expect "$T/good.txt" "$P"
[ "$(rc tgood)" = 0 ] && grep -q 'verdict passed: built, ran and gave the expected result' "$T/tgood.err" && ok "stdout as expected (trailing blanks ignored): passed, exit 0" || bad "stdout as expected" "$(diag tgood)"
cli tbad run "${LOCAL[@]}" --expect "$T/bad.txt" "$P"
[ "$(rc tbad)" = 84 ] && grep -q 'verdict wrong_results: stdout differs from the expected result in 1 place: line 2: expected "count=101", got "count=100"' "$T/tbad.err" &&
    grep -q '"path": "line 2"' "$T/tbad.err" && ok "stdout differs: wrong_results, exit 84, the diff on stderr" || bad "stdout differs" "$(diag tbad)"

# ---- a results file as JSON
cli jgood run "${LOCAL[@]}" --expect "$T/good.json" --expect-file out.json --ignore '$.at' --tolerance 1e-6 --json "$P"
if [ "$(rc jgood)" = 0 ] && [ "$(js "$T/jgood.out" 'd["verdict"], d["comparison"]["with"], d["comparison"]["differences"]')" = "('passed', 'results/out.json', 0)" ]; then
    ok "results file as JSON with --ignore and --tolerance: passed"
else bad "results file as JSON" "$(diag jgood)"; fi
cli jtol run "${LOCAL[@]}" --expect "$T/good.json" --expect-file out.json --ignore '$.at' --json "$P"
[ "$(rc jtol)" = 84 ] && [ "$(js "$T/jtol.out" 'd["comparison"]["diff"][0]["path"]')" = '$.total' ] && ok "without --tolerance 10 and 10.0000001 differ at \$.total" || bad "no tolerance" "$(diag jtol)"
cli jbad run "${LOCAL[@]}" --expect "$T/bad.json" --expect-file out.json --ignore '$.at' --tolerance 1e-6 --json "$P"
if [ "$(rc jbad)" = 84 ] && [ "$(js "$T/jbad.out" 'd["verdict"], d["status"], d["comparison"]["diff"]')" = "('wrong_results', 'wrong_results', [{'path': '\$.rows[1]', 'kind': 'changed', 'expected': 3, 'actual': 2}])" ]; then
    ok "results file differs: wrong_results with the structural diff in --json"
else bad "results file differs" "$(diag jbad)"; fi

# ---------------------------------------------------------------- diff
# side NAME ROWS SLEEP: a shell program writing out.json
side() {
    mkdir -p "$T/$1"
    printf 'echo "{\\"rows\\":[%s],\\"total\\":10,\\"at\\":\\"$(date +%%s%%N)\\"}" >"$DVAL_RESULTS_DIR/out.json"\nsleep %s\n' "$2" "$3" >"$T/$1/run.sh"
}
side o "1,2" 0; side same "1,2" 0; side other "1,3" 0
mkdir -p "$T/fails" "$T/nothing" && printf 'echo boom >&2; exit 3\n' >"$T/fails/run.sh"
DL=(--executor local --state-dir "$S")

cli dsame diff "${DL[@]}" --ignore '$..at' "$T/o" "$T/same"
[ "$(rc dsame)" = 0 ] && [ "$(cat "$T/dsame.out")" = equivalent ] && grep -q 'verdict equivalent' "$T/dsame.err" && ok "diff of an equal shell pair: equivalent, exit 0" || bad "diff equal pair" "$(diag dsame)"
cli dnoign diff "${DL[@]}" "$T/o" "$T/same"
[ "$(rc dnoign)" = 84 ] && grep -q '"path": "\$\[\\"out.json\\"\].at"' "$T/dnoign.out" && ok "without --ignore the timestamps differ: differs, exit 84" || bad "diff without --ignore" "$(diag dnoign)"
cli dother diff "${DL[@]}" --ignore '$..at' --json "$T/o" "$T/other"
if [ "$(rc dother)" = 84 ] && [ "$(js "$T/dother.out" 'd["verdict"], d["differences"], d["diff"], d["original"]["schema"], d["original"]["verdict"], d["translation"]["folder_path"].endswith("/other")')" = "('differs', 1, [{'path': '\$[\"out.json\"].rows[1]', 'kind': 'changed', 'expected': 2, 'actual': 3}], 'daytona-validate-run/2', 'passed', True)" ]; then
    ok "diff --json of an unequal pair: differs, the structural diff, both run documents"
else bad "diff --json unequal" "$(diag dother)"; fi
cli dfail diff "${DL[@]}" --json "$T/o" "$T/fails"
if [ "$(rc dfail)" = 3 ] && [ "$(js "$T/dfail.out" 'd["verdict"], d["verdict_detail"], d["diff"], d["translation"]["stderr"]')" = "('runtime_error', 'the translation did not pass: the run phase exited with code 3', [], 'boom\n')" ]; then
    ok "a translation that fails: its own verdict (runtime_error), its exit status"
else bad "diff with a failing side" "$(diag dfail)"; fi
cli dguess diff "${DL[@]}" "$T/o" "$T/nothing"
[ "$(rc dguess)" = 64 ] && grep -q 'cannot tell the profile of' "$T/dguess.err" && grep -q 'profile2' "$T/dguess.err" && ok "a folder of no known kind: exit 64, --profile2 suggested" || bad "diff profile guess" "$(diag dguess)"
cli dargs diff "${DL[@]}" "$T/o"
[ "$(rc dargs)" = 64 ] && ok "diff with one folder: exit 64" || bad "diff one folder" "$(diag dargs)"

# side by side: two programs of 3 s each take about 3 s, not 6
side slow1 "1" 3; side slow2 "1" 3
t0=$(date +%s%N)
cli dpar diff "${DL[@]}" --ignore '$..at' "$T/slow1" "$T/slow2"
par_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$(rc dpar)" = 0 ] && [ "$par_ms" -lt 5500 ] && ok "the two sides run at the same time (2 x 3 s in $par_ms ms)" || bad "diff in parallel ($par_ms ms)" "$(diag dpar)"

# a java pair: the sample and a translation that sums one number less
J=examples/validation/java-javac
if [ -d "$J" ]; then
    cp -r "$J" "$T/j2" && sed -i 's/i <= 1000; i++)/i < 1000; i++)/' "$T/j2/Main.java"
    cli jsame diff "${DL[@]}" --ignore '$..java_version' "$J" "$J"
    cli jdiff diff "${DL[@]}" --json "$J" "$T/j2"
    if [ "$(rc jsame)" = 0 ] && [ "$(rc jdiff)" = 84 ] &&
       [ "$(js "$T/jdiff.out" 'd["diff"][0]["path"], d["diff"][0]["expected"], d["diff"][0]["actual"], d["original"]["profile"]')" = "('\$[\"results.json\"].sum_1_to_1000', 500500, 499500, 'java')" ]; then
        ok "java pair (profile recognised from *.java): equivalent with itself, differs from a wrong translation"
    else bad "java pair" "$(diag jsame; diag jdiff)"; fi
else skipped "java pair" "no $J"; fi

# a C# translation of a Java program over the same seeded database (the
# snapshots kept where suite_db.sh keeps them), and a Java "translation"
# that orders a query the other way
DB=${DVAL_LOCAL_TEST_ROOT:-/tmp/dval-local-tests}/db
DBOPTS=(--executor local --state-dir "$DB" --service postgres --service sqlite
        --seed examples/validation/db/schema.sql --seed examples/validation/db/data.sql)
if [ "$(id -u)" != 0 ]; then
    skipped "diff over a seeded database" "services run only as root"
else
    mkdir -p "$DB"
    cp -r examples/validation/java-jdbc-db "$T/jbug"
    sed -i 's/ORDER BY total_cents DESC, o.id/ORDER BY total_cents ASC, o.id/' "$T/jbug/Main.java"
    cli dbne diff "${DBOPTS[@]}" --json examples/validation/java-jdbc-db "$T/jbug"
    if [ "$(rc dbne)" = 84 ] && [ "$(js "$T/dbne.out" 'd["verdict"], d["diff"][0]["path"].startswith("$[\"results.json\"].order_totals["), d["translation"]["verdict"]')" = "('differs', True, 'passed')" ]; then
        ok "java pair over the seeded database: a query ordered the other way differs"
    else bad "java pair over the seeded database" "$(diag dbne)"; fi
    if command -v dotnet >/dev/null 2>&1; then
        cli dbeq diff "${DBOPTS[@]}" --json examples/validation/java-jdbc-db examples/validation/dotnet-efcore-db
        if [ "$(rc dbeq)" = 0 ] && [ "$(js "$T/dbeq.out" 'd["verdict"], d["original"]["profile"], d["translation"]["profile"], len(d["original"]["results"]["results.json"])')" = "('equivalent', 'java', 'dotnet', 8)" ]; then
            ok "Java and its C# translation over the same seeded database: equivalent"
        else bad "java/dotnet pair over the seeded database" "$(diag dbeq)"; fi
    else skipped "java/dotnet pair over the seeded database" "no dotnet on this host"; fi
fi

# Every --json document of this suite (run and diff) against the one
# installed schema; a run document must not pass as a diff nor the reverse.
if ! "$PY" -c 'import jsonschema' 2>/dev/null; then
    skipped "--json schema validation" "python3-jsonschema missing (tests/deps.sh installs it)"
else
    r=$(cd "$T" && "$PY" - "$OLDPWD/man/daytona-validate-run.schema.json" $(grep -l -- '^{"schema"' *.out) 2>&1 <<'PYEOF'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
v = jsonschema.Draft202012Validator(schema)
seen, problems = {}, []
for name in sys.argv[2:]:
    d = json.loads(open(name).read())
    seen[d.get("schema")] = seen.get(d.get("schema"), 0) + 1
    problems += ["%s: %s" % (name, e.message) for e in v.iter_errors(d)]
    if d.get("schema") == "daytona-validate-diff/1":
        d2 = dict(d, schema="daytona-validate-run/2")
        if v.is_valid(d2):
            problems.append("%s: a diff document passed as a run document" % name)
if seen.get("daytona-validate-diff/1", 0) < 3 or seen.get("daytona-validate-run/2", 0) < 3:
    problems.append("too few documents checked: %r" % seen)
print(" ".join("%s=%d" % kv for kv in sorted(seen.items())))
print("\n".join(problems))
PYEOF
)
    [ -n "$(head -n1 <<<"$r")" ] && [ -z "$(tail -n +2 <<<"$r")" ] && ok "every run and diff --json output validates against the schema ($(head -n1 <<<"$r"))" || bad "--json schema" "$r"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
