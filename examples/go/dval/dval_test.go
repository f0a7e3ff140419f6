package dval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var bg = context.Background()

func TestVersion(t *testing.T) {
	if v := Version(); v != "1.0.0" {
		t.Fatalf("version %q", v)
	}
	names := ProfileNames()
	if len(names) == 0 || !strings.Contains(strings.Join(names, ","), "shell") {
		t.Fatalf("profiles %v", names)
	}
}

func TestEnumsMatchTheLibrary(t *testing.T) {
	if StatusTimeout.String() != "DVAL_ETIMEOUT" || SandboxStarted.String() != "started" ||
		SnapshotActive.String() != "active" || SandboxBuildFailed.String() != "build_failed" {
		t.Fatalf("names: %v %v %v %v", StatusTimeout, SandboxStarted, SnapshotActive, SandboxBuildFailed)
	}
	for s := StatusError; s >= StatusBadRequest; s-- {
		if s.String() == "DVAL_UNKNOWN" {
			t.Errorf("status %d unknown to the library", int(s))
		}
	}
}

func TestBadExecutor(t *testing.T) {
	_, err := NewClient(bg, ClientOptions{Executor: "no-such-executor"})
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || e.Name != "DVAL_EINVAL" || e.Message == "" {
		t.Fatalf("want DVAL_EINVAL with a message, got %#v", err)
	}
}

func TestDoneContextStopsBeforeTheCall(t *testing.T) {
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := NewClient(ctx, ClientOptions{}); !errors.Is(err, context.Canceled) || !errors.Is(err, ErrCanceled) {
		t.Fatalf("want canceled, got %v", err)
	}
}

func TestIsolationUnknown(t *testing.T) {
	c, err := NewClient(bg, ClientOptions{Executor: "local", StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Validate(bg, Validation{Profile: "shell", SourceDir: ".", Isolation: "bogus"})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "sandbox") {
		t.Fatalf("want invalid naming the levels, got %v", err)
	}
}

// TestServicesReachTheLibrary: each mistake in Services or Seeds is
// refused by the library's checks, before any sandbox work.
func TestServicesReachTheLibrary(t *testing.T) {
	if got := strings.Join(ServiceNames(), ","); got != "postgres,sqlite" {
		t.Fatalf("ServiceNames: %q", got)
	}
	c, err := NewClient(bg, ClientOptions{Executor: "local", StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Validate(bg, Validation{Profile: "shell", SourceDir: ".", Services: []string{"mongodb"}})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `unknown service "mongodb"`) {
		t.Fatalf("want invalid naming the service, got %v", err)
	}
	_, err = NewPool(bg, c, PoolOptions{Profile: "shell", Services: []string{"postgres"},
		Seeds: []string{"/nonexistent/seed.sql"}})
	if err == nil || !strings.Contains(err.Error(), "seed /nonexistent/seed.sql") {
		t.Fatalf("want the seed's error, got %v", err)
	}
}

// A profile file: a mistake is an *Error naming the file; a good one
// runs a validation on the local executor with its carried file.
func TestLoadProfile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"name": "go-bad", "image": "debian:12-slim", "run_comand": "true"}`), 0o644)
	if _, err := LoadProfile(bad); !errors.Is(err, ErrInvalid) ||
		!strings.Contains(err.Error(), `bad.json: unknown field "run_comand"`) {
		t.Fatalf("want invalid naming the field, got %v", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("local sandboxes here need root")
	}
	os.WriteFile(filepath.Join(dir, "hi.sh"), []byte("echo '{\"hi\": \"go\"}'\n"), 0o644)
	good := filepath.Join(dir, "p.json")
	os.WriteFile(good, []byte(`{"name": "go-pfile", "image": "debian:12-slim",
 "files": [{"from": "hi.sh", "to": "/opt/go/hi.sh", "mode": "0755"}],
 "run_command": "/opt/go/hi.sh > $DVAL_RESULTS_DIR/r.json"}`), 0o644)
	name, err := LoadProfile(good)
	if err != nil || name != "go-pfile" {
		t.Fatalf("LoadProfile: %q %v", name, err)
	}
	c, err := NewClient(bg, ClientOptions{Executor: "local", StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	src := filepath.Join(dir, "src")
	os.Mkdir(src, 0o755)
	r, err := c.Validate(bg, Validation{Profile: name, SourceDir: src, Release: ReleaseDelete})
	if err != nil || !r.OK() || string(r.Results["r.json"]) != `{"hi":"go"}` {
		t.Fatalf("validate: %v %+v", err, r)
	}
}

// The verdict reaches the result; an expected result and the program's
// own memory limit are the library's (wrong_results, memory_limit).
func TestVerdictsAndLimits(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("local sandboxes here need root")
	}
	c, err := NewClient(bg, ClientOptions{Executor: "local", StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("echo hello\n"), 0o644)
	for want, exp := range map[string]string{"passed": "hello\n", "wrong_results": "bye\n"} {
		r, err := c.Validate(bg, Validation{Profile: "shell", SourceDir: dir,
			AllowMissingResults: true, Expected: []byte(exp)})
		if r == nil || r.Verdict != want {
			t.Fatalf("expected %q: %v %+v", exp, err, r)
		}
	}
	os.WriteFile(filepath.Join(dir, "run.sh"),
		[]byte("dd if=/dev/zero of=/dev/null bs=100M count=2 2>/dev/null\n"), 0o644)
	r, err := c.Validate(bg, Validation{Profile: "shell", SourceDir: dir,
		AllowMissingResults: true, MemoryMiB: 64})
	if r == nil || r.Verdict != "memory_limit" {
		t.Fatalf("memory limit: %v %+v", err, r)
	}
}

// Args and Stdin reach the program exactly: words with spaces, quotes
// and "$", bytes with a NUL and no last newline.
func TestInputs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("local sandboxes here need root")
	}
	c, err := NewClient(bg, ClientOptions{Executor: "local", StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("for a in \"$@\"; do printf '[%s]' \"$a\"; done; echo\n"+
		"od -An -v -tx1 | tr -d ' \\n'\n"), 0o644)
	var out bytes.Buffer
	r, err := c.Validate(bg, Validation{Profile: "shell", SourceDir: dir, AllowMissingResults: true,
		Args: []string{"a b", "it's", `"q"`, "$HOME", ""}, Stdin: []byte("hi\x00\nx"), Stdout: &out})
	want := "[a b][it's][\"q\"][$HOME][]\n6869000a78"
	if err != nil || r == nil || !r.OK() || out.String() != want {
		t.Fatalf("inputs: %v %+v %q", err, r, out.String())
	}
}

// env is one executor's client, snapshot and sandbox.
type env struct {
	c     *Client
	sn    *Snapshot
	sb    *Sandbox
	label string
}

func unavailable(err error) bool {
	for _, s := range []*Error{ErrUnsupported, ErrIsolation, ErrNetwork, ErrExec} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

func clientOptions(t *testing.T, executor string) ClientOptions {
	o := ClientOptions{Executor: executor, RequestTimeout: 30 * time.Second}
	switch executor {
	case "local":
		o.StateDir = filepath.Join(t.TempDir(), "state")
	case "daytona":
		port := os.Getenv("DVAL_EMU_PORT")
		if port == "" {
			t.Skip("Daytona emulator not available")
		}
		cfg := `{"transition_ms":20,"snapshot_build_ms":50}`
		resp, err := http.Post("http://127.0.0.1:"+port+"/_emu/config", "application/json", strings.NewReader(cfg))
		if err != nil {
			t.Skipf("emulator not reachable: %v", err)
		}
		resp.Body.Close()
		o.APIURL = "http://127.0.0.1:" + port + "/api"
		o.APIKey = "test-key"
		o.RetryBase = 50 * time.Millisecond
		o.RetryCap = 200 * time.Millisecond
	}
	return o
}

// live lists this test's sandboxes whose deletion was not accepted (Daytona
// renames a deleted sandbox DESTROYED_<name>_<ms> until it is gone).
func (e *env) live(t *testing.T) []SandboxInfo {
	all, err := e.c.ListSandboxes(bg, []string{e.label})
	if err != nil {
		t.Fatal(err)
	}
	var out []SandboxInfo
	for _, s := range all {
		if s.State != SandboxDestroyed && s.State != SandboxDestroying && !strings.HasPrefix(s.Name, "DESTROYED_") {
			out = append(out, s)
		}
	}
	return out
}

func setup(t *testing.T, executor string) *env {
	t.Helper()
	c, err := NewClient(bg, clientOptions(t, executor))
	if err != nil {
		if unavailable(err) {
			t.Skipf("%s executor not available: %v", executor, err)
		}
		t.Fatal(err)
	}
	e := &env{c: c, label: fmt.Sprintf("suite=ffi-go-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))}
	var logs bytes.Buffer
	e.sn, err = c.EnsureSnapshot(bg, SnapshotSpec{Name: "ffi-go-snap", Image: "debian:12-slim"},
		func(b []byte) error { logs.Write(b); return nil })
	if err != nil {
		c.Close()
		if unavailable(err) {
			t.Skipf("%s executor not available: %v", executor, err)
		}
		t.Fatal(err)
	}
	var states []SandboxState
	e.sb, err = c.AcquireSandbox(bg, SandboxOptions{
		Name: fmt.Sprintf("ffi-go-%s-%d", executor, os.Getpid()), Snapshot: "ffi-go-snap",
		Labels: []string{e.label}, Release: ReleaseDelete, CreateTimeout: time.Minute,
		OnState: func(name string, st SandboxState) { states = append(states, st) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Close applies ReleaseDelete; then nothing of this test is left
		if err := e.sb.Close(); err != nil {
			t.Errorf("close (release=delete): %v", err)
		}
		if left := e.live(t); len(left) != 0 {
			t.Errorf("sandboxes left: %+v", left)
		}
		e.sn.Close()
		e.c.Close()
	})
	if e.sb.State() != SandboxStarted {
		t.Fatalf("sandbox state %v", e.sb.State())
	}
	return e
}

func forExecutors(t *testing.T, f func(t *testing.T, e *env)) {
	for _, ex := range []string{"local", "daytona"} {
		ex := ex
		t.Run(ex, func(t *testing.T) { f(t, setup(t, ex)) })
	}
}

func TestLifecycle(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		s, err := e.sb.OpenSession(bg)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if !strings.HasPrefix(s.ID(), e.sb.Name()+"-") {
			t.Errorf("session id %q", s.ID())
		}
		var stdout, stderr bytes.Buffer
		code, err := s.Exec(bg, "echo hello; echo oops >&2; exit 3", ExecOptions{ChannelPrefix: "GO_"},
			WriteTo(&stdout, &stderr))
		if err != nil || code != 3 {
			t.Fatalf("exec: %d %v", code, err)
		}
		if stdout.String() != "hello\n" || stderr.String() != "oops\n" {
			t.Fatalf("output %q %q", stdout.String(), stderr.String())
		}
		// Env: the values are data, never shell text
		stdout.Reset()
		value := "it's $(echo no) `echo no` \"q\""
		if code, err := s.Exec(bg, `printf '%s|%s\n' "$GREETING" "${EMPTY-unset}"`,
			ExecOptions{Env: []string{"GREETING=" + value, "EMPTY="}}, WriteTo(&stdout, nil)); err != nil || code != 0 {
			t.Fatalf("env: %d %v", code, err)
		}
		if stdout.String() != value+"|\n" {
			t.Fatalf("env output %q", stdout.String())
		}
		if _, err := s.Exec(bg, "true", ExecOptions{Env: []string{"NOT A NAME=x"}}, nil); !errors.Is(err, ErrInvalid) {
			t.Fatalf("bad env entry: %v", err)
		}
		base := "/sandbox/ffi-go"
		if err := e.sb.UploadJSON(bg, base+"/in.json", map[string][]int{"numbers": {1, 2, 3}}); err != nil {
			t.Fatal(err)
		}
		if code, err := s.Exec(bg, "cd "+base+" && sed s/numbers/values/ in.json > out.json",
			ExecOptions{}, nil); err != nil || code != 0 {
			t.Fatalf("transform: %d %v", code, err)
		}
		var doc map[string][]int
		if err := e.sb.DownloadJSON(bg, base+"/out.json", &doc); err != nil || len(doc["values"]) != 3 {
			t.Fatalf("download json: %v %v", doc, err)
		}
		if _, err := e.sb.Download(bg, base+"/missing"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("missing file: %v", err)
		}
		found := false
		for _, info := range e.live(t) {
			found = found || (info.Name == e.sb.Name() && info.State == SandboxStarted && info.ID == e.sb.ID())
		}
		if !found {
			t.Fatalf("ListSandboxes does not show %s started: %+v", e.sb.Name(), e.live(t))
		}
	})
}

func TestCallbackErrorAndPanic(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		s, err := e.sb.OpenSession(bg)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stop := errors.New("stop here")
		start := time.Now()
		_, err = s.Exec(bg, "echo a; sleep 20", ExecOptions{},
			func(Stream, string, []byte) error { return stop })
		if !errors.Is(err, stop) || !errors.Is(err, ErrAborted) || time.Since(start) > 15*time.Second {
			t.Fatalf("want the callback's error promptly, got %v after %v", err, time.Since(start))
		}
		s2, err := e.sb.OpenSession(bg)
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		code, err := -1, error(nil)
		func() {
			defer func() {
				if p := recover(); p != "boom" {
					t.Fatalf("want panic boom re-raised, got %v (exec returned %d, %v)", p, code, err)
				}
			}()
			code, err = s2.Exec(bg, "echo a; sleep 20", ExecOptions{},
				func(Stream, string, []byte) error { panic("boom") })
		}()
	})
}

func TestContextCancel(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		s, err := e.sb.OpenSession(bg)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx, cancel := context.WithTimeout(bg, 500*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err = s.Exec(ctx, "sleep 30", ExecOptions{}, nil)
		if !errors.Is(err, ErrCanceled) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("want canceled + deadline exceeded, got %v", err)
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("cancel took %v", time.Since(start))
		}
	})
}

func TestConcurrentSessions(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				s, err := e.sb.OpenSession(bg)
				if err != nil {
					errs <- err
					return
				}
				defer s.Close()
				var out bytes.Buffer
				want := fmt.Sprintf("worker-%d\n", i)
				code, err := s.Exec(bg, "echo worker-"+fmt.Sprint(i), ExecOptions{}, WriteTo(&out, nil))
				if err != nil || code != 0 || out.String() != want {
					errs <- fmt.Errorf("worker %d: %d %q %v", i, code, out.String(), err)
				}
			}(i)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

func program(t *testing.T, script string) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func (e *env) req(name, dir string) Validation {
	return Validation{Profile: "shell", SourceDir: dir, Release: ReleaseDelete, Labels: []string{e.label},
		SandboxName: fmt.Sprintf("ffi-go-v-%s-%d", name, os.Getpid())}
}

func TestValidate(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		dir := program(t, "echo out $DVAL_THREAD_ID; echo err >&2\nprintf '{\"answer\":42}' > \"$DVAL_RESULTS_DIR/r.json\"\n"+
			"printf 'caf\\303\\251\\n' > \"$DVAL_RESULTS_DIR/out.txt\"\nprintf 'a\\000b\\377' > \"$DVAL_RESULTS_DIR/bin.dat\"\n")
		var stdout, stderr bytes.Buffer
		var phases []string
		req := e.req("ok", dir)
		req.ThreadID, req.Stdout, req.Stderr = "t-ok", &stdout, &stderr
		req.OnEvent = func(ev Event) error {
			if ev.Type == EventPhase && ev.Done {
				phases = append(phases, ev.Phase)
			}
			return nil
		}
		r, err := e.c.Validate(bg, req)
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() || r.ExitCode != 0 || string(r.Results["r.json"]) != `{"answer":42}` || r.ThreadID != "t-ok" {
			t.Fatalf("result %+v", r)
		}
		if string(r.Files["out.txt"]) != "caf\u00e9\n" || string(r.Files["bin.dat"]) != "a\x00b\xff" || len(r.Files) != 2 {
			t.Fatalf("files %q", r.Files)
		}
		if stdout.String() != "out t-ok\n" || stderr.String() != "err\n" {
			t.Fatalf("output %q %q", stdout.String(), stderr.String())
		}
		if r.Timings["total"] <= 0 || len(phases) < 6 {
			t.Fatalf("timings %v phases %v", r.Timings, phases)
		}
		// a failing program: not an error of the call
		r, err = e.c.Validate(bg, e.req("exit", program(t, "exit 3\n")))
		if err != nil || r.Status != StatusResults || !r.Ran || r.ExitCode != 3 || r.OK() {
			t.Fatalf("exit 3: %+v %v", r, err)
		}
		// a timeout: an error, with what ran so far
		req = e.req("timeout", program(t, "echo started; sleep 30\n"))
		req.Timeout = 500 * time.Millisecond
		start := time.Now()
		_, err = e.c.Validate(bg, req)
		if !errors.Is(err, ErrTimeout) || time.Since(start) > 15*time.Second {
			t.Fatalf("timeout: %v after %v", err, time.Since(start))
		}
	})
}

func TestValidateContext(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		// stops at the next event once ctx is done (the program prints)
		req := e.req("ctx", program(t, "i=0; while [ $i -lt 200 ]; do echo tick; i=$((i+1)); sleep 0.1; done\n"))
		ctx, cancel := context.WithTimeout(bg, time.Second)
		defer cancel()
		start := time.Now()
		_, err := e.c.Validate(ctx, req)
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 6*time.Second {
			t.Fatalf("want deadline exceeded within seconds, got %v after %v", err, time.Since(start))
		}
		if left := e.live(t); len(left) != 1 { // only the suite's own sandbox
			t.Fatalf("left after a canceled validation: %+v", left)
		}
	})
}

func TestValidateContextSilent(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		req := e.req("silent", program(t, "sleep 30\n"))
		ctx, cancel := context.WithTimeout(bg, time.Second)
		defer cancel()
		start := time.Now()
		_, err := e.c.Validate(ctx, req)
		took := time.Since(start)
		t.Logf("canceled after %v (ctx deadline 1 s)", took)
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrCanceled) || took > 3*time.Second {
			t.Fatalf("want canceled within 3 s, got %v after %v", err, time.Since(start))
		}
		if left := e.live(t); len(left) != 1 {
			t.Fatalf("left after a canceled validation: %+v", left)
		}
	})
}

func TestDifferential(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		write := func(doc string) string {
			return program(t, "printf '"+doc+"' > \"$DVAL_RESULTS_DIR/r.json\"\n")
		}
		orig := e.req("diff", write(`{"n":1,"rows":[1,2],"at":"a"}`))
		same := e.req("diff", write(`{"rows":[1,2],"at":"b","n":1.0000001}`))
		other := e.req("diff", write(`{"n":1,"rows":[1,3],"at":"a"}`))
		broken := e.req("diff", program(t, "exit 3\n"))
		d, err := e.c.ValidatePair(bg, orig, same, DiffOptions{Ignore: []string{"$..at"}, AbsTolerance: 1e-3})
		if err != nil || !d.Equivalent() || d.Verdict != "equivalent" {
			t.Fatalf("equivalent: %v %+v", err, d)
		}
		d, err = e.c.ValidatePair(bg, orig, other, DiffOptions{})
		if err != nil || d.Outcome != DiffDiffers || d.Differences != 1 || d.Diff[0].Path != `$["r.json"].rows[1]` ||
			string(d.Diff[0].Expected) != "2" || string(d.Diff[0].Actual) != "3" {
			t.Fatalf("differs: %v %+v", err, d)
		}
		d, err = e.c.ValidatePair(bg, orig, broken, DiffOptions{})
		if err != nil || d.Outcome != DiffTranslationFailed || d.Verdict != "runtime_error" || d.FailedSide != "translation" {
			t.Fatalf("failed side: %v %+v", err, d)
		}
		if _, err := Judge(&ValidationResult{Summary: "not json"}, d.Original, DiffOptions{}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("bad summary: %v", err)
		}
	})
}
