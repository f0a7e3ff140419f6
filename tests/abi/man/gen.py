#!/usr/bin/python3
"""Generates man/man3/*.3 and man/man7/dval.7 from pages.py.

SYNOPSIS blocks are copied verbatim from include/dval.h (prototypes and the
types a page lists), so they cannot drift from the header.

Markup in pages.py text: blank line = new paragraph; "- " = bullet item;
"= TAG :: text" = tagged paragraph; @word = bold (function/constant name);
<<arg>> = italic (parameter). Everything else is escaped for roff.

Usage: gen.py [--check]   (--check: exit 1 when a page is out of date)
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import pages  # noqa: E402

DATE = "2025-01-01"
SOURCE = "libdaytona-validate 0.1.0"
MANUAL = "libdaytona-validate Manual"

HEADER = open(os.path.join(ROOT, "include", "dval.h"), encoding="utf-8").read()
HLINES = HEADER.splitlines()


def prototype(name):
    """The declaration lines of DVAL_API function name, as in the header."""
    for i, line in enumerate(HLINES):
        if line.startswith("DVAL_API") and re.search(r"\b%s\(" % name, line):
            out = [line[len("DVAL_API "):]]
            j = i
            while ";" not in HLINES[j]:
                j += 1
                # keep continuation alignment relative to the stripped prefix
                out.append(HLINES[j][len("DVAL_API "):] if HLINES[j].startswith(" " * 9) else HLINES[j])
            return out
    raise SystemExit("gen.py: %s is not declared DVAL_API in include/dval.h" % name)


def typedecl(name):
    """Verbatim definition of a typedef/struct/enum named name."""
    pats = [r"^typedef struct %s \{" % name, r"^struct %s \{" % name,
            r"^enum %s \{" % name]
    for i, line in enumerate(HLINES):
        if any(re.match(p, line) for p in pats):
            j = i
            while not HLINES[j].startswith("}"):
                j += 1
            return HLINES[i:j + 1]
        m = re.match(r"^typedef .*\(\*%s\)" % name, line)
        if m:
            j = i
            while ";" not in HLINES[j]:
                j += 1
            return HLINES[i:j + 1]
    raise SystemExit("gen.py: type %s not found in include/dval.h" % name)


def esc(s):
    s = s.replace("\\", "\\e")
    s = re.sub(r"<<([^<>]+)>>", lambda m: "\\fI" + m.group(1) + "\\fP", s)
    s = re.sub(r"@([A-Za-z_][A-Za-z0-9_]*)", lambda m: "\\fB" + m.group(1) + "\\fP", s)
    return s


def line(s):
    s = esc(s)
    if s.startswith(".") or s.startswith("'"):
        s = "\\&" + s
    return s


def text(body):
    """Converts the light markup to man(7) requests."""
    out = []
    paras = re.split(r"\n\s*\n", body.strip("\n"))
    first = True
    for p in paras:
        lines = p.strip("\n").split("\n")
        if lines[0].startswith("- "):
            for item in "\n".join(lines).split("\n- "):
                item = item[2:] if item.startswith("- ") else item
                out.append(".IP \\(bu 2")
                out.extend(line(x.strip()) for x in item.split("\n"))
            first = False
            continue
        if lines[0].startswith("= "):
            for item in re.split(r"\n(?== )", "\n".join(lines)):
                tag, _, rest = item[2:].partition("::")
                out.append(".TP")
                out.append(".B " + esc(tag.strip()))
                out.extend(line(x.strip()) for x in rest.strip().split("\n"))
            first = False
            continue
        if p.startswith("  "):  # literal block
            out.append(".PP" if not first else ".PP")
            out.append(".EX")
            out.extend(line(x[2:]) for x in lines)
            out.append(".EE")
            first = False
            continue
        out.append(".PP" if not first else ".PP")
        out.extend(line(x.strip()) for x in lines)
        first = False
    if out and out[0] == ".PP":
        out = out[1:]
    return out


def synopsis_block(entries):
    out = [".nf", ".B #include <dval.h>", ".PP"]
    for kind, lines in entries:
        for l in lines:
            l = l.replace("\\", "\\e")
            if kind == "proto":
                l = re.sub(r"\b(dval_[a-z0-9_]+)\(", r"\\fB\1\\fP(", l, count=1)
            if l.startswith(".") or l.startswith("'"):
                l = "\\&" + l
            out.append(l if l.strip() else ".PP")
        out.append(".PP")
    if out[-1] == ".PP":
        out.pop()
    out.append(".fi")
    return out


def see_also(names):
    out = []
    items = []
    for n in names:
        m = re.match(r"^([a-z0-9_.-]+)\((\d)\)$", n)
        if m:
            items.append((m.group(1), m.group(2)))
        else:
            items.append((n, "3"))
    for k, (n, sec) in enumerate(items):
        out.append(".BR %s (%s)%s" % (n, sec, "," if k + 1 < len(items) else ""))
    return out


def render(p, section):
    name = p["name"]
    out = ['.TH %s %s %s "%s" "%s"' % (name.upper(), section, DATE, SOURCE, MANUAL)]
    out += [".SH NAME", "%s \\- %s" % (", ".join(p.get("names", [name])).replace("_", "_"), esc(p["summary"]))]
    syn = []
    for t in p.get("types", []):
        syn.append(("type", typedecl(t)))
    for f in p.get("protos", [name] if section == "3" and p.get("kind", "func") == "func" else []):
        syn.append(("proto", prototype(f)))
    if p.get("synopsis_text"):
        syn.append(("text", p["synopsis_text"].strip("\n").split("\n")))
    if syn:
        out += [".SH SYNOPSIS"] + synopsis_block(syn)
        out += [".PP", "Compile and link with",
                ".BR \"pkg-config --cflags --libs daytona-validate\" ."]
    for title, key in (("DESCRIPTION", "desc"), ("RETURN VALUE", "ret"),
                       ("ERRORS", "errors"), ("OWNERSHIP", "own"),
                       ("THREAD SAFETY", "thread")):
        if key in p:
            out.append('.SH "%s"' % title if " " in title else ".SH " + title)
            if key == "errors" and isinstance(p[key], list):
                if not p[key]:
                    out.append("None: this function cannot fail.")
                for code, why in p[key]:
                    out += [".TP", ".B " + code]
                    out.extend(line(x.strip()) for x in why.strip().split("\n"))
            else:
                out += text(p[key])
    for title, body in p.get("extra", []):
        out.append('.SH "%s"' % title)
        out += text(body)
    out += [".SH SINCE", "libdaytona-validate %s." % p.get("since", "0.1.0")]
    out += [".SH \"SEE ALSO\""] + see_also(p.get("see", ["dval(7)"]))
    return "\n".join(out) + "\n"


def main():
    check = "--check" in sys.argv
    stale = []
    written = 0
    for p in pages.PAGES:
        sec = p.get("section", "3")
        path = os.path.join(ROOT, "man", "man" + sec, "%s.%s" % (p["name"], sec))
        data = render(p, sec)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old != data:
            if check:
                stale.append(path)
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(data)
                written += 1
    if check:
        for s in stale:
            print("out of date (run tests/abi/man/gen.py): " + os.path.relpath(s, ROOT))
        sys.exit(1 if stale else 0)
    print("gen.py: %d pages, %d written" % (len(pages.PAGES), written))


if __name__ == "__main__":
    main()
