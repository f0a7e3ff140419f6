#!/usr/bin/env bash
# Local-executor rows of the pool bench (issue 14), with the CPU of the
# whole machine per validation (the helper and init processes too, not
# only the library's process): tests/bench/LOCALPERF.md.
# Env: POOL_LEVELS=1,4,16,64 POOL_PER_LEVEL=4 POOL_ISOLATIONS=session,sandbox
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
LEVELS=${POOL_LEVELS:-1,4,16,64}
PER=${POOL_PER_LEVEL:-4}
ISOS=${POOL_ISOLATIONS:-session,sandbox}
out=$B/bench
mkdir -p "$out"
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -Iinclude -o "$out/poolbench" tests/bench/poolbench.c \
    "$B/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid) -lpthread
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dval-localperf.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/state"
echo 'echo ok' >"$tmp/src/run.sh"
export DVAL_LOCAL_HELPER=$PWD/$B/libexec/dval-local-helper POOLBENCH_STATE=$tmp/state
# busy jiffies of all cpus (user+nice+system+irq+softirq)
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in ${LEVELS//,/ }; do
    for iso in ${ISOS//,/ }; do
        b0=$(busy)
        line=$("$out/poolbench" local "$iso" "$c" $((c * PER)) "$tmp/src" || true)
        b1=$(busy)
        n=$((c * PER))
        hz=$(getconf CLK_TCK)
        echo "${line%\}},\"machine_cpu_ms_per_validation\":$(( (b1 - b0) * 1000 / hz / n ))}"
    done
done
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
