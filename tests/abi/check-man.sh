#!/usr/bin/env bash
# Man page checks:
#  1. every DVAL_API function in include/dval.h has man/man3/<name>.3;
#  2. no man/man3 page for a function that does not exist, except the
#     overview pages (dval_errors, dval_executor, dval_threads);
#  3. every page has the required sections (man3: NAME SYNOPSIS DESCRIPTION
#     RETURN VALUE ERRORS OWNERSHIP THREAD SAFETY SINCE SEE ALSO);
#  4. mandoc -T lint -W warning is clean for man/man3, man/man7 (and man1).
set -uo pipefail
cd "$(dirname "$0")/../.."
OVERVIEW="dval_errors dval_executor dval_threads"
REQUIRED=("NAME" "SYNOPSIS" "DESCRIPTION" "RETURN VALUE" "ERRORS" "OWNERSHIP"
          "THREAD SAFETY" "SINCE" "SEE ALSO")
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v mandoc >/dev/null || { echo "FAIL: mandoc not found (apt-get install mandoc)"; exit 1; }

funcs=$(tests/abi/header-api.sh functions) || { echo "FAIL: cannot parse include/dval.h"; exit 1; }
for f in $funcs; do
    [ -f "man/man3/$f.3" ] || bad "no man page for $f (expected man/man3/$f.3)"
done
for p in man/man3/*.3; do
    [ -e "$p" ] || continue
    n=$(basename "$p" .3)
    case " $OVERVIEW " in *" $n "*) continue ;; esac
    grep -qxF "$n" <<<"$funcs" || bad "$p documents $n, which include/dval.h does not declare"
done
[ -f man/man7/dval.7 ] || bad "no overview page man/man7/dval.7"
for o in $OVERVIEW; do [ -f "man/man3/$o.3" ] || bad "no overview page man/man3/$o.3"; done

for p in man/man3/*.3; do
    [ -e "$p" ] || continue
    n=$(basename "$p" .3)
    case " $OVERVIEW " in *" $n "*) continue ;; esac
    for s in "${REQUIRED[@]}"; do
        grep -qE "^\.SH \"?$s\"?[[:space:]]*$" "$p" || bad "$p lacks section $s"
    done
    awk '/^\.SH/ { in_syn = ($2 == "SYNOPSIS") } in_syn' "$p" | grep -qE "(^|[^a-z0-9_])$n(\\\\fP)?\\(" ||
        bad "$p: SYNOPSIS does not show the prototype of $n"
done

# dval_errors(3) documents every status code of enum dval_status
codes=$(sed -n '/^enum dval_status {/,/^};/p' include/dval.h | grep -oE '^[[:space:]]*DVAL_[A-Z]+' | tr -d ' ')
for c in $codes; do
    grep -qE "^\.B $c( |$)" man/man3/dval_errors.3 2>/dev/null || bad "man/man3/dval_errors.3 does not document $c"
done

# generated pages are up to date with include/dval.h, man/src/*.page and the
# code (and the sources do not contradict the code: see gen.py)
if [ -x tests/abi/man/gen.py ] && [ -x /usr/bin/python3 ]; then
    /usr/bin/python3 tests/abi/man/gen.py --check || bad "generated man pages are out of date (run tests/abi/man/gen.py)"
fi

pages=$(ls man/man3/*.3 man/man7/*.7 man/man1/*.1 2>/dev/null)
# a cross reference is ".BR name (N)": ".BR name N" renders as "nameN"
# shellcheck disable=SC2086
refs=$(grep -nE '^\.BR [A-Za-z0-9_.-]+ [0-9]' $pages)
[ -z "$refs" ] || bad "cross references without parentheses: $refs"
# one date on every page (the generated ones and the hand-written man1)
# shellcheck disable=SC2086
dates=$(awk 'FNR == 1 && /^\.TH/ { print $4 }' $pages | sort -u)
[ "$(grep -c . <<<"$dates")" -le 1 ] || bad "pages carry different dates: $(tr '\n' ' ' <<<"$dates")"
if [ -n "$pages" ]; then
    # shellcheck disable=SC2086
    out=$(mandoc -T lint -W warning $pages 2>&1)
    if [ -n "$out" ]; then
        bad "mandoc -T lint -W warning:"; sed 's/^/    /' <<<"$out"
    fi
fi
n=$(echo "$pages" | grep -c . || true)
if [ $fail -eq 0 ]; then
    echo "man-check: OK ($(wc -w <<<"$funcs") functions documented, $n pages lint-clean)"
else
    echo "man-check: FAILED"
fi
exit $fail
