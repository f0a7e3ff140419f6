#!/usr/bin/env bash
# Section 9 of `make bench` (BENCH_ONLY=corpus): the whole Java corpus
# (tests/corpus/java/gen.py), side by side in one run, 4 at a time:
#   plain     plain javac + java as a separate command in the same
#             snapshot's sandbox (the reference for byte-exactness);
#   session   the java profile, one shared sandbox (a session each);
#   sandbox   the java profile, a sandbox of its own each;
#   host      plain javac + java on the host, no sandbox, no library
#             (the JDK 25 under /usr/lib/jvm when there is one).
# Targets (issue 45): sandbox >= 0.6x session and >= 5x host, in
# programs/s; every program byte-exact on both isolations.
# Usage: corpus.sh B STATE RESULTS. Prints a table, writes RESULTS/corpus.json.
set -u
B=$1 state=$2 res=$3
work=$(mktemp -d /tmp/dval-corpus.XXXXXX)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 tests/corpus/java/gen.py "$work/src" || exit 1
dirs=("$work"/src/*)
# the snapshot and the sandbox's first start, untimed
tests/corpus/compare.sh "$B" "$state" "$work/warm" "${dirs[0]}" >/dev/null 2>&1 ||
    true
tests/corpus/compare.sh "$B" "$state" "$work/out" "${dirs[@]}" | tee "$work/cmp.txt"
jdk=$(ls -d /usr/lib/jvm/*25* 2>/dev/null | head -n 1)
jbin=${jdk:+$jdk/bin/}
t0=$(date +%s%N)
printf '%s\n' "${dirs[@]}" | xargs -P 4 -I{} sh -c \
    "cd {} && rm -rf h && ${jbin}javac -d h Main.java && ${jbin}java -cp h Main >/dev/null 2>&1"
t1=$(date +%s%N)
/usr/bin/python3 - "$work" "$res" "${#dirs[@]}" "$(( (t1 - t0) / 1000000 ))" "${jbin}javac" <<'PY'
import json, sys
work, res, n, host_ms, javac = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
r = {m: json.load(open("%s/out/%s.json" % (work, m))) for m in ("plain", "session", "sandbox")}
r["host"] = {"mode": "host", "n": n, "wall_ms": host_ms, "per_s": n / (host_ms / 1e3), "javac": javac}
exact = {}
for line in open(work + "/cmp.txt"):
    if "byte-exact" in line:
        m, rest = line.split(":", 1)
        exact[m] = rest.split()[0]
r["byte_exact"] = exact
s, sb, h = r["session"]["per_s"], r["sandbox"]["per_s"], r["host"]["per_s"]
r["ratios"] = {"sandbox_vs_session": sb / s, "sandbox_vs_host": sb / h}
print("java corpus, %d programs, 4 at a time: programs/s" % n)
for m in ("plain", "session", "sandbox", "host"):
    print("  %-8s %7.2f  (%d ms)" % (m, r[m]["per_s"], r[m]["wall_ms"]))
print("  sandbox / session %.2fx (target >= 0.6), sandbox / host %.2fx (target >= 5); byte-exact %s"
      % (sb / s, sb / h, exact))
json.dump(r, open(res + "/corpus.json", "w"), indent=1)
PY
