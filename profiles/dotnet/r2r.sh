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
#
# Where the executor lends the build a cache (the local one: the
# machine's, at /tmp/dval-build/cache), each output is kept there under
# the digest of its input and of everything it was compiled against, and
# a later build of the same set copies it instead of compiling: the
# first dotnet snapshot of a machine pays for the compilation, the next
# ones do not (nor is crossgen2 restored when nothing misses).
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
# only a cache the executor lent: one made here would stay in the image
cache=/tmp/dval-build/cache/r2r
[ -d /tmp/dval-build/cache ] && mkdir -p "$cache" 2>/dev/null &&
    [ -w "$cache" ] || cache=

# What every output depends on besides its input: the runtime, this
# script and the whole set it is compiled against (inputs as they are now).
context() {
    {
        echo "runtime $v"
        sha256sum "$0" | cut -d' ' -f1
        printf '%s\n' "$list" | while read -r _ f; do
            sha256sum "$f" | cut -d' ' -f1
        done | sort
    } | sha256sum | cut -c1-32
}

# Copies cached outputs over their inputs; the inputs still IL go to
# $w/todo.
from_cache() {
    : > "$w/todo"
    printf '%s\n' "$list" | while read -r kind f; do
        [ "$kind" = il ] && [ -f "$f" ] || continue
        k=
        [ -n "$cache" ] && k=$cache/$(sha256sum "$f" | cut -c1-64)-$ctx.dll
        if [ -n "$k" ] && [ -s "$k" ] && cp "$k" "$f.r2r" && mv -f "$f.r2r" "$f"; then
            chmod 0644 "$f"
            touch "$k"
        else
            rm -f "$f.r2r"
            echo "$f" >> "$w/todo"
        fi
    done
}

# Restores crossgen2 (the runtime's own version, else the nearest patch
# of 10.0 served) into $w; prints its path.
crossgen2() {
    cfg=
    [ -f /tmp/dval-build/NuGet.Config ] && cfg=--configfile=/tmp/dval-build/NuGet.Config
    p=${v#10.0.}
    case $p in *[!0-9]*|'') p=0;; esac
    cands="$p"
    i=1
    while [ $i -le 8 ]; do
        cands="$cands $((p + i))"
        [ $((p - i)) -ge 0 ] && cands="$cands $((p - i))"
        i=$((i + 1))
    done
    for c in $cands; do
        printf '%s\n' '<Project Sdk="Microsoft.NET.Sdk">' \
            '  <PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>' \
            "  <ItemGroup><PackageDownload Include=\"Microsoft.NETCore.App.Crossgen2.linux-x64\" Version=\"[10.0.$c]\" /></ItemGroup>" \
            '</Project>' > "$w/cg.csproj"
        if HOME=/tmp NUGET_HTTP_CACHE_PATH=/tmp/dval-nuget-http NUGET_CERT_REVOCATION_MODE=offline \
            dotnet restore "$w/cg.csproj" --packages "$w/pk" $cfg >"$w/restore.log" 2>&1; then
            cg=$w/pk/microsoft.netcore.app.crossgen2.linux-x64/10.0.$c/tools/crossgen2
            [ -x "$cg" ] && { echo "$cg"; return 0; }
        fi
    done
    return 1
}

# Compiles $1 in place with crossgen2 $2; keeps the output in the cache.
compile() {
    f=$1 cg=$2
    k=
    [ -n "$cache" ] && k=$cache/$(sha256sum "$f" | cut -c1-64)-$ctx.dll
    {
        for r in "$rt"/*.dll; do echo "-r:$r"; done
        printf '%s\n' "$list" | while read -r _ g; do
            [ "$g" = "$f" ] || echo "-r:$g"
        done
    } > "$w/refs.rsp"
    if "$cg" "$f" -o "$w/out.dll" --targetos linux --targetarch x64 -O "@$w/refs.rsp" \
        >"$w/cg.log" 2>&1 && [ -s "$w/out.dll" ]; then
        chmod 0644 "$w/out.dll"
        if [ -n "$k" ] && t=$(mktemp "$cache/.new.XXXXXX" 2>/dev/null); then
            cp "$w/out.dll" "$t" && mv -f "$t" "$k" || rm -f "$t"
        fi
        mv -f "$w/out.dll" "$f"
    else
        echo "r2r.sh: ${f#"$o"/packages/}: crossgen2 refused it; left as IL: $(head -n 1 "$w/cg.log")" >&2
        rm -f "$w/out.dll"
    fi
}

# The cache holds what the latest builds used: beyond 2 GiB the files
# used least recently go.
prune() {
    [ -n "$cache" ] || return 0
    ls -1tr "$cache" | while read -r e; do
        [ "$(du -sm "$cache" | cut -f1)" -gt 2048 ] || break
        rm -f "$cache/$e"
    done
}

ctx=$(context)
from_cache
total=$(printf '%s\n' "$list" | grep -c '^il ')
todo=$(wc -l < "$w/todo")
lent=
[ -n "$cache" ] || lent=" (none lent to this build)"
echo "r2r.sh: runtime $v; $((total - todo)) of $total assemblies from the build cache$lent, $todo to compile"
if [ "$todo" -gt 0 ]; then
    if cg=$(crossgen2); then
        echo "r2r.sh: crossgen2 ${cg#*crossgen2.linux-x64/}"
        while read -r f; do compile "$f" "$cg"; done < "$w/todo"
    else
        echo "r2r.sh: crossgen2 10.0.x not available from the package source; left as IL" >&2
        tail -n 3 "$w/restore.log" >&2
    fi
fi
prune
rm -rf "$w"
exit 0
