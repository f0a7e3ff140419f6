package dval

/*
#include <stdlib.h>
#include <dval.h>
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// DiffOutcome is enum dval_differential_outcome.
type DiffOutcome int

const (
	DiffEquivalent        DiffOutcome = C.DVAL_DIFF_EQUIVALENT
	DiffDiffers           DiffOutcome = C.DVAL_DIFF_DIFFERS
	DiffOriginalFailed    DiffOutcome = C.DVAL_DIFF_ORIGINAL_FAILED
	DiffTranslationFailed DiffOutcome = C.DVAL_DIFF_TRANSLATION_FAILED
)

// DiffOptions says how two validations' results are compared: JSON
// paths left out ("$..generated_at") and number tolerances.
type DiffOptions struct {
	Ignore                     []string
	AbsTolerance, RelTolerance float64
	MaxDiffs                   int // listed differences; 0 → 20
}

// Difference is one place where the translation's results differ from
// the original's (Expected: the original's value, Actual: the
// translation's; absent on a side that has none).
type Difference struct {
	Path     string          `json:"path"`
	Kind     string          `json:"kind"`
	Expected json.RawMessage `json:"expected,omitempty"`
	Actual   json.RawMessage `json:"actual,omitempty"`
}

// Differential is the judgement of a translation against its original.
type Differential struct {
	Outcome DiffOutcome
	// Verdict is "equivalent", "differs", or the failed side's own
	// verdict (the original's first); VerdictDetail says it in words.
	Verdict       string       `json:"verdict"`
	VerdictDetail string       `json:"verdict_detail"`
	Differences   int          `json:"differences"`
	Diff          []Difference `json:"diff"`
	FailedSide    string       `json:"failed_side"` // "original", "translation" or ""
	// Original and Translation are the two validations (ValidatePair).
	Original, Translation *ValidationResult `json:"-"`
}

// Equivalent reports whether both passed with the same results.
func (d *Differential) Equivalent() bool { return d.Outcome == DiffEquivalent }

// Judge judges two validations with dval_differential(3).
func Judge(original, translation *ValidationResult, o DiffOptions) (*Differential, error) {
	if original == nil || translation == nil {
		return nil, &Error{Status: StatusInvalid, Name: StatusInvalid.String(), Message: "a side is nil"}
	}
	var cs cstrings
	defer cs.free()
	var opts C.dval_compare_options
	C.dval_compare_options_init(&opts, C.size_t(unsafe.Sizeof(opts)))
	if len(o.Ignore) > 0 {
		opts.ignore = cs.array(o.Ignore)
	}
	opts.abs_tolerance, opts.rel_tolerance = C.double(o.AbsTolerance), C.double(o.RelTolerance)
	opts.max_diffs = C.int32_t(o.MaxDiffs)
	var outcome C.int
	var report *C.char
	rc := C.dval_differential(&outcome, &report, cs.str(original.Summary),
		cs.str(translation.Summary), &opts)
	if rc != 0 {
		return nil, mkerr(rc, C.dval_strerror(rc))
	}
	defer C.dval_free(unsafe.Pointer(report))
	d := &Differential{Outcome: DiffOutcome(outcome), Original: original, Translation: translation}
	if err := json.Unmarshal([]byte(C.GoString(report)), d); err != nil {
		return nil, fmt.Errorf("dval: differential JSON: %w", err)
	}
	return d, nil
}

// ValidatePair validates an original program and its translation at the
// same time (two goroutines on this client) and judges them. A side that
// failed without a verdict (its infrastructure) returns its error.
func (c *Client) ValidatePair(ctx context.Context, original, translation Validation,
	o DiffOptions) (*Differential, error) {
	var wg sync.WaitGroup
	res := make([]*ValidationResult, 2)
	errs := make([]error, 2)
	for i, req := range []Validation{original, translation} {
		wg.Add(1)
		go func(i int, req Validation) {
			defer wg.Done()
			res[i], errs[i] = c.Validate(ctx, req)
		}(i, req)
	}
	wg.Wait()
	for i := range res {
		if res[i] == nil || res[i].Verdict == "" {
			if errs[i] == nil {
				errs[i] = errors.New("dval: a validation gave no summary")
			}
			return nil, errs[i]
		}
	}
	return Judge(res[0], res[1], o)
}
