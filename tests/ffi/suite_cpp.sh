#!/usr/bin/env bash
# C++ wrapper (examples/cpp): builds example.cpp with -std=c++17 -Wall
# -Wextra -Werror and runs it against the local executor and the emulator.
set -u
. "$(dirname "$0")/common.sh"
cd "$ROOT"
pass=0 fail=0 skip=0
if ! have_lib; then echo "no $B/lib/libdaytona-validate.so.0"; echo "0 passed, 1 failed"; exit 1; fi
if c++ -std=c++17 -Wall -Wextra -Werror -pedantic -Iinclude -o "$TMP/example" examples/cpp/example.cpp \
        -L"$BABS/lib" -ldaytona-validate -Wl,-rpath,"$BABS/lib" -pthread 2>"$TMP/build.log"; then
    echo "PASS build example.cpp (c++17 -Wall -Wextra -Werror)"; pass=$((pass + 1))
else
    echo "FAIL build example.cpp"; sed 's/^/    /' "$TMP/build.log"; echo "$pass passed, 1 failed"; exit 1
fi
start_emulator
run() { # name, args...
    local name=$1; shift
    timeout -k 5 50 "$TMP/example" "$@" >"$TMP/$name.log" 2>&1
    local rc=$?
    sed "s/^/    $name| /" "$TMP/$name.log"
    case $rc in
        0) echo "PASS $name"; pass=$((pass + 1)) ;;
        77) echo "SKIP $name: $(grep -m1 '^SKIP' "$TMP/$name.log" | cut -c6-)"; skip=$((skip + 1)) ;;
        *) echo "FAIL $name (exit $rc)"; fail=$((fail + 1)) ;;
    esac
}
run local local "$TMP/state"
if [ -n "${DVAL_EMU_PORT:-}" ]; then
    curl -s -X POST -H 'Content-Type: application/json' -d '{"transition_ms":20,"snapshot_build_ms":50}' \
        "http://127.0.0.1:$DVAL_EMU_PORT/_emu/config" >/dev/null 2>&1
    run daytona daytona "http://127.0.0.1:$DVAL_EMU_PORT/api"
else
    echo "SKIP daytona: emulator not available"; skip=$((skip + 1))
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
