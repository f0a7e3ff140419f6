#!/usr/bin/env bash
# The Java corpus (tests/corpus/java/gen.py), a sample of one program per
# kernel: each prints in the java profile's sandbox, with either
# isolation, byte for byte what plain javac + java prints in the same
# image (issue 45). `make bench` runs all of them (BENCH_ONLY=corpus).
set -u
cd "$(dirname "$0")/../.."
B=${B:-build}
if [ "$(id -u)" != 0 ]; then
    echo "0 passed, 0 failed, 1 skipped (the shared compile service needs root)"
    exit 0
fi
root=${DVAL_LOCAL_TEST_ROOT:-/tmp/dval-local-tests}
work=$root/corpus-java
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 tests/corpus/java/gen.py "$work/src" || exit 1
sample=$(ls -d "$work"/src/*-1)
# shellcheck disable=SC2086
if tests/corpus/compare.sh "$B" "$work/state" "$work/out" $sample; then
    pass=2 fail=0
else
    pass=0 fail=2
fi
"$B"/bin/daytona-validate sandbox rm --all --executor local --state-dir "$work/state" >/dev/null 2>&1
echo "$pass passed, $fail failed"
[ $fail = 0 ]
