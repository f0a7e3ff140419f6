package dval

import "io"

// WriteTo adapts io.Writers to an OutputFunc: stdout chunks go to stdout,
// stderr chunks to stderr (either may be nil: dropped). A write error stops
// the command. Chunks are written as they arrive, on the calling goroutine.
func WriteTo(stdout, stderr io.Writer) OutputFunc {
	return func(stream Stream, _ string, data []byte) error {
		w := stdout
		if stream == Stderr {
			w = stderr
		}
		if w == nil {
			return nil
		}
		_, err := w.Write(data)
		return err
	}
}
