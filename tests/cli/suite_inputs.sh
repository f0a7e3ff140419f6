#!/usr/bin/env bash
# `daytona-validate run --arg WORD --stdin FILE` on the local executor:
# words with spaces, quotes and "$" reach the program as its arguments,
# stdin bytes (NUL, no trailing newline) as its stdin, from a file or
# from the CLI's own stdin (-); mistakes refused before any work.
# Last line: "N passed, N failed, N skipped".
. "$(dirname "$0")/common.sh" dval-cliio

S=$T/state
# cli NAME ARGS... (stdin: $IN, else /dev/null): $T/NAME.{out,err,rc}
cli() {
    local name=$1; shift
    timeout -k 5 300 "$CLI" "$@" >"$T/$name.out" 2>"$T/$name.err" <"${IN:-/dev/null}"
    echo $? >"$T/$name.rc"
}
rc() { cat "$T/$1.rc"; }
diag() { printf 'rc=%s\n--- stdout\n%s\n--- stderr\n%s\n' "$(rc "$1")" "$(head -c 2000 "$T/$1.out")" "$(tail -c 2000 "$T/$1.err")"; }
js() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1" 2>&1; }
LOCAL=(--executor local --state-dir "$S" --profile shell --allow-missing-results --json)

# prints each argument in brackets, then its stdin in hex
P=$T/prog; mkdir -p "$P"
cat >"$P/run.sh" <<'SH'
for a in "$@"; do printf '[%s]' "$a"; done; echo
od -An -v -tx1 | tr -d ' \n'
SH
printf 'hi\0\nx' >"$T/in.bin"
WANT='[a b][it'"'"'s]["q"][$HOME][][-n]
6869000a78'

# ---- arguments, before any work
cli missing run "${LOCAL[@]}" --stdin "$T/none.bin" "$P"
[ "$(rc missing)" = 66 ] && grep -q 'cannot read --stdin' "$T/missing.err" && ok "--stdin of a missing file: exit 66" || bad "--stdin missing file" "$(diag missing)"
many=(); for i in $(seq 257); do many+=(--arg w); done
cli many run "${LOCAL[@]}" "${many[@]}" "$P"
[ "$(rc many)" = 64 ] && grep -q 'too many --arg options' "$T/many.err" && ok "257 --arg: exit 64" || bad "257 --arg" "$(diag many)"

# ---- from a file, and from the CLI's own stdin
cli file run "${LOCAL[@]}" --arg 'a b' --arg "it's" --arg '"q"' --arg '$HOME' --arg '' --arg -n --stdin "$T/in.bin" "$P"
if [ "$(rc file)" = 0 ] && [ "$(js "$T/file.out" 'd["stdout"]')" = "$WANT" ]; then
    ok "--arg words and --stdin FILE bytes reach the program exactly"
else bad "--arg and --stdin FILE" "$(diag file)"; fi
IN=$T/in.bin cli own run "${LOCAL[@]}" --stdin - --arg 'a b' --arg "it's" --arg '"q"' --arg '$HOME' --arg '' --arg -n "$P"
if [ "$(rc own)" = 0 ] && [ "$(js "$T/own.out" 'd["stdout"]')" = "$WANT" ]; then
    ok "--stdin - gives the CLI's own stdin"
else bad "--stdin -" "$(diag own)"; fi
cli none run "${LOCAL[@]}" "$P"
if [ "$(rc none)" = 0 ] && [ "$(js "$T/none.out" 'repr(d["stdout"])')" = "'\\n'" ]; then
    ok "without them: no arguments, empty stdin"
else bad "no inputs" "$(diag none)"; fi

# ---- --results-bytes: the results' bound, in real units
B2=$T/big; mkdir -p "$B2"
printf 'head -c 5000 /dev/zero | tr "\\0" a > "$DVAL_RESULTS_DIR/big.txt"\necho "{}" > "$DVAL_RESULTS_DIR/r.json"\n' >"$B2/run.sh"
cli rbad run "${LOCAL[@]}" --results-bytes 0 "$B2"
cli rsmall run "${LOCAL[@]}" --results-bytes 1000 "$B2"
cli rbig run "${LOCAL[@]}" --results-bytes 100000 "$B2"
if [ "$(rc rbad)" = 64 ] && grep -q 'results-bytes needs bytes' "$T/rbad.err" &&
   [ "$(js "$T/rsmall.out" 'd["verdict"]')" = results_invalid ] &&
   [ "$(rc rbig)" = 0 ] && [ "$(js "$T/rbig.out" 'd["verdict"]')" = passed ]; then
    ok "--results-bytes: 0 refused, 1000 too few for 5000 bytes (results_invalid), 100000 enough"
else bad "--results-bytes" "$(diag rbad; diag rsmall; diag rbig)"; fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
