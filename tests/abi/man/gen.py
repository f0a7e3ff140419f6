#!/usr/bin/python3
"""Generates man/man3/*.3 and man/man7/dval.7 from the page sources
man/src/<name>.<section>.page (one file per page).

What a page can get wrong is not written in the sources but taken from the
code: SYNOPSIS blocks are copied verbatim from include/dval.h (prototypes
and the types a page lists); the THREAD SAFETY text of a class ("thread:
handle") comes from shared.py; DVAL_EREENTRANT under ERRORS and the list of
guarded entry points come from the guard calls in lib/*.c (facts.py); the
status table of dval_errors(3) from enum dval_status and
man/src/status.table; EXAMPLES from man/examples/<name>.c, which make
man-examples compiles and links. --check also verifies the sources against
the code (see check_page).

A page source: "key: value" lines (name, section, names, types, protos,
summary, since, see, thread, example), then sections "## TITLE" (DESCRIPTION,
RETURN VALUE, ERRORS, OWNERSHIP, THREAD SAFETY, or any other title, kept in
order after THREAD SAFETY). An ERRORS section holds "= CODE :: text" entries
(continuation lines indented), "@errors NAME" (a shared table of shared.py)
or "(none)". In DESCRIPTION "@status-table" and "@guarded-list" expand to
the generated lists.

Markup in text: blank line = new paragraph; "- " = bullet item;
"= TAG :: text" = tagged paragraph; @word = bold (function/constant name);
<<arg>> = italic (parameter); a paragraph indented by two spaces is shown
literally. Everything else is escaped for roff.

Usage: gen.py [--check]   (--check: exit 1 when a page is out of date or
contradicts the code)
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import facts  # noqa: E402
import shared  # noqa: E402

DATE = "2026-12-01"
SOURCE = "libdaytona-validate 1.0.0"
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
    if p.get("_example"):
        out += ['.SH "EXAMPLES"', ".EX"]
        for l in p["_example"]:
            l = l.replace("\\", "\\e")
            out.append("\\&" + l if l.startswith((".", "'")) else l)
        out.append(".EE")
    out += [".SH SINCE", "libdaytona-validate %s." % p.get("since", "1.0.0")]
    out += [".SH \"SEE ALSO\""] + see_also(p.get("see", ["dval(7)"]))
    return "\n".join(out) + "\n"


# ------------------------------------------------------------ page sources

LISTS = ("names", "types", "protos", "see")
SECTIONS = {"DESCRIPTION": "desc", "RETURN VALUE": "ret", "ERRORS": "errors",
            "OWNERSHIP": "own", "THREAD SAFETY": "thread"}


def parse_errors(body, where):
    out = []
    for l in body.strip("\n").split("\n"):
        if l.strip() == "(none)":
            continue
        if l.startswith("@errors "):
            name = l.split(None, 1)[1].strip()
            if name not in shared.ERRORS:
                raise SystemExit("%s: unknown error table %s" % (where, name))
            out += list(shared.ERRORS[name])
        elif l.startswith("= "):
            code, _, why = l[2:].partition("::")
            out.append((code.strip(), why.strip()))
        elif l.startswith("    ") and out:
            out[-1] = (out[-1][0], out[-1][1] + "\n" + l.strip())
        elif l.strip():
            raise SystemExit("%s: bad ERRORS line: %s" % (where, l))
    return out


def parse(path):
    p, title, body = {"extra": []}, None, []
    src = open(path, encoding="utf-8").read()

    def flush():
        if title is None:
            return
        text = "\n".join(body).strip("\n")
        key = SECTIONS.get(title)
        if key == "errors":
            p["errors"] = parse_errors(text, path)
        elif key == "thread":
            p["thread_more"] = text
        elif key:
            p[key] = text
        else:
            p["extra"].append((title, text))

    for l in src.split("\n"):
        if l.startswith("## "):
            flush()
            title, body = l[3:].strip(), []
        elif title is None:
            if l.strip():
                k, _, v = l.partition(":")
                k, v = k.strip(), v.strip()
                if k == "thread":
                    k = "thread_class"
                p[k] = [x.strip() for x in v.split(",") if x.strip()] if k in LISTS else v
        else:
            body.append(l)
    flush()
    return p


def status_table():
    codes = re.findall(r"^\s*(DVAL_[A-Z]+)\s*=\s*(-?\d+),?\s*/\*\s*(.*?)\s*\*/", HEADER, re.M)
    codes = [("DVAL_OK", "0")] + [(n, v) for n, v, _ in codes if n != "DVAL_OK" and int(v) < 0]
    text = {}
    for l in open(os.path.join(ROOT, "man", "src", "status.table"), encoding="utf-8"):
        if l.strip() and not l.startswith("#"):
            n, _, t = l.partition("::")
            text[n.strip()] = t.strip()
    missing = [n for n, _ in codes if n not in text]
    if missing:
        raise SystemExit("man/src/status.table lacks " + ", ".join(missing))
    return "\n".join("= %s (%s) :: %s" % (n, v, text[n]) for n, v in codes)


def guarded_list(guarded):
    return ", ".join("@" + n for n in sorted(guarded)) + "."


def example(name):
    """The lines of man/examples/<name>.c, shown whole under EXAMPLES."""
    path = os.path.join(ROOT, "man", "examples", name + ".c")
    return open(path, encoding="utf-8").read().rstrip("\n").split("\n")


def prepare(p, guarded):
    """Fills in what comes from the code rather than from the source."""
    cls, more = p.pop("thread_class", None), p.pop("thread_more", None)
    fns = p.get("protos", [p["name"]])
    if cls:
        if cls not in shared.THREAD:
            raise SystemExit("%s: unknown thread class %s" % (p["_src"], cls))
        g = {f in guarded for f in fns}
        if len(g) > 1:
            raise SystemExit("%s: the page's functions differ in the reentrancy guard"
                             % p["_src"])
        r = shared.REENTRANCY_GUARDED if True in g else shared.REENTRANCY_UNGUARDED
        p["thread"] = shared.THREAD[cls].replace("{reentrancy}", r) + \
            (" " + more if more else "")
    elif more:
        p["thread"] = more
    p["_class"] = cls
    if p.get("desc"):
        if "@status-table" in p["desc"]:
            p["desc"] = p["desc"].replace("@status-table", status_table())
        p["desc"] = p["desc"].replace("@guarded-list", guarded_list(guarded))
    if "errors" in p and any(f in guarded for f in fns) and \
            not any(e[0] == "DVAL_EREENTRANT" for e in p["errors"]):
        p["errors"] = p["errors"] + [shared.E_REENTRANT]
    if p.get("example"):
        p["_example"] = example(p["example"])
    return p


def load(guarded):
    pages = []
    for path in sorted(glob.glob(os.path.join(ROOT, "man", "src", "*.page"))):
        p = parse(path)
        p["_src"] = os.path.relpath(path, ROOT)
        pages.append(prepare(p, guarded))
    return pages


UNGUARDED_CLAIMS = ("not detected", "no reentrancy guard", "is not guarded")


def check_page(p, guarded, codes):
    """What a page says that the code must bear out; returns the problems."""
    bad = []
    fns = p.get("protos", [p["name"]]) if p.get("section", "3") == "3" else []
    enum = set(re.findall(r"^\s*(DVAL_[A-Z]+)\s*=", HEADER, re.M))
    listed = [e[0] for e in p.get("errors", [])]
    for code in listed:
        if code.startswith("DVAL_") and code not in enum:
            bad.append("ERRORS lists %s, which enum dval_status lacks" % code)
    for f in fns:
        if f not in codes:
            continue  # an overview page's prototypes
        if "errors" in p:
            for code in sorted(codes[f] - set(listed)):
                bad.append("%s returns %s, which ERRORS does not list" % (f, code))
        if "DVAL_EREENTRANT" in listed and f not in guarded and \
                "DVAL_EREENTRANT" not in codes[f]:
            bad.append("ERRORS lists DVAL_EREENTRANT but %s checks no guard" % f)
        text = " ".join(str(p.get(k, "")) for k in ("desc", "thread")).lower()
        text = re.sub(r"\s+", " ", text)
        if f in guarded:
            for claim in UNGUARDED_CLAIMS:
                if claim in text:
                    bad.append("says %r, but %s checks the reentrancy guard" % (claim, f))
    if p.get("section", "3") == "3" and not p.get("example"):
        bad.append("no EXAMPLES (example: NAME, for man/examples/NAME.c)")
    return ["%s: %s" % (p["_src"], b) for b in bad]


def main():
    check = "--check" in sys.argv
    stale = []
    written = 0
    import pages as legacy
    if legacy.PAGES:
        print("pages.py holds pages in the old format: run tests/abi/man/convert.py, "
              "then delete them from pages.py")
        sys.exit(1)
    guarded, codes = facts.scan()
    pages = load(guarded)
    for p in pages:
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
        problems = [b for p in pages for b in check_page(p, guarded, codes)]
        for b in problems:
            print(b)
        if problems:
            sys.exit(1)
        for s in stale:
            print("out of date (run tests/abi/man/gen.py): " + os.path.relpath(s, ROOT))
        sys.exit(1 if stale else 0)
    print("gen.py: %d pages, %d written" % (len(pages), written))


if __name__ == "__main__":
    main()
