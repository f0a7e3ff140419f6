#!/usr/bin/env python3
"""A tour of the dval package, from one call to the whole lifecycle.

Run it on the local executor (no account needed) against the shell sample:

    python3 example.py --state-dir /tmp/dval-tour examples/validation/shell

Everything it creates is deleted before it exits.
"""
import argparse
import asyncio
import sys

import dval


def step(title: str) -> None:
    print("\n== " + title)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source_dir", help="a folder with run.sh (the shell profile)")
    ap.add_argument("--state-dir", help="local executor state (default: ~/.local/state)")
    args = ap.parse_args()

    # 1. One client per process is enough: it is thread-safe and keeps its
    #    connections. Without arguments it picks Daytona when DAYTONA_API_KEY
    #    is set, else the local executor; here we ask for local explicitly.
    step("1. a client")
    client = dval.Client("local", state_dir=args.state_dir)
    print("library", dval.version(), "executor", client.executor_name,
          "backend", client.backend, "profiles", dval.profile_names())

    # 2. The one-call form. The profile ("shell") says which snapshot and
    #    sandbox to use and how to run the folder (`sh run.sh`). Output
    #    streams live to on_output while the program runs.
    #    release=DELETE removes the sandbox afterwards; the default, KEEP,
    #    leaves it running after this program ends so the next run is fast.
    step("2. dval.validate()")

    def show(stream: dval.Stream, channel: str, data: bytes) -> None:
        print("  [%s] %s" % (stream.name.lower(), data.decode(errors="replace")), end="")

    r = dval.validate("shell", args.source_dir, client=client, on_output=show,
                      release=dval.Release.DELETE, timeout=60)
    print("exit code", r.exit_code, "status", r.status.name, "ok", r.ok)
    print("results", r.results)
    print("timings (ms)", r.timings)

    # 3. Failures are exceptions, one class per status; what was collected
    #    before the failure is in e.result. A program's non-zero exit code
    #    is not a failure of the call: it is r.exit_code.
    step("3. a timeout is a DvalTimeout")
    try:
        dval.validate("shell", args.source_dir, client=client, timeout=0.3,
                      run_command="echo working; sleep 10", release=dval.Release.DELETE)
    except dval.DvalTimeout as e:
        print("timed out:", e.message, "| output so far:", e.result.stdout.strip())

    # 4. asyncio: avalidate runs the blocking call in a worker thread;
    #    cancelling the task cancels the validation. Each gets its own
    #    sandbox here, because each deletes its sandbox when it ends.
    step("4. two validations at once with asyncio")

    async def both() -> None:
        rs = await asyncio.gather(*[
            dval.avalidate("shell", args.source_dir, client=client, thread_id="tour-%d" % i,
                           sandbox_name="tour-sandbox-%d" % i, release=dval.Release.DELETE)
            for i in range(2)])
        for x in rs:
            print("  thread", x.thread_id, "exit", x.exit_code, "results", list(x.results))
    asyncio.run(both())

    # 5. The lifecycle by hand: snapshot -> sandbox -> session -> exec.
    #    `with` on a sandbox applies its release policy on exit (DELETE
    #    here), `with` on a session deletes the remote session.
    step("5. the lifecycle by hand")
    snap = client.snapshot_ensure("tour-snapshot", image="debian:12-slim")
    with client.sandbox_acquire("tour-sandbox", snapshot=snap.name,
                                release=dval.Release.DELETE) as sb:
        print("sandbox", sb.name, sb.state.name)
        sb.upload("/sandbox/tour/hello.txt", "hello from the host\n")
        with sb.open_session() as s:
            code = s.exec("cat /sandbox/tour/hello.txt; exit 7", on_output=show)
        print("exit code", code)
    snap.delete()
    snap.close()
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
