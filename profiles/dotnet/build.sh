#!/bin/sh
# The dotnet profile's build phase, in the project's directory: the
# snapshot's compile service when it answers and the project is one it
# builds (dval-csc-client exits 75 otherwise), else a full `dotnet build`
# in this validation's own processes, offline, against the snapshot's
# package folder. Both put the program under bin/Debug/net10.0/.
. /opt/dval-dotnet/env.sh
if [ "${DVAL_CSC:-1}" != 0 ]; then
    /opt/dval-dotnet/dval-csc-client /run/dval-csc/sock
    rc=$?
    if [ $rc -ne 75 ]; then
        [ "${DVAL_CSC_TRACE:-}" = 1 ] && echo "dval-csc: service" >&2
        exit $rc
    fi
fi
[ "${DVAL_CSC_TRACE:-}" = 1 ] && echo "dval-csc: dotnet build" >&2
# The SDK keeps scratch files (NuGetScratch, MSBuildTemp) under the temp
# directory by fixed names: in a /tmp that validations share, the first
# one's would refuse or steer every later build. This build's own.
mkdir -p obj/.dval-tmp && export TMPDIR="$PWD/obj/.dval-tmp" || exit 1
exec dotnet build --nologo -v q -nodeReuse:false -p:UseSharedCompilation=false \
    -p:RestoreConfigFile=/opt/dval-dotnet/offline.config
