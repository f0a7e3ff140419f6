#!/usr/bin/env bash
# Runs every test suite and prints one closing "N passed, N failed" line.
#  - C suites: $B/tests/* (built by `make tests`);
#  - script suites: tests/*/suite_* (executable; each prints its own
#    "N passed, N failed" line last).
# --c-only runs only the C suites (sanitizer/valgrind builds).
# Suites are selected with DVAL_SUITES="substring ..." when set, and tests
# inside the C suites with DVAL_TEST_FILTER=substring (make check T=...).
# DVAL_SKIP_SUITES="substring ..." leaves suites out (the sanitizer runs).
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
export B
c_only=0
[ "${1:-}" = "--c-only" ] && c_only=1
total_pass=0 total_fail=0 total_skip=0 failed_suites=()
log_dir=${DVAL_LOG_DIR:-$B/test-logs}
mkdir -p "$log_dir"

selected() {
    for s in ${DVAL_SKIP_SUITES:-}; do case "$1" in *"$s"*) return 1;; esac; done
    [ -z "${DVAL_SUITES:-}" ] && return 0
    for s in $DVAL_SUITES; do case "$1" in *"$s"*) return 0;; esac; done
    return 1
}

run_suite() { # name, command...
    local name=$1; shift
    selected "$name" || return 0
    local log=$log_dir/$name.log start=$SECONDS
    timeout -k 10 "${DVAL_SUITE_TIMEOUT:-900}" "$@" >"$log" 2>&1
    local rc=$?
    local line
    line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    local p=0 f=0 s=0
    if [ -n "$line" ]; then
        p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')
        f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
        s=$(grep -oE '[0-9]+ skipped' <<<"$line" | grep -oE '[0-9]+' || true)
        s=${s:-0}
    fi
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + s))
    printf '%-34s %4d passed %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $((SECONDS - start))
    if [ "$f" -ne 0 ]; then
        failed_suites+=("$name")
        # the failures with their messages first (a C test prints them
        # before its FAIL line, go test after), then the rest, bounded
        { grep -E -B4 -A4 -- '(^|[[:space:]])(--- )?FAIL' "$log" | head -n 80
          echo "    ..."; grep -E 'FAIL|^    |Error|error' "$log" | head -n 20; } |
            sed 's/^/    | /'
    fi
}

vg=()
if [ -n "${DVAL_VALGRIND:-}" ]; then
    vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
        --show-leak-kinds=definite,indirect --suppressions=tests/valgrind.supp)
    export DVAL_TEST_TIMEOUT_SCALE=10
fi

# the local suites' images, built before any test's alarm runs
for t in "$B"/tests/local_*; do
    if [ -x "$t" ] && selected "$(basename "$t")"; then
        tests/local/images.sh
        break
    fi
done

for t in "$B"/tests/*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    run_suite "$(basename "$t")" "${vg[@]}" "$t" ${DVAL_TEST_FILTER:+-s "$DVAL_TEST_FILTER"}
done

if [ $c_only -eq 0 ]; then
    for s in tests/*/suite_*; do
        [ -x "$s" ] || continue
        run_suite "$(basename "$(dirname "$s")")_$(basename "$s")" "$s"
    done
fi

echo
[ ${#failed_suites[@]} -eq 0 ] || echo "failed suites: ${failed_suites[*]} (logs in $log_dir)"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ $total_fail -eq 0 ]
