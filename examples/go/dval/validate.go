package dval

/*
#include <dval.h>
*/
import "C"

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"runtime/cgo"
	"time"
	"unsafe"
)

// Validation is one request for Validate.
type Validation struct {
	Profile   string // required: "shell", "java", "dotnet" or a registered one
	SourceDir string // required: the local folder uploaded to /sandbox/<thread id>
	ThreadID  string // safe path component; "" → a uuid4
	// Isolation is "" or "session" (the profile's shared sandbox, one
	// session per validation: keeps honest programs apart, not hostile
	// ones), or "sandbox" (a sandbox created for this validation from the
	// snapshot and deleted after it).
	Isolation    string
	SandboxName  string // "" → the profile's
	SnapshotName string // "" → the profile's
	RunCommand   string // "" → the profile's
	Timeout      time.Duration
	// Release is applied to the sandbox after the run. The default,
	// ReleaseKeep, leaves it running after your program ends so the next
	// validation starts fast; use ReleaseDelete for one-off runs.
	Release             Release
	Labels              []string
	AllowMissingResults bool
	// Services the program gets a fresh database of (ServiceNames:
	// "postgres", "sqlite"); it finds the first one's in DVAL_DB_URL,
	// DVAL_DB_ADO, DVAL_DB_JDBC and DVAL_DB_HOST/PORT/NAME/USER/PASSWORD.
	// A service that fails makes the program exit 70 with
	// "dval: infrastructure: ..." on stderr. Seeds are host paths of SQL
	// files loaded, in order, into the services' seeded data when their
	// snapshot is built (once). Through a Pool both stay empty (the pool's).
	Services, Seeds []string
	// Limits of the program's own processes, even in a shared sandbox (0:
	// none): verdicts "memory_limit", "time_limit", "output_limit". An
	// executor that cannot enforce them refuses (ErrUnsupported).
	MemoryMiB, MaxProcesses int
	CPUTime                 time.Duration
	OutputBytes             int64
	// ResultsBytes bounds what all results files may hold together (as
	// the summary holds them); past it the verdict is "results_invalid".
	// 0: the library's 64 MiB.
	ResultsBytes int64
	// Expected is compared with the program's stdout (as text), or with
	// the results file ExpectedFile (as JSON): verdict "passed" or
	// "wrong_results". nil: no comparison.
	Expected     []byte
	ExpectedFile string
	// Args are the program's arguments, appended (each quoted, as it is)
	// to the run command; Stdin is given to the run as its stdin (nil: an
	// empty stdin). The build gets neither.
	Args  []string
	Stdin []byte
	// Stdout and Stderr receive the program's output live (may be nil). A
	// write error stops the validation.
	Stdout, Stderr io.Writer
	// OnEvent receives every progress event (may be nil); an error stops
	// the validation.
	OnEvent func(Event) error
}

// EventType tells progress events apart.
type EventType int

// Event types (enum dval_event_type).
const (
	EventPhase    EventType = 1
	EventOutput   EventType = 2
	EventBuildLog EventType = 3
	EventState    EventType = 4
)

// Event is a progress event of Validate.
type Event struct {
	Type    EventType
	Phase   string // "snapshot", "sandbox", "session", "upload", "build", "run", "download", "close"
	Done    bool   // phase events: finished (else started)
	Status  Status // phase finished: its status
	Elapsed time.Duration
	Stream  Stream // output events
	Channel string
	Data    []byte // output and build log events
	State   SandboxState
	Detail  string
}

// ValidationResult is what a validation produced.
type ValidationResult struct {
	// Status is StatusOK, or StatusResults when the program ran but its
	// results were missing or invalid (the valid ones are in Results).
	Status Status
	// ExitCode is the program's exit code (128+N for signal N); Ran is
	// false (and ExitCode -1) when it did not run to the end.
	ExitCode int
	Ran      bool
	// Results maps each results/*.json file name to its document.
	Results map[string]json.RawMessage
	// Files maps every other results file (not *.json) to its bytes, as
	// the program wrote them (library 0.1.7 or later; empty before). They
	// are no results.
	Files    map[string][]byte
	Timings  map[string]time.Duration
	ThreadID string
	Sandbox  string
	Session  string
	Executor string
	Profile  string
	Errors   []string
	// Verdict is the one word a pipeline branches on ("passed",
	// "compile_error", "runtime_error", "time_limit", "memory_limit",
	// "output_limit", "results_missing", "results_invalid",
	// "runtime_unsupported", "wrong_results", "canceled",
	// "infrastructure_error"); VerdictDetail says why.
	Verdict, VerdictDetail string
	// Summary is the library's JSON summary as it gave it (what Judge
	// reads).
	Summary string
}

// OK reports whether the program exited 0 and all its results were valid.
func (r *ValidationResult) OK() bool { return r.Status == StatusOK && r.Ran && r.ExitCode == 0 }

type summary struct {
	ExitCode *int                       `json:"exit_code"`
	Results  map[string]json.RawMessage `json:"results"`
	Files    map[string]summaryFile     `json:"files"`
	ThreadID string                     `json:"thread_id"`
	Sandbox  string                     `json:"sandbox"`
	Session  *string                    `json:"session"`
	Profile  string                     `json:"profile"`
	Executor string                     `json:"executor"`
	Errors   []string                   `json:"errors"`
	Timings  map[string]int64           `json:"timings_ms"`
	Verdict  string                     `json:"verdict"`
	Detail   string                     `json:"verdict_detail"`
}

// summaryFile is an entry of the summary's "files": its text (UTF-8) or
// its bytes in base64.
type summaryFile struct {
	Text   *string `json:"text"`
	Base64 string  `json:"base64"`
}

func (f summaryFile) bytes() ([]byte, error) {
	if f.Text != nil {
		return []byte(*f.Text), nil
	}
	return base64.StdEncoding.DecodeString(f.Base64)
}

func parseSummary(text string, status Status) (*ValidationResult, error) {
	var s summary
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return nil, fmt.Errorf("dval: summary JSON: %w", err)
	}
	r := &ValidationResult{Status: status, ExitCode: -1, Results: s.Results, ThreadID: s.ThreadID,
		Sandbox: s.Sandbox, Executor: s.Executor, Profile: s.Profile, Errors: s.Errors,
		Timings: map[string]time.Duration{}, Verdict: s.Verdict, VerdictDetail: s.Detail,
		Summary: text}
	r.Files = make(map[string][]byte, len(s.Files))
	for name, f := range s.Files {
		b, err := f.bytes()
		if err != nil {
			return nil, fmt.Errorf("dval: summary file %q: %w", name, err)
		}
		r.Files[name] = b
	}
	if s.ExitCode != nil {
		r.ExitCode, r.Ran = *s.ExitCode, true
	}
	if s.Session != nil {
		r.Session = *s.Session
	}
	for k, v := range s.Timings {
		r.Timings[k] = time.Duration(v) * time.Millisecond
	}
	return r, nil
}

func eventOf(ev *C.dval_event) Event {
	e := Event{Type: EventType(ev._type), Phase: C.GoString(ev.phase), Done: ev.done != 0,
		Status: Status(ev.status), Elapsed: time.Duration(ev.elapsed_ms) * time.Millisecond,
		Stream: Stream(ev.stream), Channel: C.GoString(ev.channel), State: SandboxState(ev.state),
		Detail: C.GoString(ev.detail)}
	if ev.data != nil && ev.len > 0 {
		e.Data = C.GoBytes(unsafe.Pointer(ev.data), C.int(ev.len))
	}
	return e
}

// Validate runs the whole loop with a client of its own (ClientOptions
// chooses the executor): snapshot → sandbox → session → upload → exec →
// results → close. See Client.Validate.
func Validate(ctx context.Context, o ClientOptions, req Validation) (*ValidationResult, error) {
	c, err := NewClient(ctx, o)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Validate(ctx, req)
}

// Validate runs one validation and returns its result; a non-zero exit code
// of the program is not an error (see ValidationResult.ExitCode). Program
// output goes live to req.Stdout/req.Stderr.
//
// When ctx is done the validation stops at once, in any phase (through the
// library's cancel token), closes its session, releases the sandbox and
// returns an error that unwraps to ctx.Err().
func (c *Client) Validate(ctx context.Context, req Validation) (*ValidationResult, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	return runValidation(ctx, c.c, nil, req)
}

// isolationOf maps Validation.Isolation to enum dval_isolation.
func isolationOf(name string) (C.int32_t, error) {
	switch name {
	case "", "session":
		return C.DVAL_ISOLATION_SESSION, nil
	case "sandbox":
		return C.DVAL_ISOLATION_SANDBOX, nil
	}
	return 0, &Error{Status: StatusInvalid, Name: StatusInvalid.String(),
		Message: fmt.Sprintf("isolation %q: expected \"session\" or \"sandbox\"", name)}
}

// runValidation is dval_validate on c, or dval_pool_validate on pool when
// it is not nil (c then only gives the error message).
// setLimits fills the validation's own limits and expected result.
func setLimits(v *C.dval_validation, cs *cstrings, req *Validation) {
	v.memory_mib = C.int32_t(req.MemoryMiB)
	v.max_processes = C.int32_t(req.MaxProcesses)
	v.cpu_time_ms = ms(req.CPUTime)
	v.output_bytes = C.int64_t(req.OutputBytes)
	v.results_bytes = C.int64_t(req.ResultsBytes)
	if req.Expected != nil {
		v.expected = cs.str(string(req.Expected))
		v.expected_len = C.size_t(len(req.Expected))
	}
	v.expected_file = cs.str(req.ExpectedFile)
}

// setInputs fills the run phase's arguments and stdin; an empty word or
// stdin is given, not NULL (cs.data).
func setInputs(v *C.dval_validation, cs *cstrings, req *Validation) {
	v.args = cs.words(req.Args)
	if req.Stdin != nil {
		v.stdin_data = cs.data(string(req.Stdin))
		v.stdin_len = C.size_t(len(req.Stdin))
	}
}

func runValidation(ctx context.Context, c *C.dval_client, pool *C.dval_pool,
	req Validation) (*ValidationResult, error) {
	iso, err := isolationOf(req.Isolation)
	if err != nil {
		return nil, err
	}
	var cv C.dval_validation
	v := &cv
	C.dval_validation_init(v, C.size_t(unsafe.Sizeof(cv)))
	var cs cstrings
	defer cs.free()
	v.profile = cs.str(req.Profile)
	v.source_dir = cs.str(req.SourceDir)
	v.thread_id = cs.str(req.ThreadID)
	v.sandbox_name = cs.str(req.SandboxName)
	v.snapshot_name = cs.str(req.SnapshotName)
	v.run_command = cs.str(req.RunCommand)
	v.timeout_ms = ms(req.Timeout)
	v.release = C.int32_t(req.Release)
	v.labels = cs.array(req.Labels)
	v.isolation = iso
	v.services = cs.array(req.Services)
	v.seeds = cs.array(req.Seeds)
	setLimits(v, &cs, &req)
	setInputs(v, &cs, &req)
	if req.AllowMissingResults {
		v.allow_missing_results = 1
	}
	write := WriteTo(req.Stdout, req.Stderr)
	st := &callState{event: func(cev *C.dval_event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		ev := eventOf(cev)
		if ev.Type == EventOutput {
			if err := write(ev.Stream, ev.Channel, ev.Data); err != nil {
				return err
			}
		}
		if req.OnEvent != nil {
			return req.OnEvent(ev)
		}
		return nil
	}}
	h := cgo.NewHandle(st)
	defer h.Delete()
	disarm := armCancel(ctx, v)
	var out *C.char
	var rc C.int
	if pool != nil {
		rc = cPoolValidate(pool, v, uintptr(h), &out)
	} else {
		rc = cValidate(c, v, uintptr(h), &out)
	}
	disarm()
	err = withCause(ctx, st.finish(mkerr(rc, C.dval_client_errmsg(c))))
	if out == nil {
		return nil, err
	}
	defer C.dval_free(unsafe.Pointer(out))
	r, perr := parseSummary(C.GoString(out), Status(rc))
	if perr != nil {
		return nil, perr
	}
	if Status(rc) == StatusOK || Status(rc) == StatusResults {
		return r, nil
	}
	return r, err
}
