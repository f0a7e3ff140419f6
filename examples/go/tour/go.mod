module example.com/dval-tour

go 1.19

require github.com/libdaytona-validate/libdaytona-validate/examples/go/dval v1.0.0

// Until the module is published (or to use a checkout), build against the
// local copy. Alternatively: `go work init . ../dval` and drop these lines.
replace github.com/libdaytona-validate/libdaytona-validate/examples/go/dval => ../dval
