#!/usr/bin/env bash
# `make helper-check`: the local executor's helper is linked static-pie
# wherever the toolchain can link one (the Makefile's probe). Every command
# of a validation starts the helper, which forks twice more before the
# command runs; without shared libraries it has fewer mappings to set up
# and copy (LOCALPERF.md, "A static helper"), and PIE keeps its address
# space randomised. Fails when the build silently falls back to a dynamic
# or a fixed-address helper.
set -euo pipefail
B=${B:-build}
CC=${CC:-cc}
helper=$B/libexec/dval-local-helper
[ -x "$helper" ] || { echo "helper-check: $helper not built" >&2; exit 1; }
# probed here again, not taken from the Makefile: a Makefile that stopped
# asking for static-pie must still fail this check
probe=$(mktemp -d "${TMPDIR:-/tmp}/dval-spie.XXXXXX")
trap 'rm -rf "$probe"' EXIT
printf 'int main(void){return 0;}\n' >"$probe/p.c"
if ! "$CC" -static-pie -o "$probe/p" "$probe/p.c" 2>/dev/null; then
    echo "helper-check: $CC cannot link static-pie here (no libc.a?): helper left dynamic"
    exit 0
fi
fail=0
if readelf -lW "$helper" | grep -q 'INTERP'; then
    echo "helper-check: $helper has a program interpreter (dynamically linked)" >&2
    fail=1
fi
if ! readelf -hW "$helper" | grep -q 'Type:.*DYN'; then
    echo "helper-check: $helper is not position-independent (no ASLR)" >&2
    fail=1
fi
if readelf -dW "$helper" 2>/dev/null | grep -q 'NEEDED'; then
    echo "helper-check: $helper needs shared libraries" >&2
    fail=1
fi
[ $fail = 0 ] && echo "helper-check: $helper is static-pie"
exit $fail
