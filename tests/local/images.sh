#!/usr/bin/env bash
# Builds the Debian images the local suites use (debian-12,
# debian-13-java and, where the host has a .NET SDK, debian-12-dotnet:
# mmdebstrap, about a minute each, once per machine)
# before any suite runs, so no test spends its 60 s alarm on them: on a
# fresh machine the first test to need an image timed out building it.
# Nothing to do when both are in the image cache; otherwise the shell and
# java profiles' snapshots are ensured in a throwaway state directory
# (that builds the images into the shared cache). Prints one line.
set -u
B=${B:-build}
cache=${DVAL_LOCAL_CACHE_DIR:-}
if [ -z "$cache" ]; then
    if [ -n "${XDG_CACHE_HOME:-}" ]; then cache=$XDG_CACHE_HOME/daytona-validate
    else cache=${HOME:-/root}/.cache/daytona-validate; fi
fi
profiles="shell java"
need="debian-12 debian-13-java"
if command -v dotnet >/dev/null 2>&1; then
    profiles="$profiles dotnet"
    need="$need debian-12-dotnet"
fi
missing=
for i in $need; do [ -f "$cache/images/$i/ok" ] || missing=1; done
if [ -z "$missing" ]; then
    echo "local images: cached in $cache/images"
    exit 0
fi
state=$(mktemp -d /tmp/dval-images.XXXXXX)
trap 'rm -rf "$state"' EXIT
start=$SECONDS
# shellcheck disable=SC2086 # the profile names are words
if "$B"/bin/daytona-validate snapshot ensure $profiles --executor local \
        --state-dir "$state" >"$state.log" 2>&1; then
    echo "local images: built in $((SECONDS - start)) s into $cache/images"
    rm -f "$state.log"
else
    # the suites then report what is missing (or skip without isolation)
    echo "local images: not built (exit $?); the local suites may fail or skip:"
    tail -n 5 "$state.log" | sed 's/^/    /'
    rm -f "$state.log"
fi
exit 0
