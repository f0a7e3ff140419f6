#!/usr/bin/python3
"""Lifecycle tests for the Python bindings (examples/python).

usage: test_python.py ctypes|cffi
Environment: B (build dir), DVAL_EMU_PORT (a running emulator, optional),
DVAL_LAYOUT (file from layout.c: C sizes/offsets of the option structs).
Prints PASS/FAIL/SKIP lines and "N passed, N failed, N skipped" last.
"""
import json
import os
import sys
import tempfile
import threading
import time
import traceback
import urllib.request

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))
WHICH = sys.argv[1] if len(sys.argv) > 1 else "ctypes"
d = __import__("dval_" + WHICH)

results = {"passed": 0, "failed": 0, "skipped": 0}


def report(kind, name, why=""):
    results[{"PASS": "passed", "FAIL": "failed", "SKIP": "skipped"}[kind]] += 1
    print("%s %s/%s%s" % (kind, WHICH, name, (": " + why) if why else ""), flush=True)


def test(name, fn, *args):
    try:
        fn(*args)
        report("PASS", name)
    except Skip as s:
        report("SKIP", name, str(s))
    except Exception as e:
        report("FAIL", name, "%s: %s" % (type(e).__name__, e))
        traceback.print_exc(limit=4, file=sys.stdout)


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise AssertionError(what)


# ------------------------------------------------------------ no executor

def t_version():
    check(d.version() == "0.1.0", "version %r" % d.version())


def t_error_classes():
    from dval_errors import STATUSES
    lib_name = (lambda s: d.lib.dval_status_name(s)) if WHICH == "cffi" else \
        (lambda s: d._lib.dval_status_name(s))
    for value, name, cls in STATUSES:
        got = lib_name(value)
        got = d.ffi.string(got).decode() if WHICH == "cffi" else got.decode()
        check(got == name, "status %d is %s in the library, %s in the binding" % (value, got, name))
        check(issubclass(getattr(d, cls), d.DvalError), cls)


def t_bad_executor():
    try:
        d.Client(executor="no-such-executor")
    except d.DvalInvalidArgument as e:
        check(e.status == -3 and e.name == "DVAL_EINVAL", repr(e))
        return
    raise AssertionError("no DvalInvalidArgument")


def t_layout():
    path = os.environ.get("DVAL_LAYOUT")
    if not path or not os.path.exists(path):
        raise Skip("no C layout file (cc unavailable)")
    for line in open(path):
        st, field, off = line.split()
        off = int(off)
        if WHICH == "cffi":
            got = d.ffi.sizeof(st) if field == "sizeof" else d.ffi.offsetof(st, field)
        else:
            cls = {"dval_client_options": d.ClientOptions, "dval_snapshot_spec": d.SnapshotSpec,
                   "dval_sandbox_options": d.SandboxOptions, "dval_exec_options": d.ExecOptions}[st]
            got = d.C.sizeof(cls) if field == "sizeof" else getattr(cls, field).offset
        check(got == off, "%s.%s: C %d, binding %d" % (st, field, off, got))


# ------------------------------------------------------------ executors

def emu_post(port, path, body):
    req = urllib.request.Request("http://127.0.0.1:%d/_emu/%s" % (port, path),
                                 data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).read()


def make_client(executor, tmp):
    if executor == "local":
        return d.Client(executor="local", state_dir=os.path.join(tmp, "state"),
                        request_timeout_ms=30000)
    port = int(os.environ["DVAL_EMU_PORT"])
    emu_post(port, "config", {"transition_ms": 20, "snapshot_build_ms": 50})
    return d.Client(executor="daytona", api_url="http://127.0.0.1:%d/api" % port,
                    api_key="test-key", retry_base_ms=50, retry_cap_ms=200,
                    request_timeout_ms=20000)


UNAVAILABLE = ("DvalUnsupported", "DvalIsolationUnavailable", "DvalNetworkError",
               "DvalExecutorError", "DvalGenericError", "DvalProtocolError", "DvalServerError")


def setup(executor, tmp):
    """Client + snapshot + sandbox, or Skip with the reason."""
    if executor == "daytona" and not os.environ.get("DVAL_EMU_PORT"):
        raise Skip("Daytona emulator not available")
    try:
        c = make_client(executor, tmp)
        logs = []
        snap = c.snapshot_ensure("ffi-py-snap", image="debian:12-slim",
                                 on_build_log=lambda b: logs.append(b))
        name = "ffi-%s-%s-%d" % (WHICH, executor, os.getpid())
        states = []
        sb = c.sandbox_acquire(name, snapshot="ffi-py-snap", labels=["suite=ffi"],
                               release=d.RELEASE_DELETE, create_timeout_ms=60000,
                               on_state=lambda n, st: states.append(st))
    except d.DvalError as e:
        if type(e).__name__ in UNAVAILABLE:
            raise Skip("%s executor not available yet: %s" % (executor, e))
        raise
    return c, snap, sb


def t_lifecycle(c, snap, sb):
    check(snap.name == "ffi-py-snap", "snapshot name %r" % snap.name)
    check(sb.state == 5, "sandbox state %d (want started)" % sb.state)
    check(sb.name.startswith("ffi-"), sb.name)
    out = {1: b"", 2: b""}
    chans = set()

    def on_output(stream, channel, data):
        out[stream] += data
        chans.add(channel)
    with sb.open_session() as s:
        check(s.id.startswith(sb.name + "-"), "session id %r" % s.id)
        code = s.exec("echo hello; echo oops >&2; exit 3", on_output=on_output,
                      channel_prefix="PY_")
        check(code == 3, "exit code %d" % code)
        check(out[1] == b"hello\n", "stdout %r" % out[1])
        check(out[2] == b"oops\n", "stderr %r" % out[2])
        check(chans <= {"PY_COMMAND_EXECUTION_STDOUT", "PY_COMMAND_EXECUTION_STDERR"}, chans)


def t_files(c, snap, sb):
    base = "/sandbox/ffi-%s" % WHICH
    sb.upload_json(base + "/in.json", {"numbers": [1, 2, 3], "text": "h\u00e9"})
    with sb.open_session() as s:
        code = s.exec("cd %s && sed 's/numbers/values/' in.json > out.json" % base)
        check(code == 0, "exit %d" % code)
    doc = sb.download_json(base + "/out.json")
    check(doc == {"values": [1, 2, 3], "text": "h\u00e9"}, "downloaded %r" % doc)
    raw = sb.download(base + "/in.json")
    check(json.loads(raw) == {"numbers": [1, 2, 3], "text": "h\u00e9"}, raw)
    chunks = []
    sb.download_to(base + "/in.json", chunks.append)
    check(b"".join(chunks) == raw, "download_to differs")
    try:
        sb.download_json(base + "/missing.json")
        raise AssertionError("no error for a missing file")
    except d.DvalNotFound as e:
        check(e.status == -5 and e.message, repr(e))


def t_callback_exception(c, snap, sb):
    class Boom(Exception):
        pass
    calls = []

    def on_output(stream, channel, data):
        calls.append(data)
        raise Boom("from the callback")
    with sb.open_session() as s:
        t0 = time.monotonic()
        try:
            s.exec("echo first; sleep 20; echo never", on_output=on_output)
            raise AssertionError("exec returned normally")
        except Boom:
            pass
        check(time.monotonic() - t0 < 15, "the exception did not stop the call")
        check(len(calls) == 1, "callback called %d times after raising" % len(calls))


def t_cancel(c, snap, sb):
    with sb.open_session() as s:
        timer = threading.Timer(0.5, s.cancel)
        timer.start()
        t0 = time.monotonic()
        try:
            s.exec("sleep 30")
            raise AssertionError("exec was not canceled")
        except d.DvalCanceled as e:
            check(e.status == -17, repr(e))
        finally:
            timer.cancel()
        check(time.monotonic() - t0 < 10, "cancel took %.1fs" % (time.monotonic() - t0))


def t_concurrent(c, snap, sb):
    errs = []

    def worker(i):
        try:
            with sb.open_session() as s:
                got = []
                code = s.exec("echo worker-%d" % i, on_output=lambda st, ch, b: got.append(b))
                if code != 0 or b"".join(got) != b"worker-%d\n" % i:
                    errs.append("worker %d: %d %r" % (i, code, got))
        except Exception as e:
            errs.append("worker %d: %r" % (i, e))
    ts = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    check(not errs, "; ".join(errs))


def run_executor(executor):
    names = ["lifecycle", "files", "callback_exception", "cancel", "concurrent"]
    fns = [t_lifecycle, t_files, t_callback_exception, t_cancel, t_concurrent]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            c, snap, sb = setup(executor, tmp)
        except Skip as s:
            for n in names:
                report("SKIP", "%s/%s" % (executor, n), str(s))
            return
        except Exception as e:
            for n in names:
                report("FAIL", "%s/%s" % (executor, n), "setup: %r" % e)
            traceback.print_exc(limit=4, file=sys.stdout)
            return
        try:
            for n, fn in zip(names, fns):
                test("%s/%s" % (executor, n), fn, c, snap, sb)
            test("%s/release" % executor, lambda: sb.release())
            found = [x for x in c.list_sandboxes(["suite=ffi"]) if x[1] == sb.name]
            print("after release: %r" % found)
        finally:
            # free in an order unlike creation: children keep parents alive
            c.close()
            sb.close()
            snap.close()


test("version", t_version)
test("error_classes", t_error_classes)
test("bad_executor", t_bad_executor)
test("layout", t_layout)
for ex in ("local", "daytona"):
    run_executor(ex)
print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"], results["skipped"]))
sys.exit(1 if results["failed"] else 0)
