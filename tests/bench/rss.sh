#!/usr/bin/env bash
# Peak RSS of the library's validation loop against the floor client's,
# mapping by mapping (tests/bench/RSS.md): runs `dvbench loop` and `dvfloor`
# against one emulator with BENCH_SMAPS and compares the two smaps copies
# with rss.py. RSS_N=200 loops each. Not a timed test.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
out=$B/bench
mkdir -p "$out"
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -Iinclude -Ilib -o "$out/dvbench" tests/bench/dvbench.c \
    "$B/lib/libdaytona-validate.a" $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -Wall -Wextra -o "$out/dvfloor" tests/bench/floor.c $(pkg-config --libs libcurl)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dval-rss.XXXXXX")
emu=
cleanup() { [ -n "$emu" ] && kill "$emu" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
/usr/bin/python3 tests/emulator/emulator.py --port-file "$tmp/port" --lifetime 900 \
    --root "$tmp/root" 2>"$tmp/emu.log" &
emu=$!
for _ in $(seq 1 150); do [ -s "$tmp/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$tmp/port")"
n=${RSS_N:-200}
BENCH_SMAPS=$tmp/lib.smaps "$out/dvbench" rusage "$tmp/lib.rusage" "$out/dvbench" loop "$base" "$n" \
    >"$tmp/lib.json"
BENCH_SMAPS=$tmp/floor.smaps "$out/dvbench" rusage "$tmp/floor.rusage" "$out/dvfloor" "$base" "$n" \
    >"$tmp/floor.json"
echo "# library: $(grep -o '"hwm_kb[^,]*,"hwm_kb":[0-9]*' "$tmp/lib.json"), ru_maxrss $(grep -o '"maxrss_kb":[0-9]*' "$tmp/lib.rusage")"
echo "# floor:   $(grep -o '"hwm_kb[^,]*,"hwm_kb":[0-9]*' "$tmp/floor.json"), ru_maxrss $(grep -o '"maxrss_kb":[0-9]*' "$tmp/floor.rusage")"
python3 tests/bench/rss.py "$tmp/lib.smaps" "$tmp/floor.smaps"
[ -z "${RSS_KEEP:-}" ] || cp "$tmp"/*.smaps* "$RSS_KEEP"/
