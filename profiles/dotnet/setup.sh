#!/bin/sh
# setup.sh: the dotnet snapshot's one-time set-up (a build step, as root,
# after the profile's files are under /opt/dval-dotnet and its packages
# are restored): compiles the compile service (src/) with the SDK's own
# compiler, writes the command that starts it (service.sh, which the
# next build step describes as a profile service) and records the SDK.
set -eu
. /opt/dval-dotnet/env.sh
o=/opt/dval-dotnet
sdk=$(dotnet --list-sdks | sed -n 's/^\(10\.[^ ]*\) \[\(.*\)\]$/\2\/\1/p' | tail -n 1)
[ -d "$sdk" ] || { echo "setup.sh: no .NET 10 SDK in this image" >&2; exit 1; }
root=${sdk%/sdk/*}
ref=$(ls -d "$root"/packs/Microsoft.NETCore.App.Ref/10.* | sort -V | tail -n 1)
roslyn=$sdk/Roslyn/bincore
mkdir -p "$o/csc"
set --
for f in "$ref"/ref/net10.0/*.dll; do set -- "$@" "-r:$f"; done
dotnet exec "$roslyn/csc.dll" -nologo -noconfig -nullable:enable -optimize+ \
    -target:exe -out:"$o/csc/CscService.dll" "$@" \
    -r:"$roslyn/Microsoft.CodeAnalysis.dll" \
    -r:"$roslyn/Microsoft.CodeAnalysis.CSharp.dll" "$o"/src/*.cs
ln -sf "$roslyn/Microsoft.CodeAnalysis.dll" "$roslyn/Microsoft.CodeAnalysis.CSharp.dll" "$o/csc/"
printf '%s\n' '{"runtimeOptions":{"tfm":"net10.0","framework":' \
    '{"name":"Microsoft.NETCore.App","version":"10.0.0"}}}' \
    > "$o/csc/CscService.runtimeconfig.json"
# The service's command line, run as its own uid by the snapshot's
# services host, outside every sandbox (on Daytona: in the sandbox). The
# heap is bounded: the host has no cgroup of its own. No diagnostics
# port: nothing may attach to the service or read its memory.
cat > "$o/service.sh" <<EOS
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_GCHeapHardLimit=0x30000000 \\
    DOTNET_EnableDiagnostics=0
exec dotnet exec $o/csc/CscService.dll /run/dval-csc/sock $ref/ref/net10.0 \
    $ref/analyzers/dotnet/cs $o/pkgset/obj/project.assets.json $o/packages $sdk
EOS
rm -rf "$o/src"
chmod 0755 "$o" "$o/dval-csc-client"
chmod -R a+rX "$o"
mkdir -p /etc/dval
echo ".NET SDK $(dotnet --version)" > /etc/dval/runtime
