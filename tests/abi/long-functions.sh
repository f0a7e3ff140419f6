#!/usr/bin/env bash
# Lists C functions longer than N lines (default 60) in the given trees
# (default lib/ and libexec/) and prints their count last. A function runs
# from the first line of its signature (the line holding "(" before its
# opening "{" in column 0) to the next "}" in column 0 (the
# project's style), as the issue counted them. With --check (make
# functions-check) it fails when there is one.
# Usage: tests/abi/long-functions.sh [--check] [-n N] [dir ...]
set -eu
cd "$(dirname "$0")/../.."
max=60 check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
if [ "${1:-}" = "-n" ]; then max=$2; shift 2; fi
[ $# -gt 0 ] || set -- lib libexec examples
find "$@" -name '*.c' | sort | xargs awk -v max="$max" -v check="$check" '
    FNR == 1 { name = ""; start = 0 }
    /^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ {
        s = $0; sub(/\(.*/, "", s); n = split(s, w, /[ *]+/); name = w[n]
        head = FNR
    }
    /^\{/ { start = head }
    /^\}/ && start {
        len = FNR - start + 1
        if (len > max) { printf "%s:%d %s %d\n", FILENAME, start, name, len; count++ }
        start = 0
    }
    END {
        printf "%d functions over %d lines\n", count, max
        if (check && count) {
            print "split them: functions stay under ~" max " lines"
            exit 1
        }
    }'
