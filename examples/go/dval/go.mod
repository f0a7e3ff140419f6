module github.com/libdaytona-validate/libdaytona-validate/examples/go/dval

go 1.19
