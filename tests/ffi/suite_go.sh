#!/usr/bin/env bash
# Go binding (examples/go/dval): built against a `make install DESTDIR`
# tree through `#cgo pkg-config: daytona-validate` alone (no CGO_CFLAGS or
# CGO_LDFLAGS), go vet, go test with GODEBUG=cgocheck=2 against the local
# executor and the Daytona emulator, and the tutorial (examples/go/tour, a
# separate module that uses the binding through `replace`).
set -u
. "$(dirname "$0")/common.sh"
cd "$ROOT"
if ! command -v go >/dev/null; then echo "go not installed"; echo "0 passed, 0 failed, 1 skipped"; exit 0; fi
if ! have_lib; then echo "no $B/lib/libdaytona-validate.so.1"; echo "0 passed, 1 failed"; exit 1; fi
pass=0 fail=0 skip=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
ko() { echo "FAIL $*"; fail=$((fail + 1)); }
install_tree || { echo "0 passed, 1 failed"; exit 1; }
unset CGO_CFLAGS CGO_LDFLAGS CGO_CPPFLAGS
export CGO_ENABLED=1 GOFLAGS=-mod=mod GOPROXY=off GOCACHE=${GOCACHE:-$TMP/gocache} GOPATH=${GOPATH:-$TMP/gopath}
# the module is built from a copy so its directory stays clean
cp -r examples/go "$TMP/go"
cd "$TMP/go/dval"
if go build ./... >"$TMP/build.log" 2>&1; then ok "go build with pkg-config only (installed tree)"
else ko "go build with pkg-config only"; sed 's/^/    /' "$TMP/build.log"; fi
if go vet ./... >"$TMP/vet.log" 2>&1; then ok "go vet"
else ko "go vet"; sed 's/^/    /' "$TMP/vet.log"; fi
if (cd ../tour && go vet ./...) >"$TMP/vet-tour.log" 2>&1; then ok "go vet (examples/go/tour)"
else ko "go vet examples/go/tour"; sed 's/^/    /' "$TMP/vet-tour.log"; fi
if [ -z "$(gofmt -l . ../tour)" ]; then ok "gofmt"; else ko "gofmt: $(gofmt -l . ../tour)"; fi
start_emulator
export DVAL_SHELL_SAMPLE=$ROOT/examples/validation/shell   # the pool tests run it
export DVAL_DOTNET_SAMPLE=$ROOT/examples/validation/dotnet # and the C# one
# a snapshot's shared services keep a tmpfs mounted in its state directory
# until the snapshot is deleted: the C# test's state goes under $TMP,
# which cleanup unmounts and removes
export DVAL_GO_KEEP_DIR=$TMP
GODEBUG=cgocheck=2 timeout -k 5 170 go test -count=1 -v -timeout 160s ./... >"$TMP/test.log" 2>&1
rc=$?
cat "$TMP/test.log"
# count leaf results: a parent test whose subtests ran is not counted twice
p=$(grep -cE '^\s*--- PASS: \S+/' "$TMP/test.log"); top_p=$(grep -E '^--- PASS: ' "$TMP/test.log" | awk '{print $3}')
f=$(grep -cE '^\s*--- FAIL: ' "$TMP/test.log")
s=$(grep -cE '^\s*--- SKIP: ' "$TMP/test.log")
for tname in $top_p; do grep -qE "^\s+--- (PASS|FAIL|SKIP): $tname/" "$TMP/test.log" || p=$((p + 1)); done
pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
if [ $rc -ne 0 ] && [ $f -eq 0 ]; then ko "go test exited $rc"; fi
cd "$TMP/go/tour"
if GODEBUG=cgocheck=2 timeout -k 5 60 go run . -state-dir "$TMP/tour-state" "$ROOT/examples/validation/shell" >"$TMP/tour.log" 2>&1 &&
   grep -q '^exit code 7' "$TMP/tour.log"; then ok "examples/go/tour (replace => ../dval) runs"
else ko "examples/go/tour"; sed 's/^/    /' "$TMP/tour.log"; fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
