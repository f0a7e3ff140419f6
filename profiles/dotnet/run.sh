#!/bin/sh
# The dotnet profile's run phase: the program the build phase left under
# bin/Debug/net10.0/, started the way `dotnet run` starts it, with the
# arguments given.
. /opt/dval-dotnet/env.sh
set -- bin/Debug/net10.0/*.runtimeconfig.json "$@"
if [ ! -f "$1" ]; then
    echo "dval: no program under bin/Debug/net10.0 (did the build run?)" >&2
    exit 1
fi
dll=${1%.runtimeconfig.json}.dll
shift
exec dotnet exec "$dll" "$@"
