// A tour of the Go binding, from one call to the whole lifecycle.
//
//	go run . -state-dir /tmp/dval-tour ../../validation/shell
//
// It uses the local executor (no account needed) and deletes everything it
// creates before it exits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/libdaytona-validate/libdaytona-validate/examples/go/dval"
)

func step(title string) { fmt.Println("\n== " + title) }

func main() {
	stateDir := flag.String("state-dir", "", "local executor state (default: ~/.local/state)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: tour [-state-dir DIR] FOLDER (a folder with run.sh)")
		os.Exit(2)
	}
	if err := tour(flag.Arg(0), *stateDir); err != nil {
		fmt.Fprintln(os.Stderr, "tour:", err)
		os.Exit(1)
	}
}

func tour(folder, stateDir string) error {
	// Every call that may block takes a context: here one that gives the
	// whole tour two minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// 1. One client per process is enough: it is safe for concurrent use.
	//    Executor "" would pick Daytona when DAYTONA_API_KEY is set.
	step("1. a client")
	c, err := dval.NewClient(ctx, dval.ClientOptions{Executor: "local", StateDir: stateDir})
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Println("library", dval.Version(), "executor", c.ExecutorName(), "profiles", dval.ProfileNames())

	// 2. The one-call form: the shell profile runs `sh run.sh` in the
	//    uploaded folder. Output goes live to the writers. ReleaseDelete
	//    removes the sandbox afterwards; the default, ReleaseKeep, leaves it
	//    running after this program ends so the next run is fast.
	step("2. Validate")
	r, err := c.Validate(ctx, dval.Validation{
		Profile: "shell", SourceDir: folder, Stdout: os.Stdout, Stderr: os.Stderr,
		Release: dval.ReleaseDelete, Timeout: time.Minute,
	})
	if err != nil {
		return err
	}
	fmt.Println("exit code", r.ExitCode, "ok", r.OK(), "results", string(r.Results["results.json"]))
	fmt.Println("timings", r.Timings)

	// 3. Failures are *Error values, matched with errors.Is. A non-zero
	//    exit code of the program is not an error: it is r.ExitCode.
	step("3. a timeout is ErrTimeout")
	_, err = c.Validate(ctx, dval.Validation{
		Profile: "shell", SourceDir: folder, RunCommand: "echo working; sleep 10",
		Timeout: 300 * time.Millisecond, Release: dval.ReleaseDelete, Stdout: os.Stdout,
	})
	fmt.Println("timed out:", errors.Is(err, dval.ErrTimeout), "-", err)

	// 4. The lifecycle by hand. Close on the sandbox applies its release
	//    policy (ReleaseDelete here); Close on a session deletes it.
	step("4. the lifecycle by hand")
	snap, err := c.EnsureSnapshot(ctx, dval.SnapshotSpec{Name: "tour-snapshot", Image: "debian:12-slim"}, nil)
	if err != nil {
		return err
	}
	defer snap.Close()
	sb, err := c.AcquireSandbox(ctx, dval.SandboxOptions{
		Name: "tour-sandbox", Snapshot: snap.Name(), Release: dval.ReleaseDelete,
	})
	if err != nil {
		return err
	}
	defer sb.Close()
	fmt.Println("sandbox", sb.Name(), sb.State())
	if err := sb.Upload(ctx, "/sandbox/tour/hello.txt", []byte("hello from the host\n")); err != nil {
		return err
	}
	s, err := sb.OpenSession(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	code, err := s.Exec(ctx, "cat /sandbox/tour/hello.txt; exit 7", dval.ExecOptions{}, dval.WriteTo(os.Stdout, os.Stderr))
	if err != nil {
		return err
	}
	fmt.Println("exit code", code)

	// 5. Exec stops as soon as its context is done.
	step("5. cancel with a context")
	short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	defer stop()
	_, err = s.Exec(short, "sleep 30", dval.ExecOptions{}, nil)
	fmt.Println("canceled:", errors.Is(err, context.DeadlineExceeded), "-", err)
	return snap.Delete(ctx)
}
