#!/usr/bin/env bash
# Python bindings (examples/python: ctypes and cffi) through the whole
# lifecycle against the local executor and the Daytona emulator.
set -u
. "$(dirname "$0")/common.sh"
cd "$ROOT"
if ! have_lib; then echo "no $B/lib/libdaytona-validate.so.0 (make B=$B lib)"; echo "0 passed, 1 failed"; exit 1; fi
PY=/usr/bin/python3
if cc -std=c99 -Iinclude -o "$TMP/layout" tests/ffi/layout.c 2>"$TMP/layout.err" && "$TMP/layout" >"$TMP/layout.txt"; then
    export DVAL_LAYOUT=$TMP/layout.txt
fi
start_emulator
export DVAL_LIB=$BABS/lib/libdaytona-validate.so.0
logs=()
for which in ctypes cffi; do
    if [ "$which" = cffi ] && ! $PY -c 'import cffi' 2>/dev/null; then
        echo "SKIP cffi: python3-cffi not installed"; echo "0 passed, 0 failed, 1 skipped" >"$TMP/$which.log"
    else
        timeout -k 5 100 $PY tests/ffi/test_python.py "$which" >"$TMP/$which.log" 2>&1
        rc=$?
        [ $rc -eq 124 ] && echo "FAIL $which: timed out" >>"$TMP/$which.log"
    fi
    cat "$TMP/$which.log"
    logs+=("$TMP/$which.log")
done
sum_results "${logs[@]}"
