#!/bin/sh
# packages.sh ID@VERSION...: adds NuGet packages to the snapshot's set and
# restores them into its package folder (a snapshot build step, with the
# build's network and the host's NuGet settings when the build has them).
# Validations restore from that folder alone; the compile service reads
# the set from pkgset/obj/project.assets.json.
set -eu
. /opt/dval-dotnet/env.sh
d=/opt/dval-dotnet/pkgset
mkdir -p "$d"
[ -f "$d/pkgset.csproj" ] || printf '%s\n' \
    '<Project Sdk="Microsoft.NET.Sdk">' \
    '  <PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>' \
    '  <ItemGroup>' '  </ItemGroup>' '</Project>' > "$d/pkgset.csproj"
for p in "$@"; do
    id=${p%@*} v=${p#*@}
    case "$id$v" in *[!A-Za-z0-9._+-]*|'') echo "packages.sh: bad package $p" >&2; exit 2;; esac
    [ "$id" != "$p" ] || { echo "packages.sh: $p: use ID@VERSION" >&2; exit 2; }
    sed -i "s|  </ItemGroup>|    <PackageReference Include=\"$id\" Version=\"$v\" />\n  </ItemGroup>|" \
        "$d/pkgset.csproj"
done
# The host's NuGet configuration (sources, credentials, proxy), where the
# executor shows it to the build (the local one: read-only on the build's
# own /tmp, never in the snapshot; lib/executor/local/build_nuget.c).
cfg=
[ -f /tmp/dval-build/NuGet.Config ] && cfg=--configfile=/tmp/dval-build/NuGet.Config
# Revocation of package signatures is checked offline: a build whose
# network reaches the package source but no certificate authority would
# otherwise wait for each lookup to time out.
HOME=/tmp NUGET_HTTP_CACHE_PATH=/tmp/dval-nuget-http NUGET_CERT_REVOCATION_MODE=offline \
    dotnet restore "$d/pkgset.csproj" --packages /opt/dval-dotnet/packages $cfg
chmod -R a+rX /opt/dval-dotnet/packages "$d"
# A snapshot that extends this one with packages of its own: those are
# precompiled too (before the compile service exists, setup.sh's turn).
sh /opt/dval-dotnet/r2r.sh
