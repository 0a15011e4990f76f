package cli

import (
	"errors"
	"flag"
)

// Exit codes of `speedmatrix run` (the README and `run -h` list them).
const (
	exitComplete   = 0 // every cell has a final status
	exitCantStart  = 1 // bad flags, server unreachable or busy, unusable or busy --out
	exitIncomplete = 3 // server died, interrupted or nothing could save: resumable with --resume
	exitExport     = 4 // measured, but a file could not be written or the charts were interrupted (the message says which, and where the report is)
)

// exitHelp is the exit codes as `run -h` prints them.
const exitHelp = `Exit codes:
  0  complete: every cell measured (whatever its status)
  1  could not start: bad flags, server unreachable or busy, unusable --out or one another run saves into
  3  incomplete but resumable: the server stopped answering, interrupted, or nothing could take the report
  4  measured, but a file could not be written, or SIGINT/SIGTERM stopped the charts
     (the message names the file and where the report is, or gives the command that draws the charts)`

// exitError is an error with the exit code the process ends with.
type exitError struct {
	Code int
	Err  error
}

func (e *exitError) Error() string { return e.Err.Error() }

// Unwrap returns the error behind the exit code.
func (e *exitError) Unwrap() error { return e.Err }

// ExitCode is the process exit code for what a subcommand returned: 0 for
// nil and for -h, an exitError's code, and 1 for any other error.
func ExitCode(err error) int {
	var e *exitError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitComplete
	case errors.As(err, &e):
		return e.Code
	}
	return exitCantStart
}

func exitWith(code int, err error) error { return &exitError{Code: code, Err: err} }
