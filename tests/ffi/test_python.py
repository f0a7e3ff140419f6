#!/usr/bin/python3
"""Tests of the installed Python package `dval` (examples/python).

usage: PYTHON test_python.py ctypes|cffi  (PYTHON: the venv's interpreter the
suite installed the package into; this file never edits sys.path)
Environment: DVAL_LIB (the library under test), DVAL_EMU_PORT (a running
emulator, optional), DVAL_LAYOUT (C sizes/offsets from layout.c).
Prints PASS/FAIL/SKIP lines and "N passed, N failed, N skipped" last.
Every sandbox a test creates is deleted (release=DELETE), and checked gone.
"""
import asyncio
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import traceback
import urllib.request

WHICH = sys.argv[1] if len(sys.argv) > 1 else "ctypes"
path_before = list(sys.path)
import dval  # noqa: E402

dval.use_backend(WHICH)
results = {"passed": 0, "failed": 0, "skipped": 0}


class Skip(Exception):
    pass


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
        traceback.print_exc(limit=5, file=sys.stdout)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def expect_raises(cls, fn, *a, **kw):
    try:
        fn(*a, **kw)
    except cls as e:
        return e
    raise AssertionError("no %s" % cls.__name__)


# ------------------------------------------------------------ no executor

def t_package():
    check(sys.path == path_before, "import dval changed sys.path")
    check(dval.__file__.startswith(sys.prefix), "dval imported from %s, not the venv %s"
          % (dval.__file__, sys.prefix))
    import inspect
    missing = []
    for name in dval.__all__:
        obj = getattr(dval, name)
        items = []
        if inspect.isclass(obj):
            check(obj.__doc__, "%s has no docstring" % name)
            if issubclass(obj, (BaseException, int)):
                continue
            for m, f in vars(obj).items():
                if not m.startswith("_") or m == "__init__":
                    items.append(("%s.%s" % (name, m), f.fget if isinstance(f, property) else f))
        elif callable(obj):
            items.append((name, obj))
        for n, f in items:
            if not callable(f):
                continue
            sig = inspect.signature(f)
            if not f.__doc__ and not n.endswith("__init__"):
                missing.append(n + ": no docstring")
            if sig.return_annotation is inspect.Signature.empty:
                missing.append(n + ": no return type")
            missing += ["%s: parameter %s has no type" % (n, p.name) for p in sig.parameters.values()
                        if p.name != "self" and p.kind != p.VAR_KEYWORD
                        and p.annotation is inspect.Parameter.empty]
    check(not missing, "; ".join(missing))


def t_version():
    check(dval.version() == "1.0.0", "version %r" % dval.version())
    check(dval._loader.get_backend().name == WHICH, "backend")


def t_statuses():
    b = dval._loader.get_backend()
    for st in dval.Status:
        got = b.status_name(st)
        check(got in (st.c_name, "DVAL_UNKNOWN"), "status %d: library %s, binding %s"
              % (st, got, st.c_name))
        check(issubclass(dval.STATUS_CLASSES[st] if st else dval.DvalError, dval.DvalError), st)
    # every code the library knows is known here
    for v in range(-1, -64, -1):
        if b.status_name(v) != "DVAL_UNKNOWN":
            check(v in dval.STATUS_CLASSES, "library status %d unknown to the binding" % v)
    for st in dval.SandboxState:
        check(b.sandbox_state_name(st).upper().replace("-", "_") == st.name,
              "sandbox state %d: %s vs %s" % (st, b.sandbox_state_name(st), st.name))
    for st in dval.SnapshotState:
        check(b.snapshot_state_name(st).upper().replace("-", "_") == st.name,
              "snapshot state %d: %s vs %s" % (st, b.snapshot_state_name(st), st.name))
    check(dval.to_enum(dval.SandboxState, 999) == 999, "unknown state")


def t_bad_executor():
    e = expect_raises(dval.DvalInvalidArgument, dval.Client, "no-such-executor")
    check(e.status == dval.Status.EINVAL and e.name == "DVAL_EINVAL", repr(e))
    check(isinstance(e.status, dval.Status), "status is %r" % type(e.status))


def t_isolation():
    check(dval.ISOLATION_LEVELS == ("session", "sandbox"), dval.ISOLATION_LEVELS)
    e = expect_raises(ValueError, dval.validate, "shell", ".", executor="local",
                      isolation="bogus")
    check("sandbox" in str(e) and "session" in str(e), str(e))


def t_services():
    # the fields reach the library: each mistake is refused by its checks
    # before any sandbox work, with its message
    check(dval.service_names() == ["postgres", "sqlite"], dval.service_names())
    e = expect_raises(dval.DvalInvalidArgument, dval.validate, "shell", ".",
                      executor="local", services=["mongodb"])
    check('unknown service "mongodb"' in str(e), str(e))
    e = expect_raises(dval.DvalInvalidArgument, dval.validate, "shell", ".",
                      executor="local", seeds=["schema.sql"])
    check("seeds need a service" in str(e), str(e))
    e = expect_raises(dval.DvalIOError, dval.Pool, "shell", executor="local",
                      services=["postgres"], seeds=["/nonexistent/seed.sql"])
    check("seed /nonexistent/seed.sql" in str(e), str(e))


def t_layout():
    path = os.environ.get("DVAL_LAYOUT")
    if not path or not os.path.exists(path):
        raise Skip("no C layout file (cc unavailable)")
    b = dval._loader.get_backend()
    for line in open(path):
        st, fld, off = line.split()
        got = b.layout(st, fld)
        check(got == int(off), "%s.%s: C %s, binding %d" % (st, fld, off, got))


# ------------------------------------------------------------ executors

def emu_post(port, path, body):
    req = urllib.request.Request("http://127.0.0.1:%d/_emu/%s" % (port, path),
                                 data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).read()


def make_client(executor, tmp):
    if executor == "local":
        return dval.Client("local", state_dir=os.path.join(tmp, "state"),
                           request_timeout_ms=30000)
    port = int(os.environ["DVAL_EMU_PORT"])
    emu_post(port, "config", {"transition_ms": 20, "snapshot_build_ms": 50})
    return dval.Client("daytona", api_url="http://127.0.0.1:%d/api" % port,
                       api_key="test-key", retry_base_ms=50, retry_cap_ms=200,
                       request_timeout_ms=20000)


UNAVAILABLE = (dval.DvalUnsupported, dval.DvalIsolationUnavailable, dval.DvalNetworkError,
               dval.DvalExecutorError)
LABEL = "suite=ffi-py-%s-%d" % (WHICH, os.getpid())


def setup(executor, tmp):
    if executor == "daytona" and not os.environ.get("DVAL_EMU_PORT"):
        raise Skip("Daytona emulator not available")
    try:
        c = make_client(executor, tmp)
        snap = c.snapshot_ensure("ffi-py-snap", image="debian:12-slim", on_build_log=lambda b: None)
        states = []
        sb = c.sandbox_acquire("ffi-%s-%s-%d" % (WHICH, executor, os.getpid()),
                               snapshot="ffi-py-snap", labels=[LABEL],
                               release=dval.Release.DELETE, create_timeout_ms=60000,
                               on_state=lambda n, st: states.append(st))
    except UNAVAILABLE as e:
        raise Skip("%s executor not available: %s" % (executor, e))
    return c, snap, sb


def t_lifecycle(c, snap, sb, tmp):
    check(snap.name == "ffi-py-snap", "snapshot name %r" % snap.name)
    check(sb.state is dval.SandboxState.STARTED, "sandbox state %r" % sb.state)
    out = {dval.Stream.STDOUT: b"", dval.Stream.STDERR: b""}
    chans = set()

    def on_output(stream, channel, data):
        check(isinstance(stream, dval.Stream), "stream %r" % stream)
        out[stream] += data
        chans.add(channel)
    with sb.open_session() as s:
        check(s.id.startswith(sb.name + "-"), "session id %r" % s.id)
        code = s.exec("echo hello; echo oops >&2; exit 3", on_output=on_output,
                      channel_prefix="PY_")
        check(code == 3, "exit code %d" % code)
        check(out[dval.Stream.STDOUT] == b"hello\n", "stdout %r" % out)
        check(out[dval.Stream.STDERR] == b"oops\n", "stderr %r" % out)
        check(chans <= {"PY_COMMAND_EXECUTION_STDOUT", "PY_COMMAND_EXECUTION_STDERR"}, chans)
        # env: the values are data, never shell text
        got = []
        value = "it's $(echo no) `echo no` \"q\""
        code = s.exec("printf '%s|%s\\n' \"$GREETING\" \"${EMPTY-unset}\"",
                      on_output=lambda st, ch, b: got.append(b),
                      env={"GREETING": value, "EMPTY": ""})
        check(code == 0 and b"".join(got) == (value + "|\n").encode(), got)
        e = expect_raises(dval.DvalInvalidArgument, s.exec, "true", env={"NOT A NAME": "x"})
        check("NAME=value" in str(e), str(e))


def t_files(c, snap, sb, tmp):
    base = "/sandbox/ffi-%s" % WHICH
    sb.upload_json(base + "/in.json", {"numbers": [1, 2, 3], "text": "h\u00e9"})
    with sb.open_session() as s:
        code = s.exec("cd %s && sed 's/numbers/values/' in.json > out.json" % base)
        check(code == 0, "exit %d" % code)
    doc = sb.download_json(base + "/out.json")
    check(doc == {"values": [1, 2, 3], "text": "h\u00e9"}, "downloaded %r" % doc)
    raw = sb.download(base + "/in.json")
    chunks = []
    sb.download_to(base + "/in.json", chunks.append)
    check(b"".join(chunks) == raw, "download_to differs")
    e = expect_raises(dval.DvalNotFound, sb.download_json, base + "/missing.json")
    check(e.status == dval.Status.ENOTFOUND and e.message, repr(e))


def t_callback_exception(c, snap, sb, tmp):
    class Boom(Exception):
        pass
    calls = []

    def on_output(stream, channel, data):
        calls.append(data)
        raise Boom("from the callback")
    with sb.open_session() as s:
        t0 = time.monotonic()
        expect_raises(Boom, s.exec, "echo first; sleep 20; echo never", on_output=on_output)
        check(time.monotonic() - t0 < 15, "the exception did not stop the call")
        check(len(calls) == 1, "callback called %d times after raising" % len(calls))


def t_cancel(c, snap, sb, tmp):
    with sb.open_session() as s:
        timer = threading.Timer(0.5, s.cancel)
        timer.start()
        t0 = time.monotonic()
        try:
            expect_raises(dval.DvalCanceled, s.exec, "sleep 30")
        finally:
            timer.cancel()
        check(time.monotonic() - t0 < 10, "cancel took %.1fs" % (time.monotonic() - t0))


def t_concurrent(c, snap, sb, tmp):
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


# ---- dval.validate / avalidate (shell profile, plain sh programs)

def program(tmp, name, script):
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "run.sh"), "w") as f:
        f.write(script)
    return d


def live(c):
    """Sandboxes of this run whose deletion was not accepted (Daytona renames
    a sandbox DESTROYED_<name>_<ms> when it accepts the delete, and lists it
    until it is gone, in its old state for a moment)."""
    gone = (dval.SandboxState.DESTROYED, dval.SandboxState.DESTROYING)
    return [s for s in c.list_sandboxes([LABEL])
            if s.state not in gone and not s.name.startswith("DESTROYED_")]


def vkw(c, name):
    return dict(client=c, sandbox_name="ffi-py-v-%s-%s-%d" % (WHICH, name, os.getpid()),
                labels=[LABEL], release=dval.Release.DELETE)


def t_validate_ok(c, snap, sb, tmp):
    src = program(tmp, "ok", 'echo "out $DVAL_THREAD_ID"; echo err >&2\n'
                  'printf \'{"answer":42}\' > "$DVAL_RESULTS_DIR/r.json"\n'
                  'printf \'caf\\303\\251\\n\' > "$DVAL_RESULTS_DIR/out.txt"\n'
                  'printf \'a\\000b\\377\' > "$DVAL_RESULTS_DIR/bin.dat"\n')
    seen = []
    r = dval.validate("shell", src, thread_id="t-ok", on_output=lambda *a: seen.append(a),
                      **vkw(c, "ok"))
    check(isinstance(r, dval.ValidationResult), type(r))
    check(r.status is dval.Status.OK and r.ok, "status %r ok %r" % (r.status, r.ok))
    check(r.exit_code == 0, "exit %r" % r.exit_code)
    check(r.results == {"r.json": {"answer": 42}}, "results %r" % r.results)
    check(r.files == {"out.txt": "caf\u00e9\n".encode(), "bin.dat": b"a\0b\xff"},
          "files %r" % r.files)
    check(r.stdout == "out t-ok\n" and r.stderr == "err\n", "output %r %r" % (r.stdout, r.stderr))
    check(r.thread_id == "t-ok" and r.executor == c.executor_name, (r.thread_id, r.executor))
    check({"snapshot", "run", "total"} <= set(r.timings), "timings %r" % r.timings)
    check(any(s == dval.Stream.STDOUT for s, _, _ in seen), "on_output not called: %r" % seen)


def t_validate_exit_and_results(c, snap, sb, tmp):
    src = program(tmp, "fail", "echo before; exit 3\n")
    r = dval.validate("shell", src, allow_missing_results=True, **vkw(c, "exit"))
    check(r.exit_code == 3 and not r.ok and r.status is dval.Status.OK, "%r" % r)
    r = dval.validate("shell", src, **vkw(c, "nores"))
    check(r.status is dval.Status.ERESULTS and r.exit_code == 3, "%r" % r)
    check(r.stdout == "before\n", "stdout %r" % r.stdout)


def t_validate_timeout(c, snap, sb, tmp):
    src = program(tmp, "slow", "echo started; sleep 30\n")
    t0 = time.monotonic()
    e = expect_raises(dval.DvalTimeout, dval.validate, "shell", src, timeout=0.5,
                      **vkw(c, "timeout"))
    check(time.monotonic() - t0 < 15, "timeout took %.1fs" % (time.monotonic() - t0))
    check(e.result is not None and e.result.stdout == "started\n", "partial %r" % e.result)
    check(e.result.exit_code is None, "exit code %r" % e.result.exit_code)


def t_validate_callback_stops(c, snap, sb, tmp):
    class Stop(Exception):
        pass

    def boom(*a):
        raise Stop()
    src = program(tmp, "loud", "echo a; sleep 20; echo b\n")
    t0 = time.monotonic()
    expect_raises(Stop, dval.validate, "shell", src, on_output=boom, **vkw(c, "stop"))
    check(time.monotonic() - t0 < 15, "the exception did not stop the validation")


def t_validate_only_stop_stops(c, snap, sb, tmp):
    # what a print function returns (a count), or True, never stops a
    # validation; dval.STOP does
    src = program(tmp, "chatty", "echo a; sleep 0.3; echo b\n")
    got = []
    r = dval.validate("shell", src, on_output=lambda s, ch, d: got.append(d) or len(d),
                      **vkw(c, "write"))
    check(r.exit_code == 0 and r.stdout == "a\nb\n", "a count stopped it: %r" % r)
    r = dval.validate("shell", src, on_event=lambda ev: True, **vkw(c, "true"))
    check(r.exit_code == 0 and r.stdout == "a\nb\n", "True stopped it: %r" % r)
    slow = program(tmp, "slowstop", "echo a; sleep 20; echo b\n")
    t0 = time.monotonic()
    e = expect_raises(dval.DvalError, dval.validate, "shell", slow,
                      on_output=lambda s, ch, d: dval.STOP, **vkw(c, "stopval"))
    check(time.monotonic() - t0 < 15, "dval.STOP did not stop the validation")
    check(e.status in (dval.Status.EABORTED, dval.Status.ECANCELED), "status %r" % e.status)


def t_avalidate(c, snap, sb, tmp):
    src = program(tmp, "async", 'echo hi\nprintf \'{"a":1}\' > "$DVAL_RESULTS_DIR/a.json"\n')
    lines = []

    async def main():
        loop_thread = threading.get_ident()
        threads = set()

        def on_out(st, ch, d):
            threads.add(threading.get_ident())
            lines.append(d)
        rs = await asyncio.gather(*[dval.avalidate("shell", src, on_output=on_out,
                                                   thread_id="a%d" % i, **vkw(c, "async%d" % i))
                                    for i in range(2)])
        check(threads == {loop_thread}, "on_output ran on %r, loop is %r" % (threads, loop_thread))
        return rs
    rs = asyncio.run(main())
    check(all(r.results == {"a.json": {"a": 1}} for r in rs), "%r" % rs)
    check(lines.count(b"hi\n") == 2, "output delivered on the loop: %r" % lines)


def t_avalidate_cancel(c, snap, sb, tmp):
    # A program that prints: without the cancel token the validation stops
    # at its next output event; with it, at once.
    src = program(tmp, "ticker", 'i=0; while [ $i -lt 200 ]; do echo tick $i; i=$((i+1)); '
                  'sleep 0.1; done\n')
    name = vkw(c, "cancel")["sandbox_name"]

    async def main():
        task = asyncio.ensure_future(dval.avalidate("shell", src, **vkw(c, "cancel")))
        await asyncio.sleep(1.0)
        t0 = time.monotonic()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return time.monotonic() - t0
        raise AssertionError("the task was not cancelled")
    took = asyncio.run(main())
    check(took < 5, "cancellation took %.1fs" % took)
    left = [s for s in live(c) if s.name == name]
    check(not left, "sandbox left after cancel: %r" % left)


def t_avalidate_cancel_silent(c, snap, sb, tmp):
    if not dval.supports_cancel():
        raise Skip("this library has no cancel token: a silent program runs to its end")
    src = program(tmp, "silent", "sleep 30\n")

    async def main():
        task = asyncio.ensure_future(dval.avalidate("shell", src, **vkw(c, "silent")))
        await asyncio.sleep(1.0)
        t0 = time.monotonic()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return time.monotonic() - t0
        raise AssertionError("the task was not cancelled")
    took = asyncio.run(main())
    check(took < 2, "cancellation of a silent program took %.1fs" % took)


SHELL_SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                            "examples", "validation", "shell")


def check_sample(r, tid):
    """A result of examples/validation/shell run as thread ``tid``."""
    check(r.ok and r.exit_code == 0, "%s: status %r exit %r" % (tid, r.status, r.exit_code))
    check(r.results == {"results.json": {"sum_1_to_100": 5050, "thread_id": tid,
                                         "passed": True}}, "%s: results %r" % (tid, r.results))
    check(r.stdout == "sum 1..100 = 5050\n", "%s: stdout %r" % (tid, r.stdout))
    check(r.thread_id == tid, "%s: thread_id %r" % (tid, r.thread_id))


def t_validate_isolation_sandbox(c, snap, sb, tmp):
    # the summary's "sandbox" names the profile's sandbox: the one used is
    # in the detail of the sandbox phase's end ("<name> (<state>)")
    names = []

    def on_event(ev):
        if ev.type == dval.EventType.PHASE and ev.phase == "sandbox" and ev.done:
            names.append((ev.detail or "").split(" ")[0])
    for i in range(2):
        tid = "iso-%s-%d" % (WHICH, i)
        r = dval.validate("shell", SHELL_SAMPLE, client=c, thread_id=tid, isolation="sandbox",
                          labels=[LABEL], on_event=on_event)
        check_sample(r, tid)
    check(len(names) == 2 and len(set(names)) == 2 and
          all(n.startswith("shell-sandbox-") for n in names), "own sandboxes %r" % names)
    left = [s.name for s in live(c) if s.name in names]
    check(not left, "isolation=sandbox left %r" % left)


def t_pool_concurrent(c, snap, sb, tmp):
    name = "ffi-py-pool-%s-%d" % (WHICH, os.getpid())
    results, errs = {}, []
    threads_seen = set()

    def worker(pool, i):
        tid = "pool-%s-%d" % (WHICH, i)
        try:
            r = pool.validate(SHELL_SAMPLE, thread_id=tid, timeout=60,
                              on_output=lambda *a: threads_seen.add(
                                  (i, threading.get_ident())))
            results[tid] = (r, threading.get_ident())
        except Exception as e:
            errs.append("%s: %r" % (tid, e))
    with dval.Pool("shell", client=c, name=name, max_sandboxes=2, labels=[LABEL],
                   release=dval.Release.DELETE) as pool:
        check(pool.profile == "shell", pool.profile)
        ts = [threading.Thread(target=worker, args=(pool, i)) for i in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(120)
        check(not errs, "; ".join(errs))
        check(len(results) == 4, "results of %r" % sorted(results))
        st = pool.stats()
        check((st.max_sandboxes, st.completed, st.failed, st.running, st.waiting)
              == (2, 4, 0, 0, 0), "stats %r" % (st,))
        for tid, (r, _) in results.items():
            check_sample(r, tid)
        used = {r.sandbox for r, _ in results.values()}
        check(used <= {name + "-0", name + "-1"}, "pool sandboxes %r" % used)
        # callbacks run on the calling thread
        check({(int(t.split("-")[-1]), th) for t, (_, th) in results.items()} >= threads_seen,
              "on_output ran on another thread")
        check(any(s.name.startswith(name) for s in live(c)), "pool sandboxes not listed")
    expect_raises(ValueError, pool.validate, SHELL_SAMPLE)
    left = [s.name for s in live(c) if s.name.startswith(name)]
    check(not left, "pool left sandboxes after close (release DELETE): %r" % left)


def t_pool_busy_and_cancel(c, snap, sb, tmp):
    # one sandbox, one caller allowed to wait: a third caller gets DvalBusy
    # at once, and a waiting caller whose token fires leaves the queue
    name = "ffi-py-poolq-%s-%d" % (WHICH, os.getpid())
    slow = program(tmp, "poolslow", "echo go; sleep 3\n")
    started = threading.Event()
    first = {}

    def run_first(pool):
        try:
            first["r"] = pool.validate(slow, on_output=lambda *a: started.set(),
                                       allow_missing_results=True)
        except Exception as e:
            first["e"] = e
    with dval.Pool("shell", client=c, name=name, max_sandboxes=1, max_queue=1,
                   labels=[LABEL], release=dval.Release.DELETE) as pool:
        t = threading.Thread(target=run_first, args=(pool,))
        t.start()
        check(started.wait(30), "the first validation did not start")
        waiting = {}
        token = dval.CancelToken() if dval.supports_cancel() else None

        def run_waiting():
            try:
                pool.validate(SHELL_SAMPLE, cancel=token)
            except Exception as e:
                waiting["e"] = e
        w = threading.Thread(target=run_waiting)
        w.start()
        for _ in range(3000):   # w is queued behind the running validation
            if pool.stats().waiting == 1:
                break
            time.sleep(0.01)
        check(pool.stats().running == 1, "stats %r" % (pool.stats(),))
        t0 = time.monotonic()
        e = expect_raises(dval.DvalBusy, pool.validate, SHELL_SAMPLE)
        check(time.monotonic() - t0 < 1 and "queue" in str(e), "busy: %r after %.1fs"
              % (e, time.monotonic() - t0))
        if token is not None:
            token.fire()
        w.join(30)
        t.join(30)
        if token is not None:
            check(isinstance(waiting.get("e"), dval.DvalCanceled), "waiting caller: %r" % waiting)
            token.close()
        check("r" in first and first["r"].exit_code == 0 and first["r"].stdout == "go\n",
              "first: %r" % first)
        st = pool.stats()
        want = (1, 1, 1) if token is not None else (1, 0, 2)
        check((st.refused, st.canceled_waiting, st.completed) == want, "stats %r" % (st,))
    expect_raises(ValueError, pool.stats)
    left = [s.name for s in live(c) if s.name.startswith(name)]
    check(not left, "pool left %r" % left)


def t_validate_dotnet(c, snap, sb, tmp):
    """A C# program through the binding, like any other profile's."""
    if c.executor_name != "local":
        raise Skip("the Daytona emulator runs no .NET SDK")
    if not shutil.which("dotnet"):
        raise Skip("no .NET SDK on this host")
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "..", "..", "examples", "validation", "dotnet")
    r = dval.validate("dotnet", src, client=c, thread_id="t-cs", release=dval.Release.DELETE,
                      labels=[LABEL])
    check(r.status is dval.Status.OK and r.ok and r.exit_code == 0, "%r" % r)
    check(r.results["results.json"]["fibonacci_50"] == 12586269025, "results %r" % r.results)
    check(r.stdout == "fibonacci(50) = 12586269025\n", "stdout %r" % r.stdout)


def t_profile_load(c, snap, sb, tmp):
    """A profile file: its mistakes raise naming it; on the local executor
    a validation runs over it (the emulator runs no snapshot build step,
    so the carried file would not be there)."""
    d = os.path.join(tmp, "pfile")
    os.makedirs(os.path.join(d, "src"), exist_ok=True)
    with open(os.path.join(d, "bad.json"), "w") as f:
        f.write('{"name": "py-bad", "image": "debian:12-slim", "run_comand": "true"}')
    e = expect_raises(dval.DvalError, dval.profile_load, os.path.join(d, "bad.json"))
    check(e.status is dval.Status.EINVAL and 'bad.json: unknown field "run_comand"' in str(e),
          "%r %s" % (e.status, e))
    if c.executor_name != "local":
        return
    with open(os.path.join(d, "hi.sh"), "w") as f:
        f.write('echo "{\\"hi\\": \\"%s\\"}"\n' % WHICH)
    with open(os.path.join(d, "p.json"), "w") as f:
        json.dump({"name": "py-pfile-" + WHICH, "image": "debian:12-slim",
                   "files": [{"from": "hi.sh", "to": "/opt/py/hi.sh", "mode": "0755"}],
                   "run_command": "/opt/py/hi.sh > $DVAL_RESULTS_DIR/r.json"}, f)
    name = dval.profile_load(os.path.join(d, "p.json"))
    check(name == "py-pfile-" + WHICH and name in dval.profile_names(), name)
    r = dval.validate(name, os.path.join(d, "src"), client=c, labels=[LABEL],
                      release=dval.Release.DELETE)
    check(r.ok and r.results["r.json"] == {"hi": WHICH}, "%r" % r)


def t_verdicts_and_limits(c, snap, sb, tmp):
    """The verdict in the result; limits of the program's own processes and
    an expected result; an executor that cannot enforce limits refuses."""
    ok = program(tmp, "expect", 'echo hello\n')
    r = dval.validate("shell", ok, allow_missing_results=True, expected="hello\n",
                      **vkw(c, "expect"))
    check(r.verdict == "passed" and r.phases.get("run", {}).get("exit_code") == 0,
          "%r %r" % (r.verdict, r.verdict_detail))
    r = dval.validate("shell", ok, allow_missing_results=True, expected="bye\n",
                      **vkw(c, "expect2"))
    check(r.verdict == "wrong_results", "%r %r" % (r.verdict, r.verdict_detail))
    hog = program(tmp, "hog", "dd if=/dev/zero of=/dev/null bs=100M count=2 2>/dev/null\n")
    if c.executor_name != "local":
        expect_raises(dval.DvalUnsupported, dval.validate, "shell", hog, memory_mib=64,
                      allow_missing_results=True, **vkw(c, "hog"))
        return
    r = dval.validate("shell", hog, memory_mib=64, allow_missing_results=True,
                      **vkw(c, "hog"))
    check(r.verdict == "memory_limit", "%r %r" % (r.verdict, r.verdict_detail))
    check((r.phases["run"].get("usage") or {}).get("oom_kills", 0) >= 1, "%r" % r.phases)


def t_differential(c, snap, sb, tmp):
    """An original and its translation validated at once and judged by
    dval_differential: equivalent, differs (with the path), a side that
    does not pass gives its verdict."""
    orig = program(tmp, "d-orig", 'printf \'{"n":1,"rows":[1,2],"at":"a"}\' '
                   '> "$DVAL_RESULTS_DIR/r.json"\n')
    same = program(tmp, "d-same", 'printf \'{"rows":[1,2],"at":"b","n":1.0000001}\' '
                   '> "$DVAL_RESULTS_DIR/r.json"\n')
    other = program(tmp, "d-other", 'printf \'{"n":1,"rows":[1,3],"at":"a"}\' '
                    '> "$DVAL_RESULTS_DIR/r.json"\n')
    broken = program(tmp, "d-broken", 'echo boom >&2; exit 3\n')
    kw = vkw(c, "diff")
    d = dval.validate_pair(("shell", orig), ("shell", same), ignore=["$..at"],
                           abs_tolerance=1e-3, **kw)
    check(d.equivalent and d.verdict == "equivalent" and d.differences == 0,
          "%r %r" % (d.verdict, d.verdict_detail))
    check(d.original.ok and d.translation.ok, "%r %r" % (d.original, d.translation))
    d = dval.validate_pair(("shell", orig), ("shell", other), **kw)
    check(d.outcome == "differs" and d.differences == 1 and
          d.diff[0]["path"] == '$["r.json"].rows[1]', "%r %r" % (d.verdict, d.diff))
    d = dval.validate_pair(("shell", orig), ("shell", broken), **kw)
    check(d.outcome == "translation_failed" and d.verdict == "runtime_error" and
          d.failed_side == "translation", "%r %r" % (d.verdict, d.verdict_detail))
    j = dval.differential(d.original.summary, d.original.summary)
    check(j.equivalent, "%r" % j)
    expect_raises(dval.DvalInvalidArgument, dval.differential, "not json", d.original)


def t_inputs(c, snap, sb, tmp):
    """args and stdin reach the program exactly, on either executor: words
    with spaces, quotes and "$", bytes with a NUL and no last newline (the
    program ends its output with one: Daytona's log appends a missing one)."""
    src = program(tmp, "inputs", 'for a in "$@"; do printf \'[%s]\' "$a"; done; echo\n'
                  "od -An -v -tx1 | tr -d ' \\n'; echo\n")
    r = dval.validate("shell", src, allow_missing_results=True,
                      args=["a b", "it's", '"q"', "$HOME", ""], stdin=b"hi\0\nx",
                      **vkw(c, "inputs"))
    check(r.ok and r.stdout == "[a b][it's][\"q\"][$HOME][]\n6869000a78\n",
          "%r %r" % (r.stdout, r.stderr))
    r = dval.validate("shell", src, allow_missing_results=True, **vkw(c, "noinputs"))
    check(r.ok and r.stdout == "\n\n", "%r %r" % (r.stdout, r.stderr))
    r = dval.validate("shell", program(tmp, "bound", 'head -c 5000 /dev/zero | tr "\\\\0" a '
                      '> "$DVAL_RESULTS_DIR/big.txt"; echo "{}" > "$DVAL_RESULTS_DIR/r.json"\n'),
                      results_bytes=1000, **vkw(c, "bound"))
    check(r.verdict == "results_invalid", "results_bytes=1000: %r %r" % (r.verdict,
                                                                        r.verdict_detail))
    name = "ffi-py-inpool-%s-%d" % (WHICH, os.getpid())
    with dval.Pool("shell", client=c, name=name, max_sandboxes=1, labels=[LABEL],
                   release=dval.Release.DELETE) as pool:
        r = pool.validate(src, allow_missing_results=True, args=["x y"], stdin=b"z")
        check(r.ok and r.stdout == "[x y]\n7a\n", "pool: %r %r" % (r.stdout, r.stderr))


TESTS = [t_lifecycle, t_files, t_callback_exception, t_cancel, t_concurrent, t_validate_ok,
         t_validate_exit_and_results, t_validate_timeout, t_validate_callback_stops,
         t_validate_only_stop_stops,
         t_avalidate, t_avalidate_cancel, t_avalidate_cancel_silent,
         t_validate_isolation_sandbox, t_pool_concurrent, t_pool_busy_and_cancel,
         t_validate_dotnet, t_profile_load, t_verdicts_and_limits, t_differential,
         t_inputs]


def run_executor(executor):
    names = [executor + "/" + f.__name__[2:] for f in TESTS]
    # a snapshot's shared services keep a tmpfs mounted in its state
    # directory until the snapshot is deleted: the suite (tests/ffi/
    # common.sh, TMPDIR) unmounts it and removes what is left
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        try:
            c, snap, sb = setup(executor, tmp)
        except Skip as s:
            for n in names:
                report("SKIP", n, str(s))
            return
        except Exception as e:
            for n in names:
                report("FAIL", n, "setup: %r" % e)
            traceback.print_exc(limit=5, file=sys.stdout)
            return
        try:
            for n, fn in zip(names, TESTS):
                test(n, fn, c, snap, sb, tmp)

            def released():
                name = sb.name
                with sb:   # leaving `with` applies release=DELETE
                    pass
                left = [(s.name, s.state) for s in live(c)]
                check(not left, "sandboxes left: %r (looked for %s)" % (left, name))
            test(executor + "/with_releases_and_nothing_left", released)
        finally:
            # free in an order unlike creation: children keep parents alive
            c.close()
            sb.close()
            snap.close()


def t_library_not_found():
    # run in a child: the library is loaded once per process
    import subprocess
    env = dict(os.environ, DVAL_LIB="/nonexistent/libdaytona-validate.so.1")
    p = subprocess.run([sys.executable, "-c", "import dval\ntry:\n dval.version()\n"
                        "except dval.LibraryNotFoundError as e:\n print('LNF', e)\n"],
                       env=env, capture_output=True, text=True, timeout=30)
    check(p.stdout.startswith("LNF") and "DVAL_LIB" in p.stdout, "got %r %r" % (p.stdout, p.stderr))


test("package", t_package)
test("version", t_version)
test("statuses_and_states", t_statuses)
test("bad_executor", t_bad_executor)
test("isolation_levels", t_isolation)
test("layout", t_layout)
test("services", t_services)
test("library_not_found_says_how", t_library_not_found)
for ex in ("local", "daytona"):
    run_executor(ex)
print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"], results["skipped"]))
sys.exit(1 if results["failed"] else 0)
