#!/usr/bin/python3
"""Every program the tests run on the host must come from a package that
tests/deps.sh installs or that a minimal Debian 12 (Priority: required and apt,
plus build-essential and git) has, with their dependencies. A test that
calls e.g. `pgrep` passes on a developer's machine that happens to have
procps and fails on a fresh one: this check finds it without that machine.

Programs are found by a scan of the host-side test code: command
positions in shell scripts, the first word of subprocess calls in Python,
and system()/popen()/exec*p() in C. Words that are not programs on this
machine (shell functions, builtins, variables) are skipped."""
import os, re, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# a minimal root (debootstrap --variant=minbase) is Priority: required plus apt
BASE = ["apt", "build-essential", "git"]


def sh(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True).stdout


def deps_packages():
    text = open(os.path.join(ROOT, "tests/deps.sh")).read()
    m = re.search(r"pkgs=\((.*?)\)", text, re.S)
    return m.group(1).split() if m else []


def closure(pkgs):
    out = sh("apt-cache", "depends", "--recurse", "--installed", "--no-recommends",
             "--no-suggests", "--no-conflicts", "--no-breaks", "--no-replaces",
             "--no-enhances", *pkgs)
    seen = set(pkgs)
    for line in out.splitlines():
        line = line.strip()
        if line.startswith(("Depends:", "PreDepends:")):
            seen.add(line.split(":", 1)[1].strip().strip("<>").split(":")[0])
        elif line and not line.startswith(("|", "<")) and ":" not in line:
            seen.add(line)
    return seen


def allowed_packages():
    required = [l.split()[0] for l in sh("dpkg-query", "-W", "-f",
                "${Package} ${Priority}\n").splitlines() if l.endswith(" required")]
    return closure(required + BASE + deps_packages())


SH_CMD = re.compile(r"(?:^|[|;&(`]|\$\(|\bthen\b|\bdo\b|\belse\b|\bexec\b|!|"
                    r"\btimeout\s+(?:-\S+\s+)*\S+|\bsudo\b|\benv\b(?:\s+\w+=\S*)*)"
                    r"\s*([A-Za-z][\w.+-]*)(?=\s|$|;|\))")
PY_CMD = re.compile(r"(?:subprocess\.\w+|Popen|check_output|check_call|run)\(\s*\[\s*['\"]([\w./+-]+)['\"]")
C_CMD = re.compile(r"\b(?:system|popen|execlp|execvp)\(\s*\"([\w./+-]+)")


def candidates(path):
    text = open(path, errors="replace").read()
    ext = os.path.splitext(path)[1]
    first = text.split("\n", 1)[0]
    if ext == ".py":
        pats = [PY_CMD]
    elif ext == ".c":
        pats = [C_CMD]
    elif ext == ".sh" or "sh" in first and first.startswith("#!"):
        pats = [SH_CMD]
    else:
        return
    for no, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0] if ext != ".c" else line
        for pat in pats:
            for m in pat.finditer(code):
                yield m.group(1).rsplit("/", 1)[-1], no


def package_of(prog):
    path = shutil.which(prog)
    if not path:
        return None
    real = os.path.realpath(path)
    for p in {path, real, path.replace("/usr/bin/", "/bin/"), real.replace("/usr/bin/", "/bin/"),
              path.replace("/usr/sbin/", "/sbin/")}:
        for line in sh("dpkg", "-S", p).splitlines():
            if not line.startswith("diversion"):
                return line.split(":")[0].split(",")[0].strip()
    return "?"


def test_files():
    for top in ("tests", ".ci", "examples/validation"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            if "node_modules" in d or "/corpus" in d:
                continue
            for f in files:
                yield os.path.join(d, f)


def main():
    allowed = allowed_packages()
    builtins = set(sh("bash", "-c", "compgen -b; compgen -k").split())
    seen, bad = {}, []
    for path in test_files():
        for prog, no in candidates(path):
            if prog in builtins or prog in seen and seen[prog] is None:
                continue
            if prog not in seen:
                seen[prog] = package_of(prog)
            pkg = seen[prog]
            if pkg and pkg != "?" and pkg not in allowed:
                bad.append(f"{os.path.relpath(path, ROOT)}:{no}: {prog} (package {pkg})")
    progs = sorted(p for p, k in seen.items() if k)
    print(f"checked {len(progs)} programs used by the tests against {len(allowed)} packages")
    for b in bad:
        print("FAIL not installed by tests/deps.sh nor in a minimal Debian 12:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
