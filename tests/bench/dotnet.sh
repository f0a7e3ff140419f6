#!/usr/bin/env bash
# Section 10 of `make bench` (BENCH_ONLY=dotnet): C# time to verdict on the
# local executor, side by side in one run, for the console sample and the
# EF Core + SQLite one:
#   service  warm validations built by the snapshot's compile service;
#   full     warm validations forced onto the full offline dotnet build;
#   plain    plain `dotnet build && dotnet run` in the same sandbox;
#   cold     the first validation of a sandbox that just started.
# Usage: dotnet.sh B OUT STATE RESULTS N COLD. Prints a table, writes
# RESULTS/dotnet.json.
set -euo pipefail
B=$1 out=$2 state=$3 res=$4 n=$5 cold=$6
here=$(cd "$(dirname "$0")" && pwd)
command -v dotnet >/dev/null || { echo "dotnet bench: no .NET SDK on this host"; exit 0; }
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Iinclude -o "$out/dotnetbench" \
    "$here/dotnetbench.c" "$B/lib/libdaytona-validate.a" \
    $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread
for s in dotnet dotnet-efcore-sqlite; do
    src=examples/validation/$s
    db() { "$out/dotnetbench" "$state" "$src" "$@"; }
    db 1 service >/dev/null          # snapshot, sandbox, service (untimed)
    db "$n" service >"$res/dotnet_${s}_service.json"
    db "$(( (n + 2) / 3 ))" full >"$res/dotnet_${s}_full.json"
    db "$(( (n + 2) / 3 ))" plain >"$res/dotnet_${s}_plain.json"
    db "$cold" cold >"$res/dotnet_${s}_cold.json"
done
/usr/bin/python3 - "$res" <<'PY'
import json, sys, os
res = sys.argv[1]
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]
out = {}
goals = {"dotnet": 600, "dotnet-efcore-sqlite": 2500}
print("C# time to verdict (local executor), ms")
print("%-22s %-34s %4s %8s %8s" % ("sample", "", "n", "p50", "p99"))
for s in ("dotnet", "dotnet-efcore-sqlite"):
    out[s] = {}
    for mode, label in (("service", "warm, compile service"), ("full", "warm, full dotnet build"),
                        ("plain", "plain dotnet build && dotnet run"),
                        ("cold", "cold (sandbox just started)")):
        with open(os.path.join(res, "dotnet_%s_%s.json" % (s, mode))) as f:
            v = json.load(f)["ms"]
        out[s][mode] = {"n": len(v), "p50": pct(v, 50), "p99": pct(v, 99)}
        print("%-22s %-34s %4d %8.1f %8.1f" % (s, label, len(v), out[s][mode]["p50"], out[s][mode]["p99"]))
    w, c, p = out[s]["service"]["p50"], out[s]["cold"]["p50"], out[s]["plain"]["p50"]
    print("%-22s warm/plain %.3f, cold/warm %.2f; goals: warm p50 <= %d ms %s, cold <= 2x warm %s" % (
        s, w / p, c / w, goals[s], "met" if w <= goals[s] else "NOT met", "met" if c <= 2 * w else "NOT met"))
with open(os.path.join(res, "dotnet.json"), "w") as f:
    json.dump(out, f, indent=1)
PY
