#!/bin/sh
# `make demo`: validates a C# and a Java sample on the local executor and
# prints the results JSON each program computed (C# only where this
# machine has a .NET SDK, which the dotnet image copies). make builds
# everything first; this script only runs the CLI. The first run builds
# each profile's image and snapshot (a minute or two), later runs reuse
# them.
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

# validate PROFILE DIR: one validation, its timing and its results
validate() {
    echo "== daytona-validate run --profile $1 --executor local $2"
    start=$(date +%s%N)
    status=0
    "$cli" run --profile "$1" --executor local --verbose --results "$results" \
        "$2" || status=$?
    end=$(date +%s%N)
    echo "== program exit status: $status, wall time: $(( (end - start) / 1000000 )) ms"
    echo "== results JSON:"
    cat "$results"
    return "$status"
}

if command -v dotnet >/dev/null 2>&1; then
    validate dotnet examples/validation/dotnet-efcore-sqlite
else
    echo "== no .NET SDK on this machine (install dotnet-sdk-10.0 for the C# demo); the Java one only"
fi
validate java examples/validation/java-javac
