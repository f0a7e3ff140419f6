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

func TestVersion(t *testing.T) {
	if v := Version(); v != "0.1.0" {
		t.Fatalf("version %q", v)
	}
}

func TestBadExecutor(t *testing.T) {
	_, err := NewClient(ClientOptions{Executor: "no-such-executor"})
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || e.Name != "DVAL_EINVAL" || e.Message == "" {
		t.Fatalf("want DVAL_EINVAL with a message, got %#v", err)
	}
}

// env is one executor's client, snapshot and sandbox.
type env struct {
	c  *Client
	sn *Snapshot
	sb *Sandbox
}

func unavailable(err error) bool {
	for _, s := range []*Error{ErrUnsupported, ErrIsolation, ErrNetwork, statusErr(StatusExec),
		statusErr(StatusError), statusErr(StatusProtocol), statusErr(StatusServer)} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

func setup(t *testing.T, executor string) *env {
	t.Helper()
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
	c, err := NewClient(o)
	if err != nil {
		if unavailable(err) {
			t.Skipf("%s executor not available yet: %v", executor, err)
		}
		t.Fatal(err)
	}
	e := &env{c: c}
	t.Cleanup(func() {
		// children first is not required: free the client first on purpose
		e.c.Close()
		if e.sb != nil {
			e.sb.Close()
		}
		if e.sn != nil {
			e.sn.Close()
		}
	})
	var logs bytes.Buffer
	e.sn, err = c.EnsureSnapshot(SnapshotSpec{Name: "ffi-go-snap", Image: "debian:12-slim"},
		func(b []byte) error { logs.Write(b); return nil })
	if err != nil {
		if unavailable(err) {
			t.Skipf("%s executor not available yet: %v", executor, err)
		}
		t.Fatal(err)
	}
	var states []int
	e.sb, err = c.AcquireSandbox(SandboxOptions{
		Name: fmt.Sprintf("ffi-go-%s-%d", executor, os.Getpid()), Snapshot: "ffi-go-snap",
		Labels: []string{"suite=ffi-go"}, Release: ReleaseDelete, CreateTimeout: time.Minute,
		OnState: func(name string, st int) { states = append(states, st) }})
	if err != nil {
		if unavailable(err) {
			t.Skipf("%s executor not available yet: %v", executor, err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.sb.Release(); err != nil {
			t.Errorf("release: %v", err)
		}
	})
	if e.sb.State() != SandboxStarted {
		t.Fatalf("sandbox state %s", StateName(e.sb.State()))
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
		s, err := e.sb.OpenSession()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if !strings.HasPrefix(s.ID(), e.sb.Name()+"-") {
			t.Errorf("session id %q", s.ID())
		}
		var out [3]bytes.Buffer
		code, err := s.Exec(context.Background(), "echo hello; echo oops >&2; exit 3",
			ExecOptions{ChannelPrefix: "GO_"}, func(stream int, ch string, d []byte) error {
				if !strings.HasPrefix(ch, "GO_COMMAND_EXECUTION_STD") {
					return fmt.Errorf("channel %q", ch)
				}
				out[stream].Write(d)
				return nil
			})
		if err != nil || code != 3 {
			t.Fatalf("exec: %d %v", code, err)
		}
		if out[Stdout].String() != "hello\n" || out[Stderr].String() != "oops\n" {
			t.Fatalf("output %q %q", out[Stdout].String(), out[Stderr].String())
		}
		base := "/sandbox/ffi-go"
		in := map[string]interface{}{"numbers": []int{1, 2, 3}}
		if err := e.sb.UploadJSON(base+"/in.json", in); err != nil {
			t.Fatal(err)
		}
		if code, err := s.Exec(context.Background(), "cd "+base+" && sed s/numbers/values/ in.json > out.json",
			ExecOptions{}, nil); err != nil || code != 0 {
			t.Fatalf("transform: %d %v", code, err)
		}
		var doc map[string][]int
		if err := e.sb.DownloadJSON(base+"/out.json", &doc); err != nil || len(doc["values"]) != 3 {
			t.Fatalf("download json: %v %v", doc, err)
		}
		if _, err := e.sb.Download(base + "/missing"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("missing file: %v", err)
		}
	})
}

func TestCallbackErrorAndPanic(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		s, err := e.sb.OpenSession()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stop := errors.New("stop here")
		start := time.Now()
		_, err = s.Exec(context.Background(), "echo a; sleep 20", ExecOptions{},
			func(int, string, []byte) error { return stop })
		if !errors.Is(err, stop) || time.Since(start) > 15*time.Second {
			t.Fatalf("want the callback's error promptly, got %v after %v", err, time.Since(start))
		}
		s2, err := e.sb.OpenSession()
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		func() {
			defer func() {
				if p := recover(); p != "boom" {
					t.Fatalf("want panic boom re-raised, got %v", p)
				}
			}()
			s2.Exec(context.Background(), "echo a; sleep 20", ExecOptions{},
				func(int, string, []byte) error { panic("boom") })
		}()
	})
}

func TestContextCancel(t *testing.T) {
	forExecutors(t, func(t *testing.T, e *env) {
		s, err := e.sb.OpenSession()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
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
				s, err := e.sb.OpenSession()
				if err != nil {
					errs <- err
					return
				}
				defer s.Close()
				var out bytes.Buffer
				want := fmt.Sprintf("worker-%d\n", i)
				code, err := s.Exec(context.Background(), "echo worker-"+fmt.Sprint(i), ExecOptions{},
					func(_ int, _ string, d []byte) error { out.Write(d); return nil })
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
