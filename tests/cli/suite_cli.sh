#!/usr/bin/env bash
# End-to-end tests of the daytona-validate CLI: argument handling, then the
# local executor (java and shell samples), then the daytona executor against
# the emulator. Pieces that have not landed are reported as skipped, with
# the reason, never as passed. Last line: "N passed, N failed, N skipped".
. "$(dirname "$0")/common.sh" dval-cli

# run_cli NAME ARGS...: runs the CLI with stdout/stderr/status captured in
# $T/NAME.{out,err,rc}; never on a terminal (no progress lines expected).
run_cli() {
    local name=$1; shift
    timeout -k 5 "${DVAL_CLI_TIMEOUT:-600}" "$CLI" "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
    echo $? >"$T/$name.rc"
    case " $* " in *" --json "*) echo "$name" >>"$T/json.list";; esac
}
# elapsed milliseconds since $1 (from now_ns)
now_ns() { date +%s%N; }
ms_since() { echo $(( ($(now_ns) - $1) / 1000000 )); }
# emu PATH JSON: a control request to the emulator (python: no curl needed)
emu() { "$PY" -c 'import sys,urllib.request as u; r=u.Request(sys.argv[1], data=sys.argv[2].encode() if len(sys.argv)>2 else None, method="POST" if len(sys.argv)>2 else "GET"); print(u.urlopen(r).read().decode())' "http://127.0.0.1:$PORT/_emu/$1" "${@:2}"; }
# sig_run NAME SIGNAL DELAY ARGS...: starts the CLI, sends SIGNAL after
# DELAY seconds; $T/NAME.{out,err,rc} and $T/NAME.ms (signal to exit)
sig_run() {
    local name=$1 sig=$2 delay=$3; shift 3
    "$CLI" "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null &
    local pid=$! t0
    sleep "$delay"; kill -"$sig" $pid; t0=$(now_ns); wait $pid; echo $? >"$T/$name.rc"
    ms_since "$t0" >"$T/$name.ms"
}
rc() { cat "$T/$1.rc"; }
out() { cat "$T/$1.out"; }
err() { cat "$T/$1.err"; }
diag() { printf 'rc=%s\n--- stdout\n%s\n--- stderr\n%s\n' "$(rc "$1")" "$(out "$1" | head -c 3000)" "$(err "$1" | tail -c 3000)"; }
# json_get FILE EXPR: evaluates a Python expression on the document `d`
json_get() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1" 2>&1; }
# "not landed" = a stub answered: the library reports "not supported"
not_landed() { grep -qiE 'not supported|unsupported' "$T/$1.err"; }

if [ ! -x "$CLI" ]; then
    bad "CLI built at $CLI" "run: make B=$B all"
    echo "$pass passed, $fail failed, $skip skipped"
    exit 1
fi

# a silent program for the interrupt tests
mkdir -p "$T/sleep" && printf 'sleep 20\n' >"$T/sleep/run.sh"

# ---------------------------------------------------------------- arguments
run_cli help --help
[ "$(rc help)" = 0 ] && grep -q '^usage: daytona-validate' "$T/help.out" && ok "--help on stdout, exit 0" || bad "--help" "$(diag help)"
run_cli version --version
[ "$(rc version)" = 0 ] && grep -qE '^daytona-validate [0-9]+\.[0-9]+\.[0-9]+' "$T/version.out" && ok "--version" || bad "--version" "$(diag version)"
run_cli noargs
[ "$(rc noargs)" = 64 ] && [ ! -s "$T/noargs.out" ] && ok "no arguments: usage on stderr, exit 64" || bad "no arguments" "$(diag noargs)"
run_cli badcmd frobnicate
[ "$(rc badcmd)" = 64 ] && grep -q "unknown command" "$T/badcmd.err" && ok "unknown command: exit 64" || bad "unknown command" "$(diag badcmd)"
run_cli noprof run examples/validation/shell
[ "$(rc noprof)" = 64 ] && grep -q -- "--profile" "$T/noprof.err" && ok "run without --profile: exit 64" || bad "run without --profile" "$(diag noprof)"
run_cli nodir run --profile shell
[ "$(rc nodir)" = 64 ] && ok "run without DIR: exit 64" || bad "run without DIR" "$(diag nodir)"
run_cli badopt run --profile shell --bogus examples/validation/shell
[ "$(rc badopt)" = 64 ] && grep -q -- "--bogus" "$T/badopt.err" && ok "unknown option: exit 64" || bad "unknown option" "$(diag badopt)"
run_cli badrel run --profile shell --release sometimes examples/validation/shell
[ "$(rc badrel)" = 64 ] && ok "bad --release: exit 64" || bad "bad --release" "$(diag badrel)"
run_cli runhelp run --help
[ "$(rc runhelp)" = 0 ] && grep -q -- "--results FILE" "$T/runhelp.out" && ok "run --help" || bad "run --help" "$(diag runhelp)"
run_cli profhelp profiles --help
[ "$(rc profhelp)" = 0 ] && grep -q '^usage: daytona-validate profiles' "$T/profhelp.out" && ! grep -q 'sandbox=' "$T/profhelp.out" &&
    ok "profiles --help prints help, not the list" || bad "profiles --help" "$(diag profhelp)"
run_cli profextra profiles java
[ "$(rc profextra)" = 64 ] && ok "profiles with an argument: exit 64" || bad "profiles with an argument" "$(diag profextra)"
missing_help=
for w in 'run --profile' 'snapshot ensure' 'snapshot ls' 'sandbox ls' 'sandbox stop|rm' 'logs' 'profiles' '--executor local|daytona' '--state-dir' '--verbose' '--results' '--json' '--timeout' '--release' '--label' '--allow-missing-results' ' 64 usage' ' 65 ' ' 66 ' ' 69 ' ' 70 ' '75 busy' '124' '130 SIGINT' '143 SIGTERM' 'DAYTONA_API_KEY' 'NO_COLOR' 'schema'; do
    grep -qF -- "$w" "$T/help.out" || missing_help="$missing_help [$w]"
done
[ -z "$missing_help" ] && ok "--help names every command, option, exit status and variable" || bad "--help incomplete:$missing_help" "$(cat "$T/help.out")"
run_cli profiles profiles
# names carry the hash of what the snapshot holds; the runtime is the
# snapshot's own word, unknown before it is built
H='-[0-9a-f]{8}'
if [ "$(rc profiles)" = 0 ] && grep -qE "^java .*sandbox=java-25-sandbox$H snapshot=validation-snapshot-java$H image=bellsoft/liberica-openjdk-debian:25-cds runtime=" "$T/profiles.out" &&
   grep -qE "^dotnet .*sandbox=dotnet-10-sandbox$H snapshot=validation-snapshot-dotnet$H image=mcr.microsoft.com/dotnet/sdk:10.0 runtime=" "$T/profiles.out" &&
   grep -q '^shell .*image=debian:12-slim' "$T/profiles.out"; then
    ok "profiles: java, dotnet, shell as specified"
    shellsb=$(sed -n 's/^shell .*sandbox=\([^ ]*\) .*/\1/p' "$T/profiles.out")
else
    bad "profiles" "$(diag profiles)"
fi
if command -v mandoc >/dev/null; then
    l=$(mandoc -T lint -W warning man/man1/daytona-validate.1 2>&1)
    [ -z "$l" ] && ok "man page lint-clean" || bad "man page lint" "$l"
else
    skipped "man page lint" "mandoc not installed"
fi

# Arguments the library checks need a client: use the local executor.
S=$T/state
run_cli badprof run --executor local --state-dir "$S" --profile cobol examples/validation/shell
[ "$(rc badprof)" = 64 ] && grep -q 'unknown profile "cobol"' "$T/badprof.err" && grep -q 'profiles are: dotnet, java, shell' "$T/badprof.err" &&
    ok "unknown profile: exit 64, the profiles listed" || bad "unknown profile" "$(diag badprof)"
run_cli jav run --executor local --state-dir "$S" --profile jav examples/validation/shell
[ "$(rc jav)" = 64 ] && grep -q 'did you mean --profile java?' "$T/jav.err" && grep -q 'dotnet, java, shell' "$T/jav.err" &&
    ok "unknown profile \"jav\": suggests java, lists the profiles" || bad "profile suggestion" "$(diag jav)"
run_cli docker run --executor docker --profile shell examples/validation/shell
[ "$(rc docker)" = 64 ] && grep -q 'unknown executor "docker"' "$T/docker.err" && grep -q 'local and daytona' "$T/docker.err" && ! grep -qi 'invalid argument' "$T/docker.err" &&
    ok "--executor docker: exit 64 naming the executors" || bad "--executor docker" "$(diag docker)"
run_cli sbdocker sandbox ls --executor docker
[ "$(rc sbdocker)" = 64 ] && grep -q 'local and daytona' "$T/sbdocker.err" && ok "sandbox ls --executor docker: exit 64 naming the executors" || bad "sandbox ls --executor docker" "$(diag sbdocker)"
run_cli notdir run --executor local --state-dir "$S" --profile shell examples/validation/shell/run.sh
[ "$(rc notdir)" = 64 ] && grep -q 'examples/validation/shell/run.sh is not a directory' "$T/notdir.err" && ok "a file as source dir: exit 64 naming it" || bad "source not a directory" "$(diag notdir)"
start=$(now_ns)
run_cli badres run --executor local --state-dir "$S" --profile shell --results /nonexistent/x.json examples/validation/shell
[ "$(rc badres)" = 66 ] && grep -q '/nonexistent/x.json' "$T/badres.err" && ! grep -q 'sum 1..100' "$T/badres.out" && [ "$(ms_since "$start")" -lt 2000 ] &&
    ok "--results /nonexistent/x.json: exit 66 before the program runs" || bad "--results in a missing directory" "$(diag badres)"
run_cli badlabel run --executor local --state-dir "$S" --profile shell --label nolabel examples/validation/shell
[ "$(rc badlabel)" = 64 ] && grep -q 'KEY=VALUE' "$T/badlabel.err" && ok "bad --label: exit 64" || bad "bad --label" "$(diag badlabel)"
run_cli jsonusage run --json --profile nope examples/validation/shell
[ "$(rc jsonusage)" = 64 ] && [ "$(json_get "$T/jsonusage.out" 'd["status"], d["error"]["phase"], d["ok"]')" = "('usage_error', 'arguments', False)" ] &&
    ok "--json usage error: one JSON document" || bad "--json usage error" "$(diag jsonusage)"
run_cli jsonbadopt run --json --bogus --profile shell examples/validation/shell
[ "$(rc jsonbadopt)" = 64 ] && [ "$(json_get "$T/jsonbadopt.out" 'd["status"]')" = usage_error ] && ok "--json with an unknown option: JSON too" || bad "--json unknown option" "$(diag jsonbadopt)"
run_cli badtid run --executor local --state-dir "$S" --profile shell --thread '../x' examples/validation/shell
[ "$(rc badtid)" = 64 ] && grep -q 'thread id' "$T/badtid.err" && ok "unsafe thread id: exit 64" || bad "unsafe thread id" "$(diag badtid)"
run_cli missingdir run --executor local --state-dir "$S" --json --profile shell "$T/does-not-exist"
[ "$(rc missingdir)" = 66 ] && grep -q 'does-not-exist' "$T/missingdir.err" && [ "$(json_get "$T/missingdir.out" 'd["status"]')" = input_error ] &&
    ok "missing source dir: exit 66" || bad "missing source dir" "$(diag missingdir)"

# no isolation (a probe that fails: /bin/false as the helper): exit 69 and
# a hint that fits the caller; root has the privileges, so it is told the
# environment refused, not to run as root
DVAL_LOCAL_HELPER=/bin/false run_cli noiso run --executor local --state-dir "$T/noiso-state" --profile shell examples/validation/shell
if [ "$(id -u)" = 0 ]; then
    [ "$(rc noiso)" = 69 ] && grep -q 'hint: .*environment refused' "$T/noiso.err" && ! grep -q 'hint: .*needs root' "$T/noiso.err" &&
        ok "no isolation as root: exit 69, the hint names the environment" || bad "no isolation as root" "$(diag noiso)"
else
    [ "$(rc noiso)" = 69 ] && grep -q 'hint: .*needs root' "$T/noiso.err" &&
        ok "no isolation, not root: exit 69, the hint says root" || bad "no isolation, not root" "$(diag noiso)"
fi

# -------------------------------------------------------------- local executor
check_java_ok() { # name label
    local n=$1 what=$2
    if [ "$(rc "$n")" != 0 ]; then bad "$what: exit 0" "$(diag "$n")"; return; fi
    ok "$what: exit 0"
    grep -q '^fibonacci(50) = 12586269025$' "$T/$n.out" && ok "$what: program stdout on stdout" || bad "$what: program stdout" "$(diag "$n")"
    grep -q '^diagnostic: writing results to /sandbox/' "$T/$n.err" && ok "$what: program stderr on stderr" || bad "$what: program stderr" "$(diag "$n")"
    ! grep -q 'diagnostic:' "$T/$n.out" && ! grep -q 'fibonacci(50)' "$T/$n.err" && ok "$what: streams not mixed" || bad "$what: streams mixed" "$(diag "$n")"
    ! grep -q '^>>' "$T/$n.out" "$T/$n.err" && ok "$what: no progress lines off a terminal" || bad "$what: progress lines" "$(diag "$n")"
}

run_cli probe run --executor local --state-dir "$S" --profile shell --thread probe examples/validation/shell
LOCAL=1
if not_landed probe; then
    LOCAL=0
    skipped "local executor tests" "local executor not landed: $(head -n1 "$T/probe.err")"
elif grep -q 'DVAL_EISOLATION\|isolation' "$T/probe.err" && [ "$(rc probe)" = 69 ]; then
    LOCAL=0
    skipped "local executor tests" "no isolation on this machine: $(head -n1 "$T/probe.err")"
fi

if [ $LOCAL = 1 ]; then
    n=probe
    if [ "$(rc $n)" = 0 ] && grep -q '^sum 1..100 = 5050$' "$T/$n.out"; then
        ok "local shell sample: exit 0, program stdout"
        # results JSON follows the program's output on stdout
        sed -n '/^{/,$p' "$T/$n.out" >"$T/$n.json"
        [ "$(json_get "$T/$n.json" 'd["results.json"]["sum_1_to_100"], d["results.json"]["thread_id"]')" = "(5050, 'probe')" ] &&
            ok "local shell sample: results JSON on stdout after the output" || bad "local shell results" "$(diag $n)"
    else
        bad "local shell sample" "$(diag $n)"
    fi

    # --disk 1: a 2 GiB write fails inside with ENOSPC, the host keeps its
    # space, the sandbox (created for the run) is deleted after it
    mkdir -p "$T/fill" && printf '%s\n' 'mkdir -p results' \
        'if dd if=/dev/zero of=big bs=1M count=2048 2>err.txt; then echo wrote-all; fi' \
        'grep -o "No space left on device" err.txt | head -n 1' \
        'rm -f big; echo "{\"ok\": true}" > results/r.json' >"$T/fill/run.sh"
    free0=$(df -k --output=avail "$S" | tail -n 1)
    run_cli disk run --executor local --state-dir "$S" --profile shell --disk 1 --isolation sandbox "$T/fill"
    free1=$(df -k --output=avail "$S" | tail -n 1)
    if [ "$(rc disk)" = 0 ] && grep -q '^No space left on device$' "$T/disk.out" && ! grep -q wrote-all "$T/disk.out" \
            && [ $((free0 - free1)) -lt 1300000 ]; then
        ok "--disk 1: a 2 GiB write ends with ENOSPC inside, the host keeps its space"
    else
        bad "--disk 1 with a 2 GiB write" "$(diag disk; echo "free before $free0 KiB, after $free1 KiB")"
    fi
    run_cli baddisk run --executor local --state-dir "$S" --profile shell --disk 0 examples/validation/shell
    run_cli badcpu run --executor local --state-dir "$S" --profile shell --cpu lots examples/validation/shell
    [ "$(rc baddisk)" = 64 ] && grep -q -- '--disk needs GiB' "$T/baddisk.err" && [ "$(rc badcpu)" = 64 ] \
        && grep -q -- '--cpu needs' "$T/badcpu.err" \
        && ok "--disk 0 / --cpu lots: usage errors before any work" || bad "--disk/--cpu checks" "$(diag baddisk; diag badcpu)"

    start=$(date +%s%N)
    run_cli java run --executor local --state-dir "$S" --profile java --thread java1 --results "$T/java.results" examples/validation/java-javac
    java_ms=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "     (java validation on the local executor: ${java_ms} ms, first run includes the snapshot)"
    check_java_ok java "local java sample"
    r=$(json_get "$T/java.results" 'd["results.json"]["fibonacci_50"], d["results.json"]["primes_below_100000"], d["results.json"]["sum_1_to_1000"], d["results.json"]["passed"]')
    [ "$r" = "(12586269025, 9592, 500500, True)" ] && ok "local java: --results file has the computed values" || bad "local java results" "$r"
    ! grep -q 'fibonacci_50' "$T/java.out" && ok "local java: --results keeps the JSON off stdout" || bad "--results and stdout" "$(diag java)"

    start=$(date +%s%N)
    run_cli java2 run --executor local --state-dir "$S" --profile java --thread java2 examples/validation/java-javac
    echo "     (warm java validation on the local executor: $(( ($(date +%s%N) - start) / 1000000 )) ms)"
    sed -n '/^{/,$p' "$T/java2.out" >"$T/java2.json"
    [ "$(rc java2)" = 0 ] && [ "$(json_get "$T/java2.json" 'd["results.json"]["primes_below_100000"]')" = 9592 ] &&
        ok "local java (warm): results JSON printed to stdout" || bad "local java (warm)" "$(diag java2)"

    run_cli cerr run --executor local --state-dir "$S" --profile java examples/validation/java-compile-error
    [ "$(rc cerr)" != 0 ] && ok "compile error: non-zero exit ($(rc cerr))" || bad "compile error exit" "$(diag cerr)"
    grep -q 'Main.java:[0-9]*: error:' "$T/cerr.err" && ok "compile error: javac's message on stderr" || bad "compile error stderr" "$(diag cerr)"
    ! grep -q 'error:' "$T/cerr.out" && ok "compile error: nothing of it on stdout" || bad "compile error stdout" "$(diag cerr)"
    [ "$(rc cerr)" = 80 ] && grep -q 'verdict compile_error: Main.java:6: .;. expected' "$T/cerr.err" &&
        grep -q 'the program does not compile' "$T/cerr.err" && ! grep -q 'wrote no \*.json' "$T/cerr.err" &&
        grep -q 'hint: fix the compile errors javac reported' "$T/cerr.err" &&
        ok "compile error: verdict compile_error with javac's first error, exit 80, not 'no *.json'" || bad "compile error message" "$(diag cerr)"
    if command -v script >/dev/null; then
        env -u NO_COLOR TERM=xterm script -qec "$CLI run --executor local --state-dir $S --profile java examples/validation/java-compile-error >/dev/null" /dev/null >"$T/cerrtty.err" 2>&1 </dev/null
        grep -q $'>> build   \033\\[0m \033\\[31mfailed.*exit code 1' "$T/cerrtty.err" && ! grep -q $'build.*\033\\[32mok' "$T/cerrtty.err" &&
            ok "terminal: a non-zero exit is a red 'failed ... exit code 1'" || bad "terminal exec failure" "$(cat -v "$T/cerrtty.err" | tail -n 8)"
    fi

    run_cli mvn run --executor local --state-dir "$S" --profile java --json examples/validation/java-maven
    r=$(json_get "$T/mvn.out" 'd["status"], d["exit_code"], "network" in d["error"]["hint"]')
    [ "$(rc mvn)" = 80 ] && [ "$r" = "('compile_error', 1, True)" ] && grep -q 'hint: Maven could not download.*needs network access' "$T/mvn.err" &&
        ok "Maven offline: the failure says Maven needs the network" || bad "Maven offline hint" "$r
$(diag mvn)"

    run_cli json run --executor local --state-dir "$S" --profile java --thread jsonrun --json examples/validation/java-javac
    r=$(json_get "$T/json.out" 'd["exit_code"], d["thread_id"], d["profile"], d["executor"], d["results"]["results.json"]["fibonacci_50"], "fibonacci(50)" in d["stdout"], "diagnostic" in d["stderr"], sorted(d["timings_ms"])')
    [ "$(rc json)" = 0 ] && [ "$r" = "(0, 'jsonrun', 'java', 'local', 12586269025, True, True, ['build', 'close', 'download', 'run', 'sandbox', 'session', 'snapshot', 'total', 'upload'])" ] &&
        ok "--json: one summary document on stdout" || bad "--json" "$r
$(diag json)"

    mkdir -p "$T/exit7" && printf 'echo partial\nexit 7\n' >"$T/exit7/run.sh"
    run_cli exit7 run --executor local --state-dir "$S" --profile shell "$T/exit7"
    [ "$(rc exit7)" = 7 ] && ok "exit status is the program's (7)" || bad "exit status passthrough" "$(diag exit7)"

    mkdir -p "$T/slow" && printf 'echo started\nsleep 30\n' >"$T/slow/run.sh"
    start=$(date +%s)
    run_cli slow run --executor local --state-dir "$S" --profile shell --timeout 1 "$T/slow"
    [ "$(rc slow)" = 124 ] && [ $(( $(date +%s) - start )) -lt 20 ] && ok "--timeout: program stopped, exit 124" || bad "--timeout" "$(diag slow)"
    run_cli slowjson run --executor local --state-dir "$S" --profile shell --timeout 1 --json "$T/slow"
    r=$(json_get "$T/slowjson.out" 'd["status"], d["exit_code"], d["exit_status"], d["code"], d["error"]["phase"], "run" in d["timings_ms"], d["sandbox"] is not None, d["verdict"]')
    [ "$(rc slowjson)" = 124 ] && [ "$r" = "('timed_out', None, 124, 'DVAL_ETIMEOUT', 'run', True, True, 'time_limit')" ] &&
        ok "--json timeout: status timed_out, timings and sandbox kept" || bad "--json timeout" "$r
$(diag slowjson)"

    # Ctrl-C / SIGTERM on a silent program
    sig_run sigint INT 2 run --executor local --state-dir "$S" --profile shell "$T/sleep"
    [ "$(rc sigint)" = 130 ] && [ "$(cat "$T/sigint.ms")" -lt 1000 ] && grep -q 'interrupted' "$T/sigint.err" &&
        ok "SIGINT on a silent 'sleep 20': exit 130 in $(cat "$T/sigint.ms") ms, 'interrupted'" || bad "SIGINT on sleep 20" "rc=$(rc sigint) ms=$(cat "$T/sigint.ms") $(cat "$T/sigint.err")"
    sig_run sigterm TERM 2 run --executor local --state-dir "$S" --profile shell --json "$T/sleep"
    echo sigterm >>"$T/json.list"
    r=$(json_get "$T/sigterm.out" 'd["status"], d["exit_status"], d["exit_code"], d["session"] is not None')
    [ "$(rc sigterm)" = 143 ] && [ "$(cat "$T/sigterm.ms")" -lt 1000 ] && grep -q 'interrupted (SIGTERM)' "$T/sigterm.err" && [ "$r" = "('interrupted', 143, None, True)" ] &&
        ok "SIGTERM on 'sleep 20': exit 143 in $(cat "$T/sigterm.ms") ms, --json says interrupted" || bad "SIGTERM on sleep 20" "rc=$(rc sigterm) ms=$(cat "$T/sigterm.ms") $r $(cat "$T/sigterm.err")"
    # an interrupt during a long upload (10000 files) ends it too
    mkdir -p "$T/many" && printf 'sleep 20\n' >"$T/many/run.sh" && (cd "$T/many" && for i in $(seq 10000); do : >"f$i"; done)
    sig_run sigup INT 1.5 run --executor local --state-dir "$S" --profile shell --json "$T/many"
    echo sigup >>"$T/json.list"
    ph=$(json_get "$T/sigup.out" 'd["error"]["phase"]')
    [ "$(rc sigup)" = 130 ] && [ "$(cat "$T/sigup.ms")" -lt 1000 ] && [ "$(json_get "$T/sigup.out" 'd["status"]')" = interrupted ] &&
        ok "SIGINT during $ph of 10000 files: exit 130 in $(cat "$T/sigup.ms") ms" || bad "SIGINT during upload" "rc=$(rc sigup) ms=$(cat "$T/sigup.ms") $(diag sigup)"
    rm -rf "$T/many"
    run_cli afterint run --executor local --state-dir "$S" --profile shell examples/validation/shell
    [ "$(rc afterint)" = 0 ] && ok "the sandbox works after an interrupted run" || bad "run after interrupt" "$(diag afterint)"

    # two runs with one thread id at once: the second is busy (75), when
    # the library reports DVAL_EBUSY for it
    mkdir -p "$T/busy" && printf 'sleep 3\n' >"$T/busy/run.sh"
    "$CLI" run --executor local --state-dir "$S" --profile shell --allow-missing-results --thread busy1 "$T/busy" >/dev/null 2>&1 </dev/null &
    busy_pid=$!
    sleep 1.5
    run_cli busy run --executor local --state-dir "$S" --profile shell --allow-missing-results --thread busy1 --json "$T/busy"
    wait $busy_pid
    if [ "$(rc busy)" = 75 ]; then
        [ "$(json_get "$T/busy.out" 'd["status"], d["code"]')" = "('busy', 'DVAL_EBUSY')" ] && grep -q 'another --thread' "$T/busy.err" &&
            ok "a thread id in use: exit 75, status busy" || bad "busy thread id" "$(diag busy)"
    else
        skipped "thread id in use → 75" "the library does not report DVAL_EBUSY for a thread id in use yet (rc $(rc busy))"
    fi

    # what a program reads (its environment, /proc, its directories)
    # names no host pid, and the default thread id is 96 random bits: a
    # concurrent run's directory cannot be guessed (issue 43)
    mkdir -p "$T/envpid" && printf 'env; cat /proc/self/status /proc/self/cgroup /proc/self/mountinfo; pwd; ls -al / /tmp "$HOME"\n' >"$T/envpid/run.sh"
    "$CLI" run --executor local --state-dir "$S" --profile shell --allow-missing-results --results "$T/envpid.json" "$T/envpid" >"$T/envpid.out" 2>"$T/envpid.err" </dev/null &
    envpid_pid=$!
    wait $envpid_pid
    grep -qE '^DVAL_THREAD_ID=cli-[0-9a-f]{24}$' "$T/envpid.out" &&
        grep -qE '^DVAL_SESSION=shell-sandbox-[0-9a-f]{8}:shell-sandbox-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$' "$T/envpid.out" &&
        ! grep -qw "$envpid_pid" "$T/envpid.out" && ! grep -qw "$$" "$T/envpid.out" &&
        ok "a program sees no host pid; default thread ids are cli-<96 random bits>" || bad "host pid or guessable id" "pid $envpid_pid $(grep -w -e "$envpid_pid" -e DVAL_ "$T/envpid.out")"

    mkdir -p "$T/tick" && printf 'i=0; while [ $i -lt 150 ]; do echo tick $i; i=$((i+1)); sleep 0.2; done\n' >"$T/tick/run.sh"
    "$CLI" run --executor local --state-dir "$S" --profile shell --allow-missing-results "$T/tick" >"$T/tick.out" 2>"$T/tick.err" </dev/null &
    tick_pid=$!
    sleep 2; kill -INT $tick_pid; start=$(date +%s); wait $tick_pid; tick_rc=$?
    [ $tick_rc = 130 ] && [ $(( $(date +%s) - start )) -lt 10 ] && grep -q 'stopped' "$T/tick.err" && ok "SIGINT: run stops, exit 130" || bad "SIGINT" "rc=$tick_rc $(cat "$T/tick.err")"

    mkdir -p "$T/nores" && printf 'echo no results\n' >"$T/nores/run.sh"
    run_cli nores run --executor local --state-dir "$S" --profile shell "$T/nores"
    [ "$(rc nores)" = 65 ] && grep -q 'no \*.json' "$T/nores.err" && ok "missing results: exit 65 with a message" || bad "missing results" "$(diag nores)"
    run_cli nores2 run --executor local --state-dir "$S" --profile shell --allow-missing-results "$T/nores"
    [ "$(rc nores2)" = 0 ] && ok "--allow-missing-results: exit 0" || bad "--allow-missing-results" "$(diag nores2)"

    mkdir -p "$T/badjson" && printf 'mkdir -p "$DVAL_RESULTS_DIR"; echo "{not json" > "$DVAL_RESULTS_DIR/r.json"; printf "{\\"ok\\":1}" > "$DVAL_RESULTS_DIR/good.json"\n' >"$T/badjson/run.sh"
    run_cli badjson run --executor local --state-dir "$S" --profile shell --json "$T/badjson"
    r=$(json_get "$T/badjson.out" 'd["status"], d["results"], len(d["errors"]) > 0')
    [ "$(rc badjson)" = 65 ] && [ "$r" = "('results_invalid', {'good.json': {'ok': 1}}, True)" ] && [ "$(json_get "$T/badjson.out" 'd["code"]')" = DVAL_ERESULTS ] &&
        ok "invalid results: exit 65, valid ones still reported" || bad "invalid results" "$r
$(diag badjson)"

    mkdir -p "$T/escape" && cp examples/validation/shell/run.sh "$T/escape/" && ln -s /etc/passwd "$T/escape/passwd"
    run_cli escape run --executor local --state-dir "$S" --profile shell "$T/escape"
    [ "$(rc escape)" = 64 ] && grep -q 'outside the source directory' "$T/escape.err" && ok "symlink escaping the source dir is refused" || bad "symlink escape" "$(diag escape)"

    mkdir -p "$T/nested/sub/dir" && printf 'cat sub/dir/data.txt; mkdir -p "$DVAL_RESULTS_DIR"; echo "{\\"n\\":$(cat sub/dir/data.txt)}" > "$DVAL_RESULTS_DIR/n.json"\n' >"$T/nested/run.sh" && echo 42 >"$T/nested/sub/dir/data.txt"
    run_cli nested run --executor local --state-dir "$S" --profile shell --results "$T/nested.results" "$T/nested"
    [ "$(rc nested)" = 0 ] && [ "$(json_get "$T/nested.results" 'd["n.json"]["n"]')" = 42 ] && ok "nested files uploaded with relative paths" || bad "nested upload" "$(diag nested)"

    # a profile file: its files are in the snapshot, its run command runs
    mkdir -p "$T/pf/src" && printf '#!/bin/sh\necho "{\\"from\\":\\"pfile\\"}"\n' >"$T/pf/hello.sh"
    printf '{"name": "cli-pfile", "image": "debian:12-slim", "files": [{"from": "hello.sh", "to": "/opt/p/hello.sh", "mode": "0755"}],\n "run_command": "/opt/p/hello.sh > $DVAL_RESULTS_DIR/r.json"}\n' >"$T/pf/p.json"
    run_cli pfile run --executor local --state-dir "$S" --profile "$T/pf/p.json" --json "$T/pf/src"
    [ "$(rc pfile)" = 0 ] && [ "$(json_get "$T/pfile.out" 'd["results"]["r.json"]["from"], d["profile"], d["sandbox"].startswith("cli-pfile-sandbox-")')" = "('pfile', 'cli-pfile', True)" ] &&
        ok "--profile FILE: a profile file's files and run command" || bad "--profile FILE" "$(diag pfile)"
    # snapshot ls shows the profile file's snapshot (PROFILE "-": this
    # process loaded no profile file), snapshot rm NAME removes it
    run_cli pfls snapshot ls --executor local --state-dir "$S"
    pfsnap=$(awk -F'\t' '$1 == "-" && $2 ~ /^validation-snapshot-cli-pfile-/ {print $2}' "$T/pfls.out")
    [ "$(rc pfls)" = 0 ] && [ -n "$pfsnap" ] && grep -q "^-"$'\t'"$pfsnap"$'\t'"active"$'\t' "$T/pfls.out" &&
        ok "snapshot ls: a profile file's snapshot, active" || bad "snapshot ls of a profile file's snapshot" "$(diag pfls)"
    run_cli pfrm snapshot rm --executor local --state-dir "$S" "${pfsnap:-none}"
    run_cli pfls2 snapshot ls --executor local --state-dir "$S"
    [ "$(rc pfrm)" = 0 ] && grep -q "^$pfsnap"$'\t'"removed$" "$T/pfrm.out" && ! grep -q "cli-pfile" "$T/pfls2.out" &&
        ok "snapshot rm NAME: the profile file's snapshot is gone" || bad "snapshot rm NAME" "$(diag pfrm; diag pfls2)"
    run_cli pfrm2 snapshot rm --executor local --state-dir "$S" no-such-snapshot
    [ "$(rc pfrm2)" = 64 ] && grep -q 'no snapshot is named "no-such-snapshot"' "$T/pfrm2.err" &&
        ok "snapshot rm of an unknown name: exit 64, said so" || bad "snapshot rm unknown" "$(diag pfrm2)"
    # image pull|ls|rm (a pull from a registry: tests/local/test_image_cache.c)
    run_cli imgls image ls --executor local --state-dir "$S"
    [ "$(rc imgls)" = 0 ] && head -n 1 "$T/imgls.out" | grep -q $'^REF\tMANIFEST\tPULLED$' &&
        ok "image ls: a header, exit 0" || bad "image ls" "$(diag imgls)"
    run_cli imgbad image pull --executor local --state-dir "$S" /not/a/ref
    run_cli imgnone image pull --executor local --state-dir "$S"
    [ "$(rc imgbad)" = 64 ] && grep -q 'not a registry reference' "$T/imgbad.err" && [ "$(rc imgnone)" = 64 ] &&
        ok "image pull of a path, or of nothing: exit 64" || bad "image pull usage" "$(diag imgbad; diag imgnone)"
    printf '{"name": "cli-pfile", "image": "debian:12-slim", "run_comand": "true"}\n' >"$T/pf/typo.json"
    run_cli pftypo run --executor local --state-dir "$S" --profile "$T/pf/typo.json" "$T/pf/src"
    [ "$(rc pftypo)" = 64 ] && grep -q 'typo.json: unknown field "run_comand"' "$T/pftypo.err" &&
        ok "--profile FILE with a mistake: exit 64, the field named" || bad "--profile FILE mistake" "$(diag pftypo)"
    # --image: the profile over another image, under a name of its own
    run_cli pimage run --executor local --state-dir "$S" --profile shell --image debian:12-slim --json "$T/nested"
    [ "$(rc pimage)" = 0 ] && [ "$(json_get "$T/pimage.out" 'd["profile"].startswith("shell.image-"), "-image-" in d["sandbox"], d["results"]["n.json"]["n"]')" = "(True, True, 42)" ] &&
        ok "--image REF: the profile over that image, its own snapshot and sandbox" || bad "--image" "$(diag pimage)"

    run_cli verbose run --executor local --state-dir "$S" --profile shell --verbose examples/validation/shell
    grep -q '^>> run' "$T/verbose.err" && ! grep -q '^>>' "$T/verbose.out" && ! grep -q $'\033' "$T/verbose.err" &&
        ok "--verbose: progress on stderr only, no colours off a terminal" || bad "--verbose" "$(diag verbose)"
    grep -q '^>> download ok .* 1 result file$' "$T/verbose.err" && ! grep -q 'result files' "$T/verbose.err" &&
        ok "'1 result file', not '1 result files'" || bad "result file count" "$(diag verbose)"

    if command -v script >/dev/null; then
        # stderr on a pseudo-terminal, stdout to a file (colours need a TERM
        # that has them: CI systems often run with TERM=dumb or NO_COLOR)
        env -u NO_COLOR TERM=xterm script -qec "$CLI run --executor local --state-dir $S --profile shell examples/validation/shell >$T/tty.out" /dev/null >"$T/tty.err" 2>&1 </dev/null
        grep -q $'\033\\[1;34m>> run' "$T/tty.err" && ! grep -q '>>' "$T/tty.out" && ! grep -q $'\033' "$T/tty.out" && grep -q '^sum 1..100 = 5050' "$T/tty.out" &&
            ok "terminal: coloured progress on stderr, stdout clean" || bad "terminal progress" "$(cat -v "$T/tty.err" | head -n 20)"
        NO_COLOR=1 script -qec "$CLI run --executor local --state-dir $S --profile shell examples/validation/shell >/dev/null" /dev/null >"$T/nc.err" 2>&1 </dev/null
        grep -q '>> run' "$T/nc.err" && ! grep -q $'\033' "$T/nc.err" && ok "NO_COLOR: progress without colours" || bad "NO_COLOR" "$(cat -v "$T/nc.err" | head -n 20)"
        env -u NO_COLOR TERM=dumb script -qec "$CLI run --executor local --state-dir $S --profile shell examples/validation/shell >/dev/null" /dev/null >"$T/dumb.err" 2>&1 </dev/null
        grep -q '>> run' "$T/dumb.err" && ! grep -q $'\033' "$T/dumb.err" && ok "TERM=dumb: progress without colours" || bad "TERM=dumb" "$(cat -v "$T/dumb.err" | head -n 20)"
        # a hostile program's escape sequences (red team A2): on the
        # operator's terminal colour passes, while OSC (clipboard, title),
        # a screen clear, BEL and a C1 CSI are shown inert (^[...); with
        # --raw-output, and off a terminal, the bytes pass as they came
        mkdir -p "$T/esc" && cat >"$T/esc/run.sh" <<'ESC'
printf '\033]52;c;cHduZWQ=\007\033]0;TITLE\007\033[2J\033[31mred\033[0m \302\2332J\n'
printf '\033]0;ERR\007\n' >&2
printf '\033'; sleep 0.3; printf ']0;SPLIT\007\n'
printf 'c1 \2332J\2350;T8\234 \302\2350;U8\302\234 \303\233 \342\202\254 \342\2332J \340\200\2332J\n'
ESC
        # raw 8-bit C1 (CSI, OSC, ST) and UTF-8 encoded ones shown in ESC
        # form; letters whose UTF-8 holds such a byte (U+00DB, the euro
        # sign) pass whole, while a cut (E2 9B) or overlong (E0 80 9B)
        # character is no letter and its C1 byte is shown inert too
        c1_inert() { $PY -c 'import sys; b = open(sys.argv[1], "rb").read()
ok = b"c1 ^[[2J^[]0;T8^[\\ ^[]0;U8^[\\ \xc3\x9b \xe2\x82\xac \xe2^[[2J \xe0^[@^[[2J" in b
sys.exit(0 if ok and not any(c in b.replace(b"\xc3\x9b", b"") for c in b"\x9b\x9c\x9d") else 1)' "$1"; }
        esc_run() { env -u NO_COLOR TERM=xterm script -qec "$CLI run --executor local --state-dir $S --profile shell --allow-missing-results $* $T/esc" /dev/null 2>&1 </dev/null; }
        esc_run >"$T/esc.tty"
        ! grep -q $'\033]' "$T/esc.tty" && ! grep -q $'\033\\[2J' "$T/esc.tty" && ! grep -q $'\007' "$T/esc.tty" && ! grep -q $'\302\233' "$T/esc.tty" &&
            grep -qF '^[]52;c;cHduZWQ=^G^[]0;TITLE^G^[[2J' "$T/esc.tty" && grep -q $'\033\\[31mred\033\\[0m ^\\[\\[2J' "$T/esc.tty" && grep -qF '^[]0;ERR^G' "$T/esc.tty" &&
            grep -qF '^[]0;SPLIT^G' "$T/esc.tty" && c1_inert "$T/esc.tty" &&
            ok "terminal: a program's escape sequences shown inert, colour kept" || bad "terminal escapes" "$(cat -v "$T/esc.tty" | head -n 20)"
        esc_run --raw-output >"$T/escraw.tty"
        grep -q $'\033]52;c;' "$T/escraw.tty" && ok "--raw-output: the program's bytes reach the terminal" || bad "--raw-output" "$(cat -v "$T/escraw.tty" | head -n 20)"
        run_cli escpipe run --executor local --state-dir "$S" --profile shell --allow-missing-results "$T/esc"
        grep -q $'\033]52;c;cHduZWQ=\007\033]0;TITLE' "$T/escpipe.out" && grep -q $'\302\233' "$T/escpipe.out" && LC_ALL=C grep -q $'\2332J' "$T/escpipe.out" &&
            ok "off a terminal the program's output is byte for byte" || bad "escapes off a terminal" "$(cat -v "$T/escpipe.out")"
        script -qec "$CLI logs --state-dir $S" /dev/null >"$T/esclogs.tty" 2>&1 </dev/null
        ! grep -q $'\033]' "$T/esclogs.tty" && grep -qF '^[]52;c;cHduZWQ=^G' "$T/esclogs.tty" && c1_inert "$T/esclogs.tty" &&
            ok "logs on a terminal: the transcript's escape sequences shown inert" || bad "logs escapes" "$(cat -v "$T/esclogs.tty" | head -n 20)"
        mkdir -p "$T/esc2" && cp "$T/esc/run.sh" "$T/esc2/"
        esc_run "$T/esc2" >"$T/escbatch.tty"
        ! grep -q $'\033]' "$T/escbatch.tty" && grep -qF '[esc2] ^[]52;c;cHduZWQ=^G' "$T/escbatch.tty" && grep -qF '[esc] ^[]0;SPLIT^G' "$T/escbatch.tty" &&
            ok "batch on a terminal: each folder's escape sequences shown inert" || bad "batch escapes" "$(cat -v "$T/escbatch.tty" | head -n 20)"
    else
        skipped "terminal progress" "script(1) not installed"
    fi

    run_cli snapls snapshot ls
    [ "$(rc snapls)" = 0 ] && grep -qE $'^java\tvalidation-snapshot-java'"$H"$'\t' "$T/snapls.out" && ok "snapshot ls lists the profiles' snapshots" || bad "snapshot ls" "$(diag snapls)"
    run_cli snapls2 snapshot ls --executor local --state-dir "$S"
    [ "$(rc snapls2)" = 0 ] && grep -qE $'^java\t[^\t]*\tactive\t[^\t]*\topenjdk version "25\\.' "$T/snapls2.out" && ok "snapshot ls: the runtime the java snapshot really holds (OpenJDK 25)" || bad "snapshot ls runtime" "$(diag snapls2)"
    run_cli snapens snapshot ensure --executor local --state-dir "$S" shell
    [ "$(rc snapens)" = 0 ] && grep -qE $'^validation-snapshot-shell'"$H"$'\tactive' "$T/snapens.out" && ok "snapshot ensure" || bad "snapshot ensure" "$(diag snapens)"

    run_cli logs logs --state-dir "$S" java1
    [ "$(rc logs)" = 0 ] && grep -q 'fibonacci(50) = 12586269025' "$T/logs.out" && ok "logs THREAD_ID prints the transcript" || bad "logs" "$(diag logs)"

    run_cli sbls sandbox ls --executor local --state-dir "$S"
    [ "$(rc sbls)" = 0 ] && grep -q 'java-25-sandbox' "$T/sbls.out" && ok "sandbox ls finds the managed sandboxes" || bad "sandbox ls" "$(diag sbls)"
    [ "$(head -n1 "$T/sbls.out" | tr -s ' ')" = "NAME STATE" ] && ! grep -qE '(shell-sandbox|java-25-sandbox).*(shell-sandbox|java-25-sandbox)' "$T/sbls.out" &&
        grep -qE "^shell-sandbox$H +started\$" "$T/sbls.out" && ok "sandbox ls: a header, each name once" || bad "sandbox ls layout" "$(diag sbls)"
    run_cli sbrmx sandbox rm --executor local --state-dir "$S" no-such-sandbox
    [ "$(rc sbrmx)" = 66 ] && grep -q 'no sandbox named "no-such-sandbox"' "$T/sbrmx.err" && ok "sandbox rm of an unknown name: exit 66" || bad "sandbox rm unknown" "$(diag sbrmx)"
    run_cli sbrmbad sandbox rm --executor local --state-dir "$S" '../etc'
    [ "$(rc sbrmbad)" = 64 ] && grep -q 'invalid sandbox name' "$T/sbrmbad.err" && ok "sandbox rm of an invalid name: exit 64" || bad "sandbox rm invalid" "$(diag sbrmbad)"
    run_cli sbrmsp sandbox rm --executor local --state-dir "$S" 'a?b c'
    [ "$(rc sbrmsp)" = 64 ] && grep -q 'invalid sandbox name' "$T/sbrmsp.err" && ok "sandbox rm of a name the library refuses: exit 64, not 66" || bad "sandbox rm a?b c" "$(diag sbrmsp)"
    run_cli sbrm sandbox rm --executor local --state-dir "$S" "$shellsb"
    run_cli sbls2 sandbox ls --executor local --state-dir "$S"
    [ "$(rc sbrm)" = 0 ] && ! grep -qE "^$shellsb[[:space:]]" "$T/sbls2.out" && ok "sandbox rm NAME reaps it" || bad "sandbox rm" "$(diag sbrm)
$(diag sbls2)"

    if command -v dotnet >/dev/null; then
        run_cli dotnet run --executor local --state-dir "$S" --profile dotnet examples/validation/dotnet
        [ "$(rc dotnet)" = 0 ] && grep -q '"fibonacci_50": 12586269025' "$T/dotnet.out" && grep -q "fibonacci(50) = 12586269025" "$T/dotnet.out" && ! grep -q workload "$T/dotnet.err" &&
            ok "dotnet locally: the C# sample compiled and run" || bad "dotnet locally" "$(diag dotnet)"
    else
        run_cli dotnet run --executor local --state-dir "$S" --profile dotnet examples/validation/dotnet
        [ "$(rc dotnet)" = 69 ] && grep -q 'apt-get install -y dotnet-sdk-10.0' "$T/dotnet.err" && ok "dotnet locally without an SDK: exit 69 saying how to get one" || bad "dotnet unavailable" "$(diag dotnet)"
    fi
fi

# ------------------------------------------------------- daytona via emulator
EMU=tests/emulator/emulator.py
if [ ! -f "$EMU" ]; then
    skipped "daytona executor tests" "emulator not landed ($EMU missing)"
elif ! "$PY" -c 'import aiohttp' 2>/dev/null; then
    skipped "daytona executor tests" "python3-aiohttp missing"
else
    "$PY" "$EMU" --port-file "$T/port" --lifetime 600 >"$T/emu.log" 2>&1 &
    EMU_PID=$!
    for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.1; done
    if [ ! -s "$T/port" ]; then
        bad "emulator starts" "$(tail -n 20 "$T/emu.log")"
    else
        PORT=$(cat "$T/port")
        emu config '{"transition_ms":20,"snapshot_build_ms":50,"api_key":"test-key-secret"}' >/dev/null
        export DAYTONA_API_URL=http://127.0.0.1:$PORT/api DAYTONA_API_KEY=test-key-secret
        run_cli dshell run --executor daytona --profile shell --thread dshell --results "$T/dshell.results" examples/validation/shell
        if not_landed dshell; then
            skipped "daytona executor tests" "daytona executor not landed: $(head -n1 "$T/dshell.err")"
        else
            [ "$(rc dshell)" = 0 ] && grep -q '^sum 1..100 = 5050$' "$T/dshell.out" && grep -q '^diagnostic: thread dshell' "$T/dshell.err" &&
                ok "daytona shell sample: exit 0, output split" || bad "daytona shell sample" "$(diag dshell)"
            [ "$(json_get "$T/dshell.results" 'd["results.json"]["sum_1_to_100"]')" = 5050 ] && ok "daytona shell: results downloaded" || bad "daytona shell results" "$(diag dshell)"
            ! grep -q 'test-key-secret' "$T/dshell.out" "$T/dshell.err" && ok "API key never printed" || bad "API key printed" "$(diag dshell)"

            # the emulator runs no snapshot build step: its java snapshot
            # lacks the profile's scripts, which is the infrastructure's
            # fault, not the program's
            run_cli djava run --executor daytona --profile java --thread djava --json examples/validation/java-javac
            r=$(json_get "$T/djava.out" 'd["verdict"], d["executor"], "the scripts of this profile (/opt/dval-javac) are not in this sandbox" in d["verdict_detail"]')
            [ "$(rc djava)" = 70 ] && [ "$r" = "('infrastructure_error', 'daytona', True)" ] && ok "daytona java profile on a snapshot without its scripts: infrastructure_error, exit 70" || bad "daytona java sample" "$r
$(diag djava)"

            r=$(emu requests | "$PY" -c 'import json,sys; rq=json.load(sys.stdin); print(any(r["method"]=="DELETE" and "/session/" in r["path"] for r in rq), any("dval.managed-by" in (r.get("body") or "") for r in rq if r["method"]=="POST" and r["path"].rstrip("/").endswith("/sandbox")))' 2>&1)
            [ "$r" = "True True" ] && ok "daytona: sessions deleted, sandboxes labelled" || bad "daytona session close / labels" "$r"

            run_cli dsbls sandbox ls --executor daytona
            [ "$(rc dsbls)" = 0 ] && grep -q 'shell-sandbox' "$T/dsbls.out" && ok "daytona sandbox ls" || bad "daytona sandbox ls" "$(diag dsbls)"
            run_cli dimg image ls --executor daytona
            [ "$(rc dimg)" = 69 ] && grep -q 'pulls an image itself' "$T/dimg.err" &&
                ok "image ls on daytona: exit 69, Daytona pulls images itself" || bad "image ls on daytona" "$(diag dimg)"

            DAYTONA_API_KEY= run_cli dnokey run --executor daytona --profile shell --json examples/validation/shell
            [ "$(rc dnokey)" = 69 ] && grep -q 'DAYTONA_API_KEY' "$T/dnokey.err" && [ "$(json_get "$T/dnokey.out" 'd["status"], d["error"]["phase"]')" = "('unavailable', 'client')" ] &&
                ok "daytona without a key: exit 69" || bad "daytona without a key" "$(diag dnokey)"
            [ "$(head -n1 "$T/dsbls.out" | tr -s ' ')" = "NAME STATE ID" ] && [ "$(grep -c 'shell-sandbox' "$T/dsbls.out")" = 1 ] &&
                ok "daytona sandbox ls: header, name once, id column" || bad "daytona sandbox ls layout" "$(diag dsbls)"

            DAYTONA_API_KEY=wrong-key run_cli d401 run --executor daytona --profile shell --json examples/validation/shell
            r=$(json_get "$T/d401.out" 'd["status"], d["code"], "DAYTONA_API_KEY" in d["error"]["hint"]')
            [ "$(rc d401)" = 69 ] && grep -q 'hint: .*401.*DAYTONA_API_KEY' "$T/d401.err" && ! grep -q 'wrong-key' "$T/d401.err" "$T/d401.out" && [ "$r" = "('unavailable', 'DVAL_EAUTH', True)" ] &&
                ok "HTTP 401: exit 69 with a DAYTONA_API_KEY hint" || bad "401 hint" "$r
$(diag d401)"
            DAYTONA_API_KEY=wrong-key run_cli d401ls sandbox ls --executor daytona
            [ "$(rc d401ls)" = 69 ] && grep -q 'DAYTONA_API_KEY' "$T/d401ls.err" && ok "sandbox ls with a rejected key: exit 69, hint" || bad "sandbox ls 401" "$(diag d401ls)"

            # bad arguments cost no remote request
            n0=$(emu requests | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)))')
            run_cli dbadres run --executor daytona --profile shell --results /nonexistent/x.json examples/validation/shell
            run_cli dbadprof run --executor daytona --profile jav examples/validation/shell
            run_cli dbaddir run --executor daytona --profile shell "$T/nowhere"
            run_cli dbadrm sandbox rm --executor daytona 'a/b'
            n1=$(emu requests | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)))')
            [ "$(rc dbadres)" = 66 ] && [ "$(rc dbadprof)" = 64 ] && [ "$(rc dbaddir)" = 66 ] && [ "$(rc dbadrm)" = 64 ] && [ "$n0" = "$n1" ] &&
                ok "argument errors are found before any API request ($n0 = $n1 requests)" || bad "arguments checked first" "requests $n0 -> $n1; rcs $(rc dbadres) $(rc dbadprof) $(rc dbaddir) $(rc dbadrm)"

            # interrupts on Daytona: a silent program, then a slow close
            sig_run dsigint INT 2 run --executor daytona --profile shell "$T/sleep"
            [ "$(rc dsigint)" = 130 ] && [ "$(cat "$T/dsigint.ms")" -lt 1000 ] && grep -q 'interrupted' "$T/dsigint.err" &&
                ok "daytona: SIGINT on 'sleep 20' exits 130 in $(cat "$T/dsigint.ms") ms" || bad "daytona SIGINT" "rc=$(rc dsigint) ms=$(cat "$T/dsigint.ms") $(cat "$T/dsigint.err")"
            emu faults '{"method":"DELETE","path_regex":"/session/","times":3,"action":"delay","delay_ms":8000}' >/dev/null
            "$CLI" run --executor daytona --profile shell "$T/sleep" >"$T/d2int.out" 2>"$T/d2int.err" </dev/null &
            pid=$!
            sleep 2; kill -INT $pid; sleep 1; kill -INT $pid; t0=$(now_ns); wait $pid; d2rc=$?; d2ms=$(ms_since "$t0")
            "$PY" -c 'import sys,urllib.request as u; u.urlopen(u.Request(sys.argv[1], method="DELETE"))' "http://127.0.0.1:$PORT/_emu/faults" 2>/dev/null
            [ $d2rc = 130 ] && [ $d2ms -lt 1000 ] && grep -q 'interrupted again; exiting at once' "$T/d2int.err" &&
                ok "a second SIGINT during a slow cancel exits at once (${d2ms} ms)" || bad "second SIGINT" "rc=$d2rc ms=$d2ms $(cat "$T/d2int.err")"

            # an interrupt ends the wait for a sandbox that stays 'starting'
            emu "sandbox/$shellsb/state" '{"state":"starting","stuck":true}' >/dev/null
            sig_run dwait INT 2 run --executor daytona --profile shell --json examples/validation/shell
            echo dwait >>"$T/json.list"
            emu "sandbox/$shellsb/state" '{"state":"started","stuck":false}' >/dev/null
            [ "$(rc dwait)" = 130 ] && [ "$(cat "$T/dwait.ms")" -lt 1000 ] && [ "$(json_get "$T/dwait.out" 'd["status"], d["error"]["phase"], d["exit_code"]')" = "('interrupted', 'sandbox', None)" ] &&
                ok "SIGINT ends the wait for a 'starting' sandbox in $(cat "$T/dwait.ms") ms" || bad "SIGINT during the sandbox wait" "rc=$(rc dwait) ms=$(cat "$T/dwait.ms") $(diag dwait)"
        fi
    fi
fi

# ------------------------------------------------ unreachable API, terminal
if command -v script >/dev/null; then
    # stderr on a pseudo-terminal; SIGINT after 3.5 s ends the retries
    start=$(now_ns)
    script -qec "DAYTONA_API_URL=http://127.0.0.1:1/api DAYTONA_API_KEY=k timeout --preserve-status -s INT 3.5 $CLI run --executor daytona --profile shell examples/validation/shell; echo cli-rc=\$?" /dev/null >"$T/unreach.tty" 2>&1 </dev/null
    ms=$(ms_since "$start")
    # the retry line is rewritten in place: several retries, no newline
    # between them, no [warn] lines, and no second counter
    r=$("$PY" - "$T/unreach.tty" <<'PYEOF'
import re, sys
t = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
lines = t.split("\n")
live = [l for l in lines if "retry 1 of" in l]
ok = (len(live) == 1 and "retry 2 of" in live[0] and "\r\x1b[K" in live[0]
      and "[warn]" not in t and "attempt 1/" not in t
      and "cli-rc=130" in t and "interrupted" in t)
print("ok" if ok else repr(t[-1500:]))
PYEOF
)
    [ "$r" = ok ] && [ "$ms" -lt 5000 ] && ok "unreachable API on a terminal: one live retry line; SIGINT ends the wait (${ms} ms)" || bad "live retry line" "$r ($ms ms)"
else
    skipped "live retry line" "script(1) not installed"
fi

# ---------------------------------------------------------- whole-suite checks
# No status enum name in anything the CLI told a user (stderr).
raw=$(grep -lE 'DVAL_E[A-Z]+|DVAL_OK' "$T"/*.err "$T"/*.tty 2>/dev/null)
[ -z "$raw" ] && ok "no DVAL_* enum name in any message to users" || bad "raw enum names" "$(for f in $raw; do echo "$f: $(grep -oE 'DVAL_[A-Z]+' "$f" | sort -u | tr '\n' ' ')"; done)"

# Every --json document of this suite against the installed schema.
SCHEMA=man/daytona-validate-run.schema.json
if ! "$PY" -c 'import jsonschema' 2>/dev/null; then
    skipped "--json schema validation" "python3-jsonschema missing (tests/deps.sh installs it)"
elif [ ! -s "$T/json.list" ]; then
    bad "--json schema validation" "no --json output was recorded"
else
    r=$("$PY" - "$SCHEMA" "$T" $(sort -u "$T/json.list") <<'PYEOF'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
problems, statuses = [], set()
for name in sys.argv[3:]:
    text = open("%s/%s.out" % (sys.argv[2], name)).read()
    docs = [l for l in text.splitlines() if l.startswith("{")]
    if len(docs) != 1 or text.strip() != docs[0]:
        problems.append("%s: stdout is not exactly one JSON line" % name)
        continue
    d = json.loads(docs[0])
    statuses.add(d.get("status"))
    problems += ["%s: %s" % (name, e.message) for e in v.iter_errors(d)]
# the old shapes must not pass: the schema really constrains
for old in ({"exit_code": None, "status": "DVAL_ETIMEOUT", "error": "x"},):
    if v.is_valid(old):
        problems.append("an old-shape document passed the schema")
print("%d %s" % (len(sys.argv) - 3, " ".join(sorted(map(str, statuses)))))
print("\n".join(problems))
PYEOF
)
    n=$(head -n1 <<<"$r")
    rest=$(tail -n +2 <<<"$r")
    [ -z "$rest" ] && ok "every --json output validates against $SCHEMA ($n)" || bad "--json schema" "$r"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
