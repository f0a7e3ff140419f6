#!/usr/bin/env bash
# Step-by-step cost of the local executor's sandboxes (LOCALPERF.md):
# runs localsteps.c in a cpuacct cgroup of its own, so the CPU of the
# helpers, inits and programs counts too. LOCALSTEPS_N=40 sandboxes.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
out=$B/bench
mkdir -p "$out"
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -Iinclude -o "$out/localsteps" tests/bench/localsteps.c \
    "$B/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid) -lpthread
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dval-localsteps.XXXXXX")
cg=/sys/fs/cgroup/cpuacct/dval-localsteps-$$
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
DVAL_LOCAL_HELPER=$(realpath "$B")/libexec/dval-local-helper
export DVAL_LOCAL_HELPER POOLBENCH_STATE=$tmp/state
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# a first sandbox makes the disk template, outside the figures
"$out/localsteps" 1 - >/dev/null
bash -c 'echo $$ >"$1/cgroup.procs" 2>/dev/null; shift; exec "$@"' _ "$cg" \
    "$out/localsteps" "${LOCALSTEPS_N:-40}" "$usage"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
