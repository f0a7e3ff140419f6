#!/bin/sh
# `make demo`: validates the java sample on the local executor and prints
# the results JSON the program computed. make builds everything first; this
# script only runs the CLI. On a fresh Debian 12 the first run installs a
# JDK into the java snapshot layer (apt-get), later runs reuse it.
set -eu
cd "$(dirname "$0")/../.."
B=${B:-build}
cli=$B/bin/daytona-validate
if [ ! -x "$cli" ]; then
    echo "demo: $cli is missing; run 'make demo' (it builds first)" >&2
    exit 1
fi
results=$(mktemp "${TMPDIR:-/tmp}/dval-demo.XXXXXX")
trap 'rm -f "$results"' EXIT INT TERM

echo "== daytona-validate run --profile java --executor local examples/validation/java-javac"
start=$(date +%s%N)
status=0
"$cli" run --profile java --executor local --verbose --results "$results" \
    examples/validation/java-javac || status=$?
end=$(date +%s%N)
echo "== program exit status: $status, wall time: $(( (end - start) / 1000000 )) ms"
echo "== results JSON:"
cat "$results"
exit "$status"
