#!/usr/bin/env bash
# Local-executor rows of the pool bench (issue 14), with the CPU of the
# whole machine per validation (the helper and init processes too, not
# only the library's process): tests/bench/LOCALPERF.md.
# Env: POOL_LEVELS=1,4,16,64 POOL_PER_LEVEL=4 POOL_ISOLATIONS=session,sandbox
# LOCALPERF_BUILDS=dir,dir (build dirs of two checkouts, measured side by
# side, row by row; default $B). LOCALPERF_ENVS="VAR=v;VAR=v": for the
# build at the same place, a variable set (one build twice, two ways:
# LOCALPERF_BUILDS=build,build LOCALPERF_ENVS="DVAL_LOCAL_FULL_RESET=1;").
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
LEVELS=${POOL_LEVELS:-1,4,16,64}
PER=${POOL_PER_LEVEL:-4}
ISOS=${POOL_ISOLATIONS:-session,sandbox}
BUILDS=${LOCALPERF_BUILDS:-$B}
IFS=';' read -r -a ENVS <<<"${LOCALPERF_ENVS:-}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dval-localperf.XXXXXX")
# the bench's own process tree (library, helpers, inits, programs) in a
# cpuacct group: its CPU apart from the other load of the machine
cg=/sys/fs/cgroup/cpuacct/dval-localperf-$$
mkdir "$cg" 2>/dev/null || cg=
# the state dirs first: the inits of sandboxes the pool kept (session
# isolation) exit when theirs is gone (within a second), then the group
cleanup() {
    rm -rf "$tmp"
    [ -n "$cg" ] || return 0
    for _ in $(seq 50); do [ -n "$(cat "$cg/cgroup.procs" 2>/dev/null)" ] || break; sleep 0.1; done
    rmdir "$cg" 2>/dev/null || true
}
trap cleanup EXIT
mkdir -p "$tmp/src"
# the program of pool.sh: the results JSON poolbench checks, then ok
cat >"$tmp/src/run.sh" <<'EOF'
echo '{"ok":true}' >"$DVAL_RESULTS_DIR/r.json" && echo ok
EOF
i=0
for b in ${BUILDS//,/ }; do
    i=$((i + 1))
    mkdir -p "$tmp/$i/state"
    # shellcheck disable=SC2046
    cc -O2 -g -std=c11 -Wall -Wextra -Iinclude -o "$tmp/$i/poolbench" tests/bench/poolbench.c \
        "$b/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread
done
# busy jiffies of all cpus (user+nice+system+irq+softirq)
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
tree() { if [ -n "$cg" ]; then cat "$cg/cpuacct.usage"; else echo 0; fi; }
hz=$(getconf CLK_TCK)
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in ${LEVELS//,/ }; do
    for iso in ${ISOS//,/ }; do
        i=0
        for b in ${BUILDS//,/ }; do
            i=$((i + 1))
            n=$((c * PER))
            b0=$(busy) t0=$(tree)
            e=${ENVS[$((i - 1))]:-}
            line=$(env ${e:+"$e"} DVAL_LOCAL_HELPER=$(realpath "$b")/libexec/dval-local-helper \
                   POOLBENCH_STATE=$tmp/$i/state \
                   bash -c '[ -n "$1" ] && echo $$ >"$1/cgroup.procs"; shift; exec "$@"' _ "$cg" \
                   "$tmp/$i/poolbench" local "$iso" "$c" "$n" "$tmp/src" || true)
            b1=$(busy) t1=$(tree)
            echo "${line%\}},\"build\":\"$b\",\"env\":\"$e\",\"tree_cpu_ms_per_validation\":$(( (t1 - t0) / 1000000 / n )),\"machine_cpu_ms_per_validation\":$(( (b1 - b0) * 1000 / hz / n ))}"
        done
    done
done
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
