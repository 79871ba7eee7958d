package cli

import "errors"

// ErrUsage marks a command line that could not be parsed.
var ErrUsage = errors.New("usage")

// errHelp is a request for the usage text.
var errHelp = errors.New("help")

// helpError is a request for one command's usage (-h or --help after the
// command): answered from Usage, exit 0, without a server.
type helpError struct{ command string }

func (h *helpError) Error() string { return h.command + ": help requested" }
