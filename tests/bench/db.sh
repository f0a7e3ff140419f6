#!/usr/bin/env bash
# Section 9 of `make bench` (BENCH_ONLY=db): the database services on the
# local executor (tests/bench/dbbench.c): a fresh database per validation,
# what the service adds to a sandbox's start, and a validation with and
# without services. Usage: db.sh B OUT STATE RESULTS N. Writes
# RESULTS/db.json.
set -euo pipefail
B=$1 out=$2 state=$3 res=$4 n=$5
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Iinclude -Ilib -o "$out/dbbench" \
    "$here/dbbench.c" "$B/lib/libdaytona-validate.a" \
    $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread
"$out/dbbench" "$state" "$n" >"$res/db.json"
