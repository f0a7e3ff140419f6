#!/usr/bin/env bash
# Section 6 of `make bench` (BENCH_ONLY=java): java time to verdict on the
# local executor for examples/validation/java-javac, side by side:
#   cold     the first validation of a fresh process on a running sandbox
#            (the service lives with the sandbox, so it answers this one
#            too; the paths each run took are counted in java_cold.jsonl);
#   service  warm validations compiled by the snapshot's compile service;
#   javac    warm validations forced onto the plain javac fallback;
#   plain    plain `javac` + `java` on the host, no sandbox, no library.
# Usage: java.sh B OUT STATE RESULTS N COLD. Prints a table, writes
# RESULTS/java.json.
set -euo pipefail
B=$1 out=$2 state=$3 res=$4 n=$5 cold=$6
here=$(cd "$(dirname "$0")" && pwd)
src=examples/validation/java-javac
# shellcheck disable=SC2046
cc -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Iinclude -Ilib -Itests -o "$out/javabench" \
    "$here/javabench.c" "$B/lib/libdaytona-validate.a" \
    $(pkg-config --libs libcurl jansson uuid libcrypto) -lpthread
jb() { "$out/javabench" "$state" "$src" "$@"; }
jb 1 cold >/dev/null            # builds the java snapshot if needed (untimed)
jb 0 service >/dev/null         # until the sandbox's service answers (untimed)
: >"$res/java_cold.jsonl"
for _ in $(seq 1 "$cold"); do
    # a new process each time: its first validation
    jb 1 cold >>"$res/java_cold.jsonl"
done
jb "$n" service >"$res/java_service.json"
jb "$n" javac >"$res/java_javac.json"
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/dval-jbench.XXXXXX")
trap 'rm -rf "$tmpd"' EXIT
cp -r "$src"/. "$tmpd/"
plain=()
for _ in $(seq 1 "$n"); do
    t0=$(date +%s%N)
    (cd "$tmpd" && rm -rf out && javac -d out Main.java && java -cp out Main >/dev/null 2>&1)
    plain+=($(( ($(date +%s%N) - t0) / 1000 )))
done
printf '{"mode":"plain","ms":[%s]}\n' "$(IFS=,; for u in "${plain[@]}"; do
    printf '%s\n' "$(awk "BEGIN{printf \"%.1f\", $u/1000}")"; done | paste -sd,)" \
    >"$res/java_plain.json"
/usr/bin/python3 - "$res" <<'PY'
import json, sys, os
res = sys.argv[1]
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]
rows = {}
with open(os.path.join(res, "java_cold.jsonl")) as f:
    cold = [json.loads(l) for l in f if l.strip()]
rows["cold (1st run of a process)"] = [x for c in cold for x in c["ms"]]
paths = {k: sum(c["paths"][k] for c in cold) for k in ("service", "javac")}
for k, name in (("warm, compile service", "java_service.json"),
                ("warm, javac fallback", "java_javac.json"),
                ("plain javac + java (host)", "java_plain.json")):
    with open(os.path.join(res, name)) as f:
        rows[k] = json.load(f)["ms"]
out = {}
print("java time to verdict (examples/validation/java-javac, local executor), ms")
print("%-30s %5s %8s %8s" % ("", "n", "p50", "p99"))
for k, v in rows.items():
    out[k] = {"n": len(v), "p50": pct(v, 50), "p99": pct(v, 99)}
    print("%-30s %5d %8.1f %8.1f" % (k, len(v), out[k]["p50"], out[k]["p99"]))
print("cold runs compiled by: service %d, javac %d" % (paths["service"], paths["javac"]))
out["cold paths"] = paths
print("goal: warm p50 <= 400 ms:", "met" if out["warm, compile service"]["p50"] <= 400 else "NOT met")
with open(os.path.join(res, "java.json"), "w") as f:
    json.dump(out, f, indent=1)
PY
