#!/usr/bin/env bash
# Python package `dval` (examples/python): installed exactly as a user would
# offline (a venv with --system-site-packages, pip --no-build-isolation),
# then tested through both backends (ctypes, cffi) against the local
# executor and the Daytona emulator.
set -u
. "$(dirname "$0")/common.sh"
cd "$ROOT"
PY=/usr/bin/python3
pass=0 fail=0 skip=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
ko() { echo "FAIL $*"; fail=$((fail + 1)); }
if ! have_lib; then echo "no $B/lib/libdaytona-validate.so.1 (make B=$B lib)"; echo "0 passed, 1 failed"; exit 1; fi

# pip builds in the source tree: install from a copy so the checkout stays clean
cp -r examples/python "$TMP/pkg"
if $PY -m venv --system-site-packages "$TMP/venv" >"$TMP/venv.log" 2>&1 &&
   "$TMP/venv/bin/pip" install --no-build-isolation --no-index -q "$TMP/pkg" >"$TMP/pip.log" 2>&1; then
    ok "pip install --no-build-isolation into a --system-site-packages venv"
else
    ko "venv + pip install"; cat "$TMP/venv.log" "$TMP/pip.log" | tail -20 | sed 's/^/    /'
    echo "$pass passed, $fail failed, $skip skipped"; exit 1
fi
VPY=$TMP/venv/bin/python
cd "$TMP"   # nothing from the checkout on the import path
if "$VPY" -c 'import dval, sys; assert dval.__file__.startswith(sys.prefix), dval.__file__' 2>"$TMP/imp.log"; then
    ok "import dval comes from the venv"
else ko "import dval from the venv"; sed 's/^/    /' "$TMP/imp.log"; fi

# lookup order: $DVAL_LIB, then the SONAME through the loader
if env -u DVAL_LIB LD_LIBRARY_PATH="$BABS/lib" "$VPY" -c 'import dval; print(dval.version())' >"$TMP/so.log" 2>&1 &&
   grep -qx 1.0.0 "$TMP/so.log"; then
    ok "found by SONAME (libdaytona-validate.so.1) without DVAL_LIB"
else ko "SONAME lookup"; sed 's/^/    /' "$TMP/so.log"; fi
if ldconfig -p 2>/dev/null | grep -q 'libdaytona-validate.so.1 '; then
    echo "SKIP missing-library message: libdaytona-validate.so.1 is installed system-wide"; skip=$((skip + 1))
else
    env -u DVAL_LIB -u LD_LIBRARY_PATH "$VPY" -c 'import dval; dval.version()' >"$TMP/nf.log" 2>&1
    if grep -q 'LibraryNotFoundError' "$TMP/nf.log" && grep -q 'make install' "$TMP/nf.log" &&
       grep -q 'DVAL_LIB=' "$TMP/nf.log"; then
        ok "no library: LibraryNotFoundError says how to fix it"
    else ko "no library message"; sed 's/^/    /' "$TMP/nf.log"; fi
fi
# `make install` copies the package where the system python3 looks
cd "$ROOT"
if install_tree && pydir=$INST$INST_PREFIX/lib/python3/dist-packages &&
   (cd "$TMP" && env -u DVAL_LIB PYTHONPATH="$pydir" $PY -c \
        'import dval, sys; assert dval.__file__.startswith(sys.argv[1]), dval.__file__; print(dval.version())' \
        "$pydir") >"$TMP/mi.log" 2>&1 && grep -qx 1.0.0 "$TMP/mi.log"; then
    ok "make install: the package imports and finds the installed library by SONAME"
else ko "make install of the Python package"; sed 's/^/    /' "$TMP/mi.log" 2>/dev/null; fi
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
if cc -std=c99 -Iinclude -o "$TMP/layout" tests/ffi/layout.c 2>"$TMP/layout.err" && "$TMP/layout" >"$TMP/layout.txt"; then
    export DVAL_LAYOUT=$TMP/layout.txt
fi
start_emulator
export DVAL_LIB=$BABS/lib/libdaytona-validate.so.1
echo "$pass passed, $fail failed, $skip skipped" >"$TMP/install.log"
logs=("$TMP/install.log")
for which in ctypes cffi; do
    if [ "$which" = cffi ] && ! "$VPY" -c 'import cffi' 2>/dev/null; then
        echo "SKIP cffi: python3-cffi not installed"; echo "0 passed, 0 failed, 1 skipped" >"$TMP/$which.log"
    else
        (cd "$TMP" && TMPDIR=$TMP timeout -k 5 200 "$VPY" "$ROOT/tests/ffi/test_python.py" "$which") >"$TMP/$which.log" 2>&1
        rc=$?
        [ $rc -eq 124 ] && echo "FAIL $which: timed out" >>"$TMP/$which.log"
        [ $rc -ne 0 ] && ! grep -q '^FAIL' "$TMP/$which.log" && echo "FAIL $which: exit $rc" >>"$TMP/$which.log"
    fi
    cat "$TMP/$which.log"
    logs+=("$TMP/$which.log")
done
# the tutorial runs as written
if (cd "$TMP" && timeout -k 5 60 "$VPY" "$ROOT/examples/python/example.py" --state-dir "$TMP/ex-state" "$ROOT/examples/validation/shell") >"$TMP/example.log" 2>&1; then
    echo "PASS examples/python/example.py"; echo "1 passed, 0 failed" >"$TMP/ex.res"
else
    echo "FAIL examples/python/example.py"; sed 's/^/    /' "$TMP/example.log"; echo "0 passed, 1 failed" >"$TMP/ex.res"
fi
logs+=("$TMP/ex.res")
sum_results "${logs[@]}"
