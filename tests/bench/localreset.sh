#!/usr/bin/env bash
# The local executor's guaranteed reset next to a create and a delete
# (LOCALPERF.md): runs localreset.c in a cpuacct cgroup of its own, as
# localsteps.sh does. LOCALRESET_N=20 sandboxes, LOCALRESET_R=3 resets each.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
out=$B/bench
mkdir -p "$out"
# localreset.c calls the core's reset (lib/recycle.h): internal headers
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -D_GNU_SOURCE -Iinclude -Ilib -I"$B/gen" \
    $(pkg-config --cflags libcurl jansson uuid) -o "$out/localreset" tests/bench/localreset.c \
    "$B/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid) -lpthread
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dval-localreset.XXXXXX")
cg=/sys/fs/cgroup/cpuacct/dval-localreset-$$
usage=-
if mkdir "$cg" 2>/dev/null; then usage=$cg/cpuacct.usage; fi
cleanup() {
    rm -rf "$tmp"
    for _ in $(seq 50); do [ -n "$(cat "$cg/cgroup.procs" 2>/dev/null)" ] || break; sleep 0.1; done
    rmdir "$cg" 2>/dev/null || true
}
trap cleanup EXIT
mkdir -p "$tmp/state"
DVAL_LOCAL_HELPER=$(realpath "$B")/libexec/dval-local-helper
export DVAL_LOCAL_HELPER POOLBENCH_STATE=$tmp/state
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$out/localreset" 1 1 - >/dev/null   # the disk template, outside the figures
bash -c 'echo $$ >"$1/cgroup.procs" 2>/dev/null; shift; exec "$@"' _ "$cg" \
    "$out/localreset" "${LOCALRESET_N:-20}" "${LOCALRESET_R:-3}" "$usage"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
