#!/usr/bin/env bash
# Install test: make install into a DESTDIR, then build a C program against
# the installed tree using only pkg-config (shared and --static), and check
# the installed files (library symlinks, header, .pc, man pages).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
B=${B:-build}
PREFIX=/usr/local
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dval-install.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
D=$TMP/root
pass=0 fail=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
ko() { echo "FAIL $*"; fail=$((fail + 1)); }
t() { local what=$1; shift; if "$@" >>"$TMP/t.log" 2>&1; then ok "$what"; else ko "$what"; tail -5 "$TMP/t.log" | sed 's/^/    /'; fi; }

if make --no-print-directory install DESTDIR="$D" PREFIX=$PREFIX B="$B" >"$TMP/install.log" 2>&1; then
    ok "make install DESTDIR PREFIX=$PREFIX"
else
    ko "make install"; tail -20 "$TMP/install.log" | sed 's/^/    /'
    echo "$pass passed, $fail failed"; exit 1
fi
L=$D$PREFIX/lib
so=$(cd "$L" && ls libdaytona-validate.so.1.*.* 2>/dev/null | head -n 1)
t "real library installed ($so)" test -n "$so" -a -f "$L/$so" -a ! -L "$L/$so"
t "symlink .so.1 -> $so" test "$(readlink "$L/libdaytona-validate.so.1")" = "$so"
t "symlink .so -> .so.1" test "$(readlink "$L/libdaytona-validate.so")" = "libdaytona-validate.so.1"
t "static library installed" test -f "$L/libdaytona-validate.a"
t "header installed and identical" cmp include/dval.h "$D$PREFIX/include/dval.h"
t "pkg-config file installed" test -f "$L/pkgconfig/daytona-validate.pc"
missing=0
for f in man/man3/*.3 man/man7/*.7; do
    [ -f "$D$PREFIX/share/$f" ] || { echo "    missing $PREFIX/share/$f"; missing=1; }
done
t "man pages installed (man3, man7)" test $missing -eq 0
t "installed man pages render" sh -c "mandoc -T utf8 '$D$PREFIX/share/man/man3/dval_session_exec.3' | grep -q dval_session_exec"

export PKG_CONFIG_SYSROOT_DIR=$D PKG_CONFIG_PATH=$L/pkgconfig
t "pkg-config --modversion = 1.0.0" test "$(pkg-config --modversion daytona-validate)" = "1.0.0"
cat >"$TMP/prog.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <dval.h>
int main(void)
{
    dval_client_options o;
    if (dval_client_options_init(&o, sizeof o) != DVAL_OK)
        return 1;
    o.executor = "no-such-executor";
    dval_client *c = NULL;
    int rc = dval_client_new(&c, &o);
    printf("%s %s %s\n", dval_version(), dval_status_name(rc), dval_strerror(DVAL_ETIMEOUT));
    return strcmp(dval_version(), DVAL_VERSION_STRING) != 0 || rc != DVAL_EINVAL || c != NULL;
}
C
cflags=$(pkg-config --cflags daytona-validate) libs=$(pkg-config --libs daytona-validate)
echo "pkg-config: cflags [$cflags] libs [$libs]"
if cc -std=c99 -Wall -Werror $cflags -o "$TMP/prog" "$TMP/prog.c" $libs >"$TMP/cc.log" 2>&1; then
    ok "shared build with pkg-config only"
    t "shared program runs against the installed library" env LD_LIBRARY_PATH="$L" "$TMP/prog"
    t "it loaded the installed copy" sh -c "LD_LIBRARY_PATH='$L' ldd '$TMP/prog' | grep -q '$L/libdaytona-validate.so.1'"
else
    ko "shared build with pkg-config only"; sed 's/^/    /' "$TMP/cc.log"
fi

slibs=$(pkg-config --static --libs daytona-validate)
echo "pkg-config --static: libs [$slibs]"
t "--static lists the private dependencies (curl, jansson, uuid, crypto, pthread)" \
    sh -c "echo '$slibs' | grep -q -- -lcurl && echo '$slibs' | grep -q -- -ljansson && echo '$slibs' | grep -q -- -luuid && echo '$slibs' | grep -q -- -lcrypto && echo '$slibs' | grep -q -- -lpthread"
# libdaytona-validate.a from the installed tree; its dependencies as listed.
static_link() { # extra libs...
    cc -std=c99 -Wall -Werror $cflags -o "$TMP/prog-static" "$TMP/prog.c" \
        -Wl,-Bstatic $(pkg-config --libs-only-L daytona-validate) -ldaytona-validate -Wl,-Bdynamic "$@"
}
if static_link $(echo "$slibs" | sed 's/-ldaytona-validate//') >"$TMP/cc2.log" 2>&1; then
    ok "static build with pkg-config --static"
elif static_link $(pkg-config --libs jansson uuid libcurl libcrypto) -lpthread >"$TMP/cc3.log" 2>&1; then
    # Debian ships libcurl's own static dependencies (librtmp, libssh2, ...)
    # only as shared libraries without -dev links: link those dynamically.
    echo "    note: libcurl's static dependencies are not installed here; linked them dynamically:"
    grep -o 'cannot find -l[a-z0-9_]*' "$TMP/cc2.log" | sort -u | sed 's/^/      /'
    ok "static build of the installed .a with the --static dependencies"
else
    ko "static build with pkg-config --static"; cat "$TMP/cc2.log" "$TMP/cc3.log" | tail -10 | sed 's/^/    /'
fi
if [ -x "$TMP/prog-static" ]; then
    t "static program runs" "$TMP/prog-static"
    t "static program does not need the shared library" sh -c "! ldd '$TMP/prog-static' | grep -q daytona-validate"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
