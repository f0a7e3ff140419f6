#!/usr/bin/env bash
# What the CLI leaves on disk (issue 40): a --results file is written
# whole or not at all (a write that fails half-way, here at the file size
# limit, leaves the file as it was), a failed validation writes none, and
# run transcripts are pruned (the newest 200, 256 MiB in all). On the emulator (no local sandboxes: the
# size limit would stop their disk images too).
# Last line: "N passed, N failed, N skipped".
. "$(dirname "$0")/common.sh" dval-output

if ! "$PY" -c 'import aiohttp' 2>/dev/null; then
    skipped "output suite" "python3-aiohttp missing"
    echo "$pass passed, $fail failed, $skip skipped"
    exit 0
fi
"$PY" tests/emulator/emulator.py --port-file "$T/port" --lifetime 600 2>"$T/emu.log" &
EMU_PID=$!
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.1; done
PORT=$(cat "$T/port")
"$PY" -c 'import sys,urllib.request as u; u.urlopen(u.Request(sys.argv[1], data=b"{\"transition_ms\":10,\"snapshot_build_ms\":50}", method="POST"))' "http://127.0.0.1:$PORT/_emu/config"
export DAYTONA_API_URL=http://127.0.0.1:$PORT/api DAYTONA_API_KEY=dtn_output
export XDG_STATE_HOME=$T/xdg
D=(--executor daytona --profile shell)

mkdir -p "$T/big" "$T/bad" "$T/out"
cat >"$T/big/run.sh" <<'EOS'
mkdir -p $DVAL_RESULTS_DIR
printf '{"big": "%s"}\n' "$(head -c 6000 /dev/zero | tr '\0' x)" > $DVAL_RESULTS_DIR/r.json
EOS
printf 'mkdir -p $DVAL_RESULTS_DIR; echo "{bad" > $DVAL_RESULTS_DIR/r.json\n' >"$T/bad/run.sh"

# the whole document, when it can be written
( umask 027; exec "$CLI" run "${D[@]}" --results "$T/out/whole.json" "$T/big" ) >/dev/null 2>"$T/whole.err" </dev/null
rc=$?
n=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["r.json"]["big"]))' "$T/out/whole.json" 2>&1)
mode=$(stat -c %a "$T/out/whole.json" 2>&1)
[ $rc = 0 ] && [ "$n" = 6000 ] && [ "$mode" = 640 ] && ok "--results: the whole document, mode as the umask says" ||
    bad "--results: the whole document (rc $rc, $n, mode $mode)" "$(cat "$T/whole.err")"

# a write cut off at 1 KiB (the file size limit: SIGXFSZ ignored, EFBIG)
echo OLD >"$T/out/cut.json"
( trap '' XFSZ; ulimit -f 1; exec "$CLI" run "${D[@]}" --results "$T/out/cut.json" "$T/big" ) \
    >/dev/null 2>"$T/cut.err" </dev/null
rc=$?
left=$(ls -A "$T/out" | grep -v '^whole.json$' | tr '\n' ' ')
if [ $rc = 66 ] && [ "$(cat "$T/out/cut.json")" = OLD ] && [ "$left" = "cut.json " ]; then
    ok "--results: a write that fails leaves the file as it was, and no temporary file"
else
    bad "--results: a write that fails (rc $rc, files: $left)" \
        "$(head -c 300 "$T/out/cut.json"; echo; cat "$T/cut.err")"
fi

# a validation that fails writes no results document at all
"$CLI" run "${D[@]}" --results "$T/out/failed.json" "$T/bad" >/dev/null 2>"$T/bad.err" </dev/null
rc=$?
[ $rc = 65 ] && [ ! -e "$T/out/failed.json" ] && ok "--results: none after a failed validation (exit 65)" ||
    bad "--results after a failed validation (rc $rc)" "$(ls -la "$T/out"; cat "$T/bad.err")"

# a batch's --results DIR: one document per folder that passed, named
# after the folder (a repeated name with its index), none for a failure
mkdir -p "$T/b1/same" "$T/b2/same" "$T/resdir"
for w in one two; do
    d=$([ $w = one ] && echo b1 || echo b2)
    printf 'mkdir -p $DVAL_RESULTS_DIR; echo %s > $DVAL_RESULTS_DIR/r.json\n' "'{\"who\": \"$w\"}'" >"$T/$d/same/run.sh"
done
"$CLI" run "${D[@]}" --results "$T/resdir" "$T/b1/same" "$T/bad" "$T/b2/same" \
    >"$T/batch.out" 2>"$T/batch.err" </dev/null
rc=$?
got=$(cd "$T/resdir" && ls -A | tr '\n' ' ')
w1=$(json_who() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["r.json"]["who"])' "$1" 2>&1; }; \
     echo "$(json_who "$T/resdir/same.json") $(json_who "$T/resdir/same-2.json")")
if [ $rc = 1 ] && [ "$got" = "same-2.json same.json " ] && [ "$w1" = "one two" ]; then
    ok "batch --results DIR: one document per folder that passed"
else
    bad "batch --results DIR (rc $rc, files: $got, $w1)" "$(cat "$T/batch.out" "$T/batch.err")"
fi
"$CLI" run "${D[@]}" --results "$T/out/whole.json" "$T/b1/same" "$T/b2/same" >/dev/null 2>"$T/notdir.err" </dev/null
[ $? = 66 ] && grep -q 'not a directory' "$T/notdir.err" && ok "batch --results FILE: exit 66, a directory is needed" ||
    bad "batch --results FILE" "$(cat "$T/notdir.err")"

# the results files that are not *.json: byte-exact beside the document
# (out.json -> out.files/), text, binary and nested alike; a batch's too
mkdir -p "$T/other" "$T/files" "$T/fdir"
cat >"$T/other/run.sh" <<'EOS'
cd "$DVAL_RESULTS_DIR" && echo '{"n": 1}' > r.json
printf 'h\303\251llo \342\202\254\n' > out.txt
printf 'a\000b\377\376c' > bin.dat
mkdir sub && printf 'x,y\n1,2\n' > sub/x.csv
EOS
printf 'h\303\251llo \342\202\254\n' >"$T/want.txt"
printf 'a\000b\377\376c' >"$T/want.dat"
printf 'x,y\n1,2\n' >"$T/want.csv"
"$CLI" run "${D[@]}" --results "$T/files/out.json" "$T/other" >/dev/null 2>"$T/other.err" </dev/null
rc=$?
F=$T/files/out.files
if [ $rc = 0 ] && cmp -s "$F/out.txt" "$T/want.txt" && cmp -s "$F/bin.dat" "$T/want.dat" &&
   cmp -s "$F/sub/x.csv" "$T/want.csv" && [ ! -e "$F/r.json" ] &&
   "$PY" -c 'import json,sys; assert json.load(open(sys.argv[1]))=={"r.json":{"n":1}}' "$T/files/out.json"; then
    ok "--results FILE: the other results files byte-exact in FILE.files/"
else
    bad "--results other files (rc $rc)" "$(ls -laR "$T/files"; cat "$T/other.err")"
fi
"$CLI" run "${D[@]}" --json "$T/other" >"$T/other.jsonl" 2>"$T/otherj.err" </dev/null
r=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))["files"]; print(d["bin.dat"], d["sub/x.csv"]["text"] == "x,y\n1,2\n", sorted(d))' "$T/other.jsonl" 2>&1)
[ "$r" = "{'base64': 'YQBi//5j', 'bytes': 6} True ['bin.dat', 'out.txt', 'sub/x.csv']" ] &&
    ok "--json: the other results files in \"files\"" || bad "--json files" "$r"
"$CLI" run "${D[@]}" --results "$T/fdir" "$T/other" "$T/b1/same" >/dev/null 2>"$T/fdir.err" </dev/null
rc=$?
if [ $rc = 0 ] && cmp -s "$T/fdir/other.files/out.txt" "$T/want.txt" &&
   cmp -s "$T/fdir/other.files/bin.dat" "$T/want.dat" && [ ! -e "$T/fdir/same.files" ]; then
    ok "batch --results DIR: a folder's other results files in DIR/<name>.files/"
else
    bad "batch --results DIR other files (rc $rc)" "$(ls -laR "$T/fdir"; cat "$T/fdir.err")"
fi

# the live view of a batch on a terminal: a line per running validation
# (folder, phase, elapsed) and the counts, redrawn in place; a program's
# carriage return or cursor movement shown inert, never moving the
# "[folder] " prefix; on a pipe no view at all
for d in slowa slowb; do
    mkdir -p "$T/$d"
    printf 'echo start\nprintf "\\r\\033[2A[other] fake\\n"\nsleep 1.5\nmkdir -p $DVAL_RESULTS_DIR; echo "{}" > $DVAL_RESULTS_DIR/r.json\n' >"$T/$d/run.sh"
done
if command -v script >/dev/null; then
    script -qec "$CLI run ${D[*]} $T/slowa $T/slowb" "$T/view.ts" >/dev/null 2>&1 </dev/null
    rc=$?
    if [ $rc = 0 ] && grep -aEq '^  slowa +run +[0-9]+\.[0-9] s' "$T/view.ts" &&
       grep -aEq '^  slowb +run +[0-9]+\.[0-9] s' "$T/view.ts" &&
       grep -aq 'batch: 0 queued, 2 running, 0 passed, 0 failed; ' "$T/view.ts" &&
       grep -aq $'\033\[J' "$T/view.ts"; then
        ok "batch on a terminal: a live line per running validation and the counts"
    else
        bad "batch live view (rc $rc)" "$(tail -c 1500 "$T/view.ts" | cat -v)"
    fi
    if grep -aq '\[slowa\] ^M^\[\[2A\[other\] fake' "$T/view.ts" &&
       ! grep -aq $'\r\033\[2A\[other\]' "$T/view.ts"; then
        ok "batch on a terminal: a program's \\r and cursor movement cannot move the folder's prefix"
    else
        bad "batch prefix on a terminal" "$(grep -a 'fake' "$T/view.ts" | od -c | head)"
    fi
else
    skipped "batch live view" "no script(1)"
fi
"$CLI" run "${D[@]}" "$T/slowa" "$T/slowb" >"$T/pipe.out" 2>"$T/pipe.err" </dev/null
! grep -q 'batch:' "$T/pipe.err" && ! grep -aq $'\033' "$T/pipe.err" &&
    grep -q '^\[slowa\] start$' "$T/pipe.out" && ok "batch on a pipe: plain lines, no view" ||
    bad "batch on a pipe" "$(cat -v "$T/pipe.err" "$T/pipe.out")"

# transcripts: the newest 200 kept, 256 MiB in all; the run's own stays
R=$XDG_STATE_HOME/daytona-validate/cli-runs
mkdir -p "$T/quick" "$R"
printf 'mkdir -p $DVAL_RESULTS_DIR; echo "{}" > $DVAL_RESULTS_DIR/r.json\n' >"$T/quick/run.sh"
rm -f "$R"/*.log
for i in $(seq 1 230); do
    touch -d "@$(( $(date +%s) - 100000 + i ))" "$R/old$i.log"
done
echo keep >"$R/notes.txt"
"$CLI" run "${D[@]}" --thread own1 "$T/quick" >/dev/null 2>"$T/own1.err" </dev/null
n=$(ls "$R" | grep -c '\.log$')
if [ "$n" = 200 ] && [ -s "$R/own1.log" ] && [ -e "$R/old230.log" ] && [ -e "$R/old32.log" ] &&
   [ ! -e "$R/old31.log" ] && [ -e "$R/notes.txt" ]; then
    ok "transcripts: the newest 200 are kept, the oldest go"
else
    bad "transcripts by count ($n left)" "$(ls -t "$R" | tail -n 5; cat "$T/own1.err")"
fi
rm -f "$R"/*.log
for i in 1 2 3; do   # 100 MiB each on paper (sparse)
    truncate -s 100M "$R/big$i.log"
    touch -d "@$(( $(date +%s) - 1000 + i ))" "$R/big$i.log"
done
"$CLI" run "${D[@]}" --thread own2 "$T/quick" >/dev/null 2>"$T/own2.err" </dev/null
if [ ! -e "$R/big1.log" ] && [ -e "$R/big2.log" ] && [ -e "$R/big3.log" ] && [ -s "$R/own2.log" ]; then
    ok "transcripts: at most 256 MiB together, the oldest go"
else
    bad "transcripts by size" "$(ls -la "$R")"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
