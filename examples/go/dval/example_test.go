package dval_test

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/libdaytona-validate/libdaytona-validate/examples/go/dval"
)

// Validate one folder with the shell profile on the local executor, output
// live on the terminal, and delete the sandbox afterwards (the default,
// ReleaseKeep, would leave it running after the program ends).
func ExampleValidate() {
	ctx := context.Background()
	r, err := dval.Validate(ctx, dval.ClientOptions{Executor: "local"}, dval.Validation{
		Profile: "shell", SourceDir: "examples/validation/shell",
		Stdout: os.Stdout, Stderr: os.Stderr, Release: dval.ReleaseDelete,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	fmt.Println(r.ExitCode, string(r.Results["results.json"]))
}

// Four goroutines share a pool of two sandboxes; Close deletes them (the
// default, ReleaseKeep, would leave them running for the next pool).
func ExamplePool() {
	ctx := context.Background()
	c, err := dval.NewClient(ctx, dval.ClientOptions{Executor: "local"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer c.Close()
	p, err := dval.NewPool(ctx, c, dval.PoolOptions{Profile: "shell", MaxSandboxes: 2,
		Release: dval.ReleaseDelete})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer p.Close() // waits for running Validate calls
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) { // a done ctx also leaves the pool's queue
			defer wg.Done()
			r, err := p.Validate(ctx, dval.Validation{SourceDir: "examples/validation/shell",
				ThreadID: fmt.Sprint("t", i)})
			if err != nil {
				fmt.Println(i, err)
				return
			}
			fmt.Println(i, string(r.Results["results.json"]))
		}(i)
	}
	wg.Wait()
}
