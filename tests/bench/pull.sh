#!/usr/bin/env bash
# Section 8 of `make bench` (BENCH_ONLY=pull): pull + unpack of one
# multi-layer image from a local registry (Debian's docker-registry on
# 127.0.0.1, tests/local/registry.py), side by side:
#   lib     a local snapshot of the image by the library (pullbench.c):
#           download, digests, cache, then the helper's import;
#   tools   skopeo copy (to an OCI layout) + umoci unpack (as root, as the
#           library's import runs).
# Each side starts from empty directories; runs alternate, REPS of each;
# the best of each is compared. The image: the Debian 12 image of the
# cache (mmdebstrap, as the local suites use) in three gzip layers, else
# (no cached image) random files. Usage: pull.sh B OUT RESULTS REPS.
# Writes RESULTS/pull.json.
set -euo pipefail
B=$1 out=$2 res=$3 reps=$4
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
for t in docker-registry skopeo umoci; do
    command -v $t >/dev/null || { echo "pull bench: $t missing (tests/deps.sh)" >&2; exit 1; }
done
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -Iinclude -o "$out/pullbench" "$here/pullbench.c" \
    "$B/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread
export DVAL_LOCAL_HELPER=${DVAL_LOCAL_HELPER:-$root/$B/libexec/dval-local-helper}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dval-pullbench.XXXXXX")
reg_pid=""
cleanup() {
    [ -n "$reg_pid" ] && kill "$reg_pid" 2>/dev/null && wait "$reg_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
/usr/bin/python3 -W ignore "$root/tests/local/registry.py" "$tmp/reg" --lifetime 1800 \
    --watch $$ >"$tmp/reg.log" 2>&1 &
reg_pid=$!
for _ in $(seq 300); do [ -s "$tmp/reg/ports" ] && break; sleep 0.1; done
read -r port _ <"$tmp/reg/ports"

# the image (untimed): three layers of a Debian root, else random files
cache=${DVAL_LOCAL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/daytona-validate}
src=$cache/images/debian-12/rootfs
mkdir -p "$tmp/layers"
if [ -d "$src/usr/lib" ]; then
    kind="debian-12 root"
    tar -C "$src" -czf "$tmp/layers/1.tgz" ./usr/lib
    tar -C "$src" --exclude=./usr/lib -czf "$tmp/layers/2.tgz" ./usr
    tar -C "$src" --exclude=./usr -czf "$tmp/layers/3.tgz" .
else
    kind="random files"
    for i in 1 2 3; do
        mkdir -p "$tmp/r$i" && head -c $((i * 20 << 20)) /dev/urandom >"$tmp/r$i/f$i"
        tar -C "$tmp/r$i" -czf "$tmp/layers/$i.tgz" .
    done
fi
/usr/bin/python3 "$root/tests/local/oci_layout.py" image "$tmp/lay" v1 \
    "$tmp/layers/1.tgz" "$tmp/layers/2.tgz" "$tmp/layers/3.tgz" >/dev/null
skopeo copy -q --dest-tls-verify=false "oci:$tmp/lay:v1" "docker://127.0.0.1:$port/bench/img:v1"
mb=$(du -cm "$tmp/layers"/*.tgz | tail -1 | cut -f1)
ref=127.0.0.1:$port/bench/img:v1

lib_run() {
    rm -rf "$tmp/state" "$tmp/cache"; mkdir -p "$tmp/state"
    DVAL_LOCAL_CACHE_DIR=$tmp/cache "$out/pullbench" "$tmp/state" "$ref"
}
tools_run() {
    rm -rf "$tmp/sk" "$tmp/bundle"; sync
    local t0; t0=$(date +%s%N)
    skopeo copy -q --src-tls-verify=false "docker://$ref" "oci:$tmp/sk:v1" >/dev/null
    umoci unpack --image "$tmp/sk:v1" "$tmp/bundle" >/dev/null
    echo $(( ($(date +%s%N) - t0) / 1000 )) | awk '{printf "%.1f\n", $1 / 1000}'
}
lib=() tools=()
for _ in $(seq 1 "$reps"); do
    sync; lib+=("$(lib_run)")
    tools+=("$(tools_run)")
done
join() { local IFS=,; echo "$*"; }
printf '{"image":"%s","layers":3,"mb":%s,"lib_ms":[%s],"tools_ms":[%s]}\n' \
    "$kind" "$mb" "$(join "${lib[@]}")" "$(join "${tools[@]}")" >"$res/pull.json"
cat "$res/pull.json"
