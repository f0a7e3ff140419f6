package dval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// shellSample is examples/validation/shell (the suite sets DVAL_SHELL_SAMPLE:
// it tests a copy of the module).
func shellSample() string {
	if d := os.Getenv("DVAL_SHELL_SAMPLE"); d != "" {
		return d
	}
	return "../../validation/shell"
}

// checkSample fails unless r is examples/validation/shell's result as tid.
func checkSample(t *testing.T, r *ValidationResult, tid string) {
	t.Helper()
	var doc struct {
		Sum      int    `json:"sum_1_to_100"`
		ThreadID string `json:"thread_id"`
		Passed   bool   `json:"passed"`
	}
	if r == nil || !r.OK() || r.ThreadID != tid {
		t.Fatalf("%s: result %+v", tid, r)
	}
	if err := json.Unmarshal(r.Results["results.json"], &doc); err != nil || doc.Sum != 5050 ||
		doc.ThreadID != tid || !doc.Passed || len(r.Results) != 1 {
		t.Fatalf("%s: results %v (%v)", tid, r.Results, err)
	}
}

func TestValidateIsolationSandbox(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		var own []string // the end of the sandbox phase names it: "<name> (<state>)"
		var stdout strings.Builder
		req := Validation{Profile: "shell", SourceDir: shellSample(), ThreadID: "go-iso",
			Isolation: "sandbox", Labels: []string{e.label}, Stdout: &stdout,
			OnEvent: func(ev Event) error {
				if ev.Type == EventPhase && ev.Phase == "sandbox" && ev.Done {
					own = append(own, strings.SplitN(ev.Detail, " ", 2)[0])
				}
				return nil
			}}
		r, err := e.c.Validate(bg, req)
		if err != nil {
			t.Fatal(err)
		}
		checkSample(t, r, "go-iso")
		if stdout.String() != "sum 1..100 = 5050\n" {
			t.Fatalf("stdout %q", stdout.String())
		}
		if len(own) != 1 || !strings.HasPrefix(own[0], "shell-sandbox-") {
			t.Fatalf("own sandbox %v", own)
		}
		for _, s := range e.live(t) {
			if s.Name == own[0] {
				t.Fatalf("isolation=sandbox left %s", s.Name)
			}
		}
	})
}

func TestPool(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		name := fmt.Sprintf("ffi-go-pool-%d", os.Getpid())
		p, err := NewPool(bg, e.c, PoolOptions{Profile: "shell", Name: name, MaxSandboxes: 2,
			Labels: []string{e.label}, Release: ReleaseDelete})
		if err != nil {
			t.Fatal(err)
		}
		const n = 4
		rs := make([]*ValidationResult, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(bg, time.Minute)
				defer cancel()
				rs[i], errs[i] = p.Validate(ctx, Validation{SourceDir: shellSample(),
					ThreadID: fmt.Sprintf("go-pool-%d", i)})
			}(i)
		}
		wg.Wait()
		for i := 0; i < n; i++ {
			if errs[i] != nil {
				t.Errorf("go-pool-%d: %v", i, errs[i])
				continue
			}
			checkSample(t, rs[i], fmt.Sprintf("go-pool-%d", i))
			if rs[i].Sandbox != name+"-0" && rs[i].Sandbox != name+"-1" {
				t.Errorf("go-pool-%d ran on %q", i, rs[i].Sandbox)
			}
		}
		st, err := p.Stats()
		if err != nil || st.MaxSandboxes != 2 || st.Completed != n || st.Failed != 0 ||
			st.Running != 0 || st.Waiting != 0 {
			t.Errorf("Stats: %+v, %v", st, err)
		}
		if len(e.live(t)) < 2 { // the suite's sandbox and the pool's
			t.Errorf("pool sandboxes not listed: %+v", e.live(t))
		}
		p.Close()
		p.Close() // idempotent
		if _, err := p.Validate(bg, Validation{SourceDir: shellSample()}); !errors.Is(err, ErrInvalid) {
			t.Errorf("Validate after Close: %v", err)
		}
		if _, err := p.Stats(); !errors.Is(err, ErrInvalid) {
			t.Errorf("Stats after Close: %v", err)
		}
		for _, s := range e.live(t) {
			if strings.HasPrefix(s.Name, name) {
				t.Errorf("Close (ReleaseDelete) left %s", s.Name)
			}
		}
	})
}

// A caller waiting for a busy pool's only sandbox leaves the queue when its
// context is done.
func TestPoolContextWhileWaiting(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		p, err := NewPool(bg, e.c, PoolOptions{Profile: "shell", Name: fmt.Sprintf("ffi-go-poolq-%d", os.Getpid()),
			MaxSandboxes: 1, Labels: []string{e.label}, Release: ReleaseDelete})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		started := make(chan struct{})
		var once sync.Once
		done := make(chan error, 1)
		go func() {
			_, err := p.Validate(bg, Validation{SourceDir: program(t, "echo go; sleep 3\n"),
				OnEvent: func(ev Event) error {
					if ev.Type == EventOutput {
						once.Do(func() { close(started) })
					}
					return nil
				}})
			done <- err
		}()
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			t.Fatal("the first validation did not start")
		}
		ctx, cancel := context.WithTimeout(bg, 300*time.Millisecond)
		defer cancel()
		t0 := time.Now()
		_, err = p.Validate(ctx, Validation{SourceDir: shellSample()})
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(t0) > 2*time.Second {
			t.Fatalf("want deadline exceeded while queued, got %v after %v", err, time.Since(t0))
		}
		if err := <-done; err != nil {
			t.Fatalf("the running validation: %v", err)
		}
		if st, err := p.Stats(); err != nil || st.CanceledWaiting != 1 || st.Completed != 1 ||
			st.WaitMax < 200*time.Millisecond {
			t.Errorf("Stats: %+v, %v", st, err)
		}
	})
}

// TestValidateDotnet runs examples/validation/dotnet (a C# program) on the
// local executor through the binding, like any other profile's.
func TestValidateDotnet(t *testing.T) {
	if _, err := exec.LookPath("dotnet"); err != nil {
		t.Skip("no .NET SDK on this host")
	}
	dir := os.Getenv("DVAL_DOTNET_SAMPLE")
	if dir == "" {
		dir = "../../validation/dotnet"
	}
	o := clientOptions(t, "local")
	// the dotnet snapshot's shared compile service keeps a tmpfs mounted
	// in its state directory until the snapshot is deleted: t.TempDir
	// could not remove it, the suite does (DVAL_GO_KEEP_DIR)
	if keep := os.Getenv("DVAL_GO_KEEP_DIR"); keep != "" {
		d, err := os.MkdirTemp(keep, "go-cs-state")
		if err != nil {
			t.Fatal(err)
		}
		o.StateDir = d
	}
	c, err := NewClient(bg, o)
	if err != nil {
		if unavailable(err) {
			t.Skipf("local executor: %v", err)
		}
		t.Fatal(err)
	}
	defer c.Close()
	var stdout strings.Builder
	r, err := c.Validate(bg, Validation{Profile: "dotnet", SourceDir: dir, ThreadID: "go-cs",
		Release: ReleaseDelete, Stdout: &stdout})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Fib int64 `json:"fibonacci_50"`
	}
	if !r.OK() || json.Unmarshal(r.Results["results.json"], &doc) != nil || doc.Fib != 12586269025 {
		t.Fatalf("result %+v", r)
	}
	// the program's line last: a build that ran before the snapshot's
	// compile service was up (a full dotnet build) printed its own first
	if !strings.HasSuffix(stdout.String(), "\nfibonacci(50) = 12586269025\n") &&
		stdout.String() != "fibonacci(50) = 12586269025\n" {
		t.Fatalf("stdout %q", stdout.String())
	}
}
