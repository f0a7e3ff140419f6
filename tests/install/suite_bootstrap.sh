#!/usr/bin/env bash
# The README's first commands on a machine without the build dependencies:
# make must compute the link line after `make deps` installed them, not
# when it read the Makefile (issue: "undefined reference to
# curl_global_init" on the first `make demo`, fine on the second).
#
# The fresh machine is simulated for pkg-config alone: PKG_CONFIG_LIBDIR
# points at an empty directory when make starts, and a stand-in DEPS_SH
# "installs" the dependencies by copying the system's .pc files into it.
# Then `make demo` (with a trivial DEMO) and `make check-run`'s first step
# must link on the first try.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dval-bootstrap.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
ko() { echo "FAIL $*"; fail=$((fail + 1)); }

pc=$TMP/pc
mkdir -p "$pc"
cat >"$TMP/fake-deps.sh" <<EOS
#!/bin/sh
# stands in for tests/deps.sh: the packages' .pc files appear now
for d in /usr/lib/x86_64-linux-gnu/pkgconfig /usr/lib/pkgconfig /usr/share/pkgconfig; do
    [ -d "\$d" ] && cp "\$d"/*.pc "$pc"/ 2>/dev/null
done
echo "fake deps: installed"
EOS
chmod +x "$TMP/fake-deps.sh"

if PKG_CONFIG_LIBDIR=$pc pkg-config --exists libcurl 2>/dev/null; then
    ko "precondition: libcurl.pc invisible before deps"
else
    ok "precondition: libcurl.pc invisible before deps"
fi

# One build tree for both runs; only the library, helper and CLI are built.
if PKG_CONFIG_LIBDIR=$pc make --no-print-directory -j2 B="$TMP/b" \
        DEPS_SH="$TMP/fake-deps.sh" DEMO=true demo >"$TMP/demo.log" 2>&1; then
    ok "make demo links on the first try with deps installed by make deps"
else
    ko "make demo on a machine that had no .pc files"
    grep -E 'undefined reference|error' "$TMP/demo.log" | head -5 | sed 's/^/    /'
fi
if [ -f "$TMP/b/bin/daytona-validate" ] \
        && LD_LIBRARY_PATH= "$TMP/b/bin/daytona-validate" --version >/dev/null 2>&1; then
    ok "the CLI built that way runs"
else
    ko "the CLI built that way runs"
fi
# The same mechanism serves `make check`: its recipe re-invokes make.
if make --no-print-directory -n check DEPS_SH=true B="$TMP/b" 2>/dev/null \
        | grep -q 'check-run'; then
    ok "make check runs its work in a make started after deps"
else
    ko "make check runs its work in a make started after deps"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
