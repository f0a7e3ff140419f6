#!/usr/bin/env bash
# make fuzz: builds each tests/fuzz/fuzz_*.c as a libFuzzer binary (clang,
# ASan+UBSan) and runs it for FUZZ_SECONDS (default 60) on a scratch copy of
# its committed corpus. Prints executions per target; new crashes fail.
# FUZZ_ONLY="name ..." runs only those targets (fuzz_<name>.c).
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-60}
out=build/fuzz
mkdir -p "$out/obj"
flags="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cflags="-std=c11 -D_GNU_SOURCE -DDVAL_LIBEXECDIR=\"/usr/local/libexec/daytona-validate\" -Iinclude -Ilib -I${B:-build}/gen -Itests/fuzz $(pkg-config --cflags libcurl jansson uuid libcrypto)"
libs="$(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread"
objs=()
for src in lib/*.c lib/executor/daytona/*.c lib/executor/local/*.c; do
    o=$out/obj/$(echo "$src" | tr / _).o
    clang $cflags $flags -fsanitize=fuzzer-no-link -c "$src" -o "$o"
    objs+=("$o")
done
ar rcs "$out/libfuzzdval.a" "${objs[@]}"
printf '%-12s %14s %10s\n' target executions corpus
status=0
for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c); name=${name#fuzz_}
    case " ${FUZZ_ONLY:-$name} " in *" $name "*) ;; *) continue ;; esac
    bin=$out/fuzz_$name
    clang $cflags $flags -fsanitize=fuzzer -DDVAL_LIBFUZZER "$src" "$out/libfuzzdval.a" $libs -o "$bin"
    work=$out/corpus_$name
    rm -rf "$work"; mkdir -p "$work"
    cp tests/fuzz/corpus/"$name"/* "$work"/ 2>/dev/null || true
    log=$out/$name.log
    if ! "$bin" "$work" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
            -artifact_prefix="$out/crash_${name}_" >"$log" 2>&1; then
        status=1
        echo "fuzz_$name: FAILED (see $log)"
    fi
    execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+' || true)
    [ -n "$execs" ] || execs=$(grep -oE '^Done [0-9]+ runs' "$log" | grep -oE '[0-9]+' || true)
    [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -n1 | tr -d '#')
    printf '%-12s %14s %10s\n' "$name" "${execs:-?}" "$(ls "$work" | wc -l)"
done
exit $status
