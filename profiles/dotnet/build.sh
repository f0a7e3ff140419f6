#!/bin/sh
# The dotnet profile's build phase, in the project's directory: the
# snapshot's compile service when it answers and the project is one it
# builds (dval-csc-client exits 75 otherwise), else a full `dotnet build`
# in this validation's own processes, offline, against the snapshot's
# package folder. Both put the program under bin/Debug/net10.0/. A
# project that needs a newer SDK than the snapshot's gets one line saying
# so and exit status 78 (the verdict runtime_unsupported), not a compile
# error.
. /opt/dval-dotnet/env.sh
mkdir -p obj || exit 1
build() {
    if [ "${DVAL_CSC:-1}" != 0 ]; then
        /opt/dval-dotnet/dval-csc-client /run/dval-csc/sock
        rc=$?
        if [ $rc -ne 75 ]; then
            [ "${DVAL_CSC_TRACE:-}" = 1 ] && echo "dval-csc: service" >&2
            return $rc
        fi
    fi
    [ "${DVAL_CSC_TRACE:-}" = 1 ] && echo "dval-csc: dotnet build" >&2
    # The SDK keeps scratch files (NuGetScratch, MSBuildTemp) under the
    # temp directory by fixed names: in a /tmp that validations share,
    # the first one's would refuse or steer every later build.
    mkdir -p obj/.dval-tmp && TMPDIR="$PWD/obj/.dval-tmp" \
        dotnet build --nologo -v q -nodeReuse:false \
        -p:UseSharedCompilation=false \
        -p:RestoreConfigFile=/opt/dval-dotnet/offline.config
}
{ build; echo $? > obj/.dval-rc; } 2>&1 | tee obj/.dval-build.log
rc=$(cat obj/.dval-rc)
[ "$rc" = 0 ] && exit 0
need=$(sed -n 's/.*NETSDK1045: The current .NET SDK does not support targeting \(\.NET [0-9.]*[0-9]\).*/\1/p; s/.*error CS1617: Invalid option .\([0-9.]*[0-9]\). for \/langversion.*/C# \1/p' obj/.dval-build.log | head -n 1)
if [ -n "$need" ]; then
    echo "dval: runtime unsupported: needs $need, this snapshot has the .NET SDK $(dotnet --version); use an image with a newer SDK" >&2
    exit 78
fi
exit "$rc"
