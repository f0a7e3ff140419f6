#!/usr/bin/env bash
# `daytona-validate run --expect` on the local executor with shell
# programs: passed and wrong_results (exit 84) with the diff, JSON
# comparison of a results file with --ignore and --tolerance, and the
# option mistakes refused before any work.
# Last line: "N passed, N failed, N skipped".
. "$(dirname "$0")/common.sh" dval-clicmp

S=$T/state
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

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
