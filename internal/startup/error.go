package startup

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"go.temporal.io/api/serviceerror"
	"go.uber.org/dig"
)

// ExitCode is the status of a command that could not start.
const ExitCode = 2

// Error is a startup failure its source could explain.
type Error struct {
	Problem string // what is wrong: "no Temporal server at 127.0.0.1:7233 (connection refused)"
	Fix     string // what to do: "start one, or run with --dev"
	Err     error  // the cause, printed only in verbose mode
}

// Sentence is the one line a user sees.
func (e *Error) Sentence() string { return e.Problem + ": " + e.Fix }

func (e *Error) Error() string {
	if e.Err == nil {
		return e.Sentence()
	}
	return e.Sentence() + " (cause: " + e.Err.Error() + ")"
}

func (e *Error) Unwrap() error { return e.Err }

// Explain returns one sentence for err: the first *Error in its chain, a
// known cause, or else the error its failing constructor returned, without
// fx's dependency path.
func Explain(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Sentence()
	}
	var ns *serviceerror.NamespaceNotFound
	switch {
	case errors.As(err, &ns):
		return fmt.Sprintf("namespace %s does not exist: create it (temporal operator namespace create %s) or pass --namespace",
			ns.Namespace, ns.Namespace)
	case errors.Is(err, syscall.EADDRINUSE):
		return oneLine(dig.RootCause(err).Error()) + ": stop what listens there, or choose another address"
	}
	return oneLine(dig.RootCause(err).Error()) + " (run with -v for details)"
}

// Report prints err for the user of prog, one sentence unless verbose,
// and returns ExitCode.
func Report(w io.Writer, prog string, err error, verbose bool) int {
	if verbose {
		fmt.Fprintf(w, "%s: %v\n", prog, err)
	}
	fmt.Fprintf(w, "%s: %s\n", prog, Explain(err))
	return ExitCode
}

// Refuse prints err, already worded for the user (a flag or configuration
// error that says what to change), on one line and returns ExitCode.
func Refuse(w io.Writer, prog string, err error) int {
	fmt.Fprintf(w, "%s: %s\n", prog, oneLine(err.Error()))
	return ExitCode
}

// oneLine joins the lines of a multi-line error (errors.Join) with "; ".
func oneLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}
