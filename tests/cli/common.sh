# Sourced by the CLI suites (tests/cli/suite_*.sh): the paths, the tallies
# and a temporary directory $T that goes at exit, with the local sandboxes
# made under $T/state and the emulator the suite may start ($EMU_PID).
# $1: the temporary directory's name stem.
set -u
cd "$(dirname "$0")/../.."
B=${B:-build}
CLI=$B/bin/daytona-validate
PY=/usr/bin/python3
pass=0 fail=0 skip=0
T=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
EMU_PID=
cleanup() {
    [ -n "$EMU_PID" ] && kill "$EMU_PID" 2>/dev/null
    # local sandboxes keep an init process until stopped: reap them before
    # their state directory goes
    [ -d "$T/state" ] && "$CLI" sandbox rm --all --executor local --state-dir "$T/state" >/dev/null 2>&1
    # and the tmpfs of a snapshot's shared services (the java and dotnet
    # compile services), which only a snapshot delete unmounts
    awk -v t="$T/" 'index($2, t) == 1 { print $2 }' /proc/mounts |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$T"
}
trap cleanup EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/    /' <<<"$2" | head -n 30; }
skipped() { skip=$((skip + 1)); echo "skip $1 ($2)"; }
