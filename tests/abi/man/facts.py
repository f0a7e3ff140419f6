"""Facts about the public functions read from the code, for gen.py:
which entry points check the reentrancy guard, and which status codes each
returns directly. The man pages are generated from (and checked against)
these, so they cannot claim what the code does not do.
"""
import glob
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))

DEF = re.compile(r"^(?:DVAL_API\s+)?(?:static\s+)?(?:const\s+)?[a-z_][a-z0-9_ ]*?[\s*]+"
                 r"([a-z_][a-z0-9_]*)\(", re.I)
GUARD = re.compile(r"DVAL__NO_REENTRY\(|return DVAL_EREENTRANT;")
RETURN_CODE = re.compile(r"\breturn\s+(DVAL_E[A-Z]+)\s*;")
NULL_ARG = re.compile(r"\breturn\s+dval__null_arg\(")


def functions(path):
    """{name: (is_api, body)} of the functions defined in one C file."""
    out, name, api, body = {}, None, False, None
    for line in open(path, encoding="utf-8"):
        if body is None:
            m = DEF.match(line)
            if m and not line.rstrip().endswith(";"):
                name, api = m.group(1), line.startswith("DVAL_API")
            if line.startswith("{") and name:
                body = []
            continue
        if line.startswith("}"):
            out[name] = (api, "".join(body))
            name, body = None, None
        else:
            body.append(line)
    return out


def _calls(body, names):
    return {n for n in names if re.search(r"\b%s\(" % re.escape(n), body)}


def scan():
    """(guarded, codes): the DVAL_API functions that check the reentrancy
    guard (directly or through a function of the same file), and the codes
    each returns directly (a NULL-argument report counts as DVAL_EINVAL)."""
    guarded, codes = set(), {}
    for path in sorted(glob.glob(os.path.join(ROOT, "lib", "*.c"))):
        fns = functions(path)
        g = {n for n, (_, b) in fns.items() if GUARD.search(b)}
        while True:  # through helpers and other entry points of the file
            more = {n for n, (_, b) in fns.items() if n not in g and _calls(b, g)}
            if not more:
                break
            g |= more
        for n, (api, b) in fns.items():
            if not api:
                continue
            if n in g:
                guarded.add(n)
            c = set(RETURN_CODE.findall(b))
            if NULL_ARG.search(b):
                c.add("DVAL_EINVAL")
            codes[n] = c
    return guarded, codes
