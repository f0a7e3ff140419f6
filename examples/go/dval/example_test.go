package dval_test

import (
	"context"
	"fmt"
	"os"

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
