#!/usr/bin/env bash
# C++ wrapper (examples/cpp/dval.hpp) as installed by `make install`: the
# test program and the tour built with -std=c++14 and -std=c++17
# (-Wall -Wextra -Werror -pedantic) through pkg-config alone, run against
# the local executor and the Daytona emulator.
set -u
. "$(dirname "$0")/common.sh"
cd "$ROOT"
pass=0 fail=0 skip=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
ko() { echo "FAIL $*"; fail=$((fail + 1)); }
if ! have_lib; then echo "no $B/lib/libdaytona-validate.so.1"; echo "0 passed, 1 failed"; exit 1; fi
install_tree || { echo "0 passed, 1 failed"; exit 1; }
if cmp -s examples/cpp/dval.hpp "$INST$INST_PREFIX/include/dval.hpp"; then ok "make install puts dval.hpp beside dval.h"
else ko "dval.hpp not installed"; fi
flags=$(pkg-config --cflags --libs daytona-validate)
for std in c++14 c++17; do
    for prog in tests/ffi/test_cpp.cpp examples/cpp/tour.cpp; do
        out=$TMP/$(basename "$prog" .cpp)-$std
        if c++ -std=$std -Wall -Wextra -Werror -pedantic -o "$out" "$prog" $flags -pthread 2>"$TMP/build.log"; then
            ok "build $prog (-std=$std, installed header, pkg-config only)"
        else
            ko "build $prog -std=$std"; sed 's/^/    /' "$TMP/build.log"
        fi
    done
done
start_emulator
run() { # name, seconds, args...
    local name=$1 secs=$2; shift 2
    timeout -k 5 "$secs" "$@" >"$TMP/$name.log" 2>&1
    local rc=$?
    sed "s/^/    $name| /" "$TMP/$name.log"
    # each check inside the program counts (its PASS/FAIL lines)
    pass=$((pass + $(grep -c '^PASS ' "$TMP/$name.log")))
    fail=$((fail + $(grep -c '^FAIL ' "$TMP/$name.log")))
    case $rc in
        0) ok "$name" ;;
        77) echo "SKIP $name: $(grep -m1 '^SKIP' "$TMP/$name.log" | cut -c6-)"; skip=$((skip + 1)) ;;
        *) ko "$name (exit $rc)" ;;
    esac
}
for std in c++14 c++17; do
    [ -x "$TMP/test_cpp-$std" ] || continue
    mkdir -p "$TMP/src-$std-local" "$TMP/src-$std-daytona" "$ROOT/examples/validation/shell"
    # the C# sample in one run only: it builds the dotnet snapshot (a
    # restore and the compile service's build: tens of seconds)
    if [ "$std" = c++17 ] && command -v dotnet >/dev/null; then
        DVAL_DOTNET_SAMPLE=$ROOT/examples/validation/dotnet run "local-$std" 300 \
            "$TMP/test_cpp-$std" local "$TMP/state-$std" "$TMP/src-$std-local" "$ROOT/examples/validation/shell"
    else
        run "local-$std" 60 "$TMP/test_cpp-$std" local "$TMP/state-$std" "$TMP/src-$std-local" "$ROOT/examples/validation/shell"
    fi
    if [ -n "${DVAL_EMU_PORT:-}" ]; then
        curl -s -X POST -H 'Content-Type: application/json' -d '{"transition_ms":20,"snapshot_build_ms":50}' \
            "http://127.0.0.1:$DVAL_EMU_PORT/_emu/config" >/dev/null 2>&1
        run "daytona-$std" 60 "$TMP/test_cpp-$std" daytona "http://127.0.0.1:$DVAL_EMU_PORT/api" "$TMP/src-$std-daytona" "$ROOT/examples/validation/shell"
    else
        echo "SKIP daytona-$std: emulator not available"; skip=$((skip + 1))
    fi
done
# with the C# step where the host has an SDK, on the state (and dotnet
# snapshot) the c++17 run left
if command -v dotnet >/dev/null; then
    [ -x "$TMP/tour-c++14" ] && run tour 240 "$TMP/tour-c++14" "$TMP/state-c++17" \
        examples/validation/shell examples/validation/dotnet
else
    [ -x "$TMP/tour-c++14" ] && run tour 60 "$TMP/tour-c++14" "$TMP/tour-state" examples/validation/shell
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
