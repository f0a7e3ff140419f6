#!/bin/sh
# r2r.sh: precompiles the snapshot's package set (a build step, as root,
# after setup.sh and at the end of each packages.sh once the compile
# service exists): each managed assembly a program of the set may load
# (the compile service's own list: CscService.dll --runtime-assets) is
# compiled to ReadyToRun code by crossgen2 and replaced in place, so a
# validation's program JITs its own code, not EF Core's. Idempotent: an
# assembly that is ReadyToRun already is left as it is; one crossgen2
# refuses stays IL (a line says so). Crossgen2 (the NuGet package of the
# runtime's version, else the nearest 10.0.x the source serves) is
# restored with packages.sh's NuGet settings into the build's /tmp and
# never enters the snapshot. A snapshot without it keeps IL assemblies.
set -u
. /opt/dval-dotnet/env.sh
o=/opt/dval-dotnet
[ -f "$o/csc/CscService.dll" ] || exit 0 # packages.sh before setup.sh
list=$(dotnet exec "$o/csc/CscService.dll" --runtime-assets \
    "$o/pkgset/obj/project.assets.json" "$o/packages") || {
    echo "r2r.sh: no list of the package set's assemblies; left as IL" >&2
    exit 0
}
printf '%s\n' "$list" | grep -q '^il ' || exit 0
rt=$(dotnet --list-runtimes | sed -n 's/^Microsoft\.NETCore\.App \(10\.[^ ]*\) \[\(.*\)\]$/\2\/\1/p' | tail -n 1)
[ -d "$rt" ] || { echo "r2r.sh: no .NET 10 runtime in this image; left as IL" >&2; exit 0; }
v=${rt##*/}
w=/tmp/dval-r2r
rm -rf "$w"
mkdir -p "$w"
cfg=
[ -f /tmp/dval-build/NuGet.Config ] && cfg=--configfile=/tmp/dval-build/NuGet.Config
# the runtime's own version, else the nearest patch of 10.0 served
p=${v#10.0.}
case $p in *[!0-9]*|'') p=0;; esac
cands="$p"
i=1
while [ $i -le 8 ]; do
    cands="$cands $((p + i))"
    [ $((p - i)) -ge 0 ] && cands="$cands $((p - i))"
    i=$((i + 1))
done
cg=
for c in $cands; do
    printf '%s\n' '<Project Sdk="Microsoft.NET.Sdk">' \
        '  <PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>' \
        "  <ItemGroup><PackageDownload Include=\"Microsoft.NETCore.App.Crossgen2.linux-x64\" Version=\"[10.0.$c]\" /></ItemGroup>" \
        '</Project>' > "$w/cg.csproj"
    if HOME=/tmp NUGET_HTTP_CACHE_PATH=/tmp/dval-nuget-http NUGET_CERT_REVOCATION_MODE=offline \
        dotnet restore "$w/cg.csproj" --packages "$w/pk" $cfg >"$w/restore.log" 2>&1; then
        cg=$w/pk/microsoft.netcore.app.crossgen2.linux-x64/10.0.$c/tools/crossgen2
        [ -x "$cg" ] && break
        cg=
    fi
done
if [ -z "$cg" ]; then
    echo "r2r.sh: crossgen2 10.0.x not available from the package source; left as IL" >&2
    tail -n 3 "$w/restore.log" >&2
    rm -rf "$w"
    exit 0
fi
echo "r2r.sh: crossgen2 ${cg#*crossgen2.linux-x64/}, runtime $v"
printf '%s\n' "$list" | while read -r kind f; do
    [ "$kind" = il ] && [ -f "$f" ] || continue
    {
        for r in "$rt"/*.dll; do echo "-r:$r"; done
        printf '%s\n' "$list" | while read -r _ g; do
            [ "$g" = "$f" ] || echo "-r:$g"
        done
    } > "$w/refs.rsp"
    if "$cg" "$f" -o "$w/out.dll" --targetos linux --targetarch x64 -O "@$w/refs.rsp" \
        >"$w/cg.log" 2>&1 && [ -s "$w/out.dll" ]; then
        chmod 0644 "$w/out.dll"
        mv -f "$w/out.dll" "$f"
    else
        echo "r2r.sh: ${f#"$o"/packages/}: crossgen2 refused it; left as IL: $(head -n 1 "$w/cg.log")" >&2
        rm -f "$w/out.dll"
    fi
done
rm -rf "$w"
exit 0
