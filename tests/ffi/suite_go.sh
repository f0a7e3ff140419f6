#!/usr/bin/env bash
# Go cgo binding (examples/go/dval): go vet, then go test with
# GODEBUG=cgocheck=2 against the local executor and the Daytona emulator.
set -u
. "$(dirname "$0")/common.sh"
cd "$ROOT"
if ! command -v go >/dev/null; then echo "go not installed"; echo "0 passed, 0 failed, 1 skipped"; exit 0; fi
if ! have_lib; then echo "no $B/lib/libdaytona-validate.so.0"; echo "0 passed, 1 failed"; exit 1; fi
export CGO_ENABLED=1 CGO_CFLAGS="-I$ROOT/include" CGO_LDFLAGS="-L$BABS/lib -Wl,-rpath,$BABS/lib"
export GOFLAGS=-mod=mod GOPROXY=off GOCACHE=${GOCACHE:-$TMP/gocache} GOPATH=${GOPATH:-$TMP/gopath}
start_emulator
pass=0 fail=0 skip=0
cd examples/go/dval
if go vet ./... >"$TMP/vet.log" 2>&1; then echo "PASS go vet"; pass=$((pass + 1))
else echo "FAIL go vet"; sed 's/^/    /' "$TMP/vet.log"; fail=$((fail + 1)); fi
GODEBUG=cgocheck=2 timeout -k 5 110 go test -count=1 -v -timeout 100s ./... >"$TMP/test.log" 2>&1
rc=$?
cat "$TMP/test.log"
# count leaf results: a parent test whose subtests ran is not counted twice
p=$(grep -cE '^\s*--- PASS: \S+/' "$TMP/test.log"); top_p=$(grep -E '^--- PASS: ' "$TMP/test.log" | awk '{print $3}')
f=$(grep -cE '^\s*--- FAIL: ' "$TMP/test.log")
s=$(grep -cE '^\s*--- SKIP: ' "$TMP/test.log")
for tname in $top_p; do grep -qE "^\s+--- (PASS|FAIL|SKIP): $tname/" "$TMP/test.log" || p=$((p + 1)); done
pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
if [ $rc -ne 0 ] && [ $f -eq 0 ]; then echo "FAIL go test exited $rc"; fail=$((fail + 1)); fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
