// Command starter creates, drives and lists Tether agents: start, followup,
// steer, inject, cancel, status, wait, log, compact, dispose and ls. See
// `starter` with no arguments for usage.
package main

import (
	"context"
	"os"
	"os/signal"

	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Starter{Out: os.Stdout, Err: os.Stderr, In: os.Stdin, Dial: client.DialContext, Env: os.Getenv}.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
