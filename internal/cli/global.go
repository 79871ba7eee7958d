package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/tetherdev/tether/signals"
)

// global is the command line before the command's own flags.
type global struct {
	address, namespace, taskQueue string
	// streamCA is a PEM file of CAs trusted for workers' live token streams.
	streamCA string
	// verbose prints whole errors, not only the sentence that explains them.
	verbose bool
	// noAttrs starts agents without Tether's search attributes, for a
	// namespace without them (workers run with --no-search-attributes).
	noAttrs bool
	command string
	args    []string
}

// parseGlobal reads the connection flags and the command name.
func parseGlobal(args []string) (global, error) {
	g := global{}
	fs := flag.NewFlagSet("starter", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&g.address, "address", "", "")
	fs.StringVar(&g.namespace, "namespace", "", "")
	fs.StringVar(&g.taskQueue, "task-queue", signals.TaskQueue, "")
	fs.StringVar(&g.streamCA, "stream-ca", "", "")
	fs.BoolVar(&g.verbose, "v", false, "")
	fs.BoolVar(&g.verbose, "verbose", false, "")
	fs.BoolVar(&g.noAttrs, "no-search-attributes", false, "")
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return g, errHelp
	case err != nil:
		return g, fmt.Errorf("%w: %v", ErrUsage, err)
	case fs.NArg() == 0:
		return g, errNoCommand
	case fs.Arg(0) == "help":
		return g, errHelp
	}
	g.command, g.args = fs.Arg(0), fs.Args()[1:]
	return g, nil
}
