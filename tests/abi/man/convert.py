#!/usr/bin/python3
"""Converts man pages written in the old format (page(...) calls in
tests/abi/man/pages.py) into page sources man/src/<name>.<section>.page.

Only pages without a source yet are written (--force: all). Afterwards
delete the converted page(...) calls from pages.py and run gen.py.

Usage: convert.py [--force] [pages-module-path]
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import shared  # noqa: E402

TITLES = (("desc", "DESCRIPTION"), ("ret", "RETURN VALUE"),
          ("errors", "ERRORS"), ("own", "OWNERSHIP"),
          ("thread", "THREAD SAFETY"))


def load(path):
    spec = importlib.util.spec_from_file_location("legacy_pages", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.PAGES


def thread_class(text):
    """(class, rest) when text starts with a shared class text."""
    for name, body in sorted(shared.THREAD.items(), key=lambda kv: -len(kv[1])):
        if text.startswith(body):
            return name, text[len(body):].strip()
    return None, text


def error_lines(errors):
    out, i = [], 0
    tables = sorted(shared.ERRORS.items(), key=lambda kv: -len(kv[1]))
    while i < len(errors):
        for name, tab in tables:
            if tab and errors[i:i + len(tab)] == list(tab):
                out.append("@errors " + name)
                i += len(tab)
                break
        else:
            code, why = errors[i]
            if (code, why) != shared.E_REENTRANT:  # gen.py adds it
                first, *rest = why.strip().split("\n")
                out.append("= %s :: %s" % (code, first.strip()))
                out.extend("    " + r.strip() for r in rest)
            i += 1
    return out


def source(p):
    out = ["name: " + p["name"]]
    if "section" in p:
        out.append("section: " + p["section"])
    for key in ("names", "types", "protos"):
        if key in p:
            out.append("%s: %s" % (key, ", ".join(p[key])))
    out.append("summary: " + p["summary"])
    if "since" in p:
        out.append("since: " + p["since"])
    out.append("see: " + ", ".join(p.get("see", ["dval(7)"])))
    cls, rest = thread_class(p["thread"]) if "thread" in p else (None, None)
    if cls:
        out.append("thread: " + cls)
    for key, title in TITLES:
        if key not in p:
            continue
        if key == "errors":
            body = error_lines(p[key])
            if not body and not p[key]:
                body = ["(none)"]
            body = "\n".join(body)
        elif key == "thread":
            body = rest
            if not body:
                continue
        else:
            body = p[key].strip("\n")
        out += ["", "## " + title, body]
    for title, body in p.get("extra", []):
        out += ["", "## " + title, body.strip("\n")]
    return "\n".join(out) + "\n"


def main():
    force = "--force" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--force"]
    path = args[0] if args else os.path.join(HERE, "pages.py")
    n = 0
    for p in load(path):
        dst = os.path.join(ROOT, "man", "src",
                           "%s.%s.page" % (p["name"], p.get("section", "3")))
        if os.path.exists(dst) and not force:
            continue
        with open(dst, "w", encoding="utf-8") as f:
            f.write(source(p))
        n += 1
    print("convert.py: %d page sources written" % n)


if __name__ == "__main__":
    main()
