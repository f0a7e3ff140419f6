#!/usr/bin/env bash
# Extracts the EXAMPLES code of every man3 page (what a reader sees, from
# the generated roff) and compiles and links it against the built library
# with the flags a program would use. Pages with identical code compile
# once. Every man3 page must have EXAMPLES (gen.py --check says so too).
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
out=$B/man-examples
rm -rf "$out" && mkdir -p "$out"
fail=0 pages=0 built=0
declare -A seen
for p in man/man3/*.3; do
    n=$(basename "$p" .3)
    src=$out/$n.c
    # the .EX block after .SH "EXAMPLES", roff escapes undone
    awk '/^\.SH "?EXAMPLES"?/ { on = 1; next } on && /^\.SH/ { on = 0 }
         on && /^\.EX/ { code = 1; next } on && /^\.EE/ { code = 0; next }
         code { gsub(/\\&/, ""); gsub(/\\e/, "\\"); print }' "$p" >"$src"
    pages=$((pages + 1))
    if [ ! -s "$src" ]; then echo "FAIL: $p has no EXAMPLES code"; fail=1; continue; fi
    sum=$(sha1sum <"$src" | cut -d' ' -f1)
    [ -n "${seen[$sum]:-}" ] && continue
    seen[$sum]=$n
    built=$((built + 1))
    if ! cc -std=c99 -pedantic -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L \
            -Iinclude -o "$out/$n" "$src" -L"$B/lib" -ldaytona-validate -lpthread \
            2>"$out/$n.log"; then
        echo "FAIL: the EXAMPLES of $p do not compile:"; sed 's/^/    /' "$out/$n.log"
        fail=1
    fi
done
[ $fail -eq 0 ] && echo "man-examples: OK ($pages pages, $built distinct programs compiled and linked)"
exit $fail
