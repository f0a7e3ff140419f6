#!/usr/bin/env bash
# Step-by-step cost of the local executor's sandboxes (LOCALPERF.md):
# runs localsteps.c (LOCALSTEPS_N=40 sandboxes) or, with
# LOCALSTEPS_RESET=1, localreset.c (the guaranteed reset next to a create
# and a delete: LOCALRESET_N=20 sandboxes, LOCALRESET_R=3 resets each) in
# a cpuacct cgroup of its own, so the CPU of the helpers, inits and
# programs counts too.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
out=$B/bench
mkdir -p "$out"
if [ "${LOCALSTEPS_RESET:-0}" = 1 ]; then
    prog=localreset
    args=("${LOCALRESET_N:-20}" "${LOCALRESET_R:-3}")
    warm=(1 1)
    # localreset.c calls the core's reset (lib/recycle.h): internal headers
    # shellcheck disable=SC2046
    cc -O2 -g -std=c11 -Wall -Wextra -D_GNU_SOURCE -Iinclude -Ilib -I"$B/gen" \
        $(pkg-config --cflags libcurl jansson uuid) -o "$out/$prog" tests/bench/$prog.c \
        "$B/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread
else
    prog=localsteps
    args=("${LOCALSTEPS_N:-40}")
    warm=(1)
    # shellcheck disable=SC2046
    cc -O2 -g -std=c11 -Wall -Wextra -Iinclude -o "$out/$prog" tests/bench/$prog.c \
        "$B/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dval-$prog.XXXXXX")
cg=/sys/fs/cgroup/cpuacct/dval-$prog-$$
usage=-
if mkdir "$cg" 2>/dev/null; then usage=$cg/cpuacct.usage; fi
# the state dir first (a kept sandbox's init exits when it is gone)
cleanup() {
    rm -rf "$tmp"
    for _ in $(seq 50); do [ -n "$(cat "$cg/cgroup.procs" 2>/dev/null)" ] || break; sleep 0.1; done
    rmdir "$cg" 2>/dev/null || true
}
trap cleanup EXIT
mkdir -p "$tmp/state"
DVAL_LOCAL_HELPER=${DVAL_LOCAL_HELPER:-$(realpath "$B")/libexec/dval-local-helper}  # set: A/B of two helpers
export DVAL_LOCAL_HELPER POOLBENCH_STATE=$tmp/state
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# a first sandbox makes the disk template, outside the figures
"$out/$prog" "${warm[@]}" - >/dev/null
bash -c 'echo $$ >"$1/cgroup.procs" 2>/dev/null; shift; exec "$@"' _ "$cg" \
    "$out/$prog" "${args[@]}" "$usage"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
