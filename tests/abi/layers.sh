#!/usr/bin/env bash
# `make layers-check`: the naming scheme and the layering of lib/ (see
# lib/README.md), read from the objects so that it cannot drift:
#  - every global symbol is dval_ (public), dval__ (core internals), dt_
#    (daytona executor only) or lx_ (local executor only);
#  - the core references no executor's internals, and no executor another's;
#  - only the dispatch module and client setup touch the executor vtable.
set -euo pipefail
B=${B:-build}
obj=$B/obj/lib
fail=0
bad() { echo "layers-check: $*" >&2; fail=1; }

defined() { nm --defined-only -g "$1" | awk '{print $3}'; }
undefined() { nm -u "$1" | awk '{print $2}'; }

for o in "$obj"/*.o "$obj"/executor/*/*.o; do
    case $o in
        */executor/daytona/*) own='dt_' other='lx_' ;;
        */executor/local/*) own='lx_' other='dt_' ;;
        *) own='' other='' ;;
    esac
    allowed="^(dval_|dval__${own:+|$own})"
    while read -r s; do
        [ -z "$s" ] && continue
        [[ $s =~ $allowed ]] || bad "${o#$obj/}: global symbol $s has no prefix of its layer"
    done < <(defined "$o")
    forbidden=${other:-'dt_|lx_'}
    while read -r s; do
        [ -z "$s" ] && continue
        [[ $s =~ ^($forbidden) ]] && bad "${o#$obj/}: uses $s of another layer"
    done < <(undefined "$o")
done

# The vtable lives in the client (c->ex); only these files (the dispatch
# module, executor*.c, and client setup) may reach it.
for f in lib/*.c; do
    case ${f##*/} in executor.c|executor_*.c|client.c) continue ;; esac
    if grep -nE '(c|client)->ex\b|->ex\.|&[a-z_>-]*->ex\b' "$f" >/dev/null; then
        bad "$f touches the executor vtable (use lib/executor.h)"
    fi
done
[ $fail = 0 ] && echo "layers-check: prefixes and layers hold"
exit $fail
