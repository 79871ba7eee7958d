package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// deliveryTime is when a message is to be delivered: --at (RFC 3339),
// --in (a duration from now), or now (zero) without either.
func deliveryTime(cmd, at string, in time.Duration, now time.Time) (time.Time, error) {
	switch {
	case at != "" && in != 0:
		return time.Time{}, fmt.Errorf("%w: %s: --at and --in exclude each other", ErrUsage, cmd)
	case in < 0:
		return time.Time{}, fmt.Errorf("%w: %s: --in must not be negative", ErrUsage, cmd)
	case in > 0:
		return now.Add(in), nil
	case at == "":
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %s: --at is not an RFC 3339 time (2026-12-01T10:00:00Z): %q", ErrUsage, cmd, at)
	}
	return t, nil
}

type send func(h *agent.Handle, ctx context.Context, content string, opts ...agent.SendOption) (signals.Ack, error)

func message(op send, name string) command {
	return func(s Starter, args []string) (action, error) {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		noAck := fs.Bool("no-ack", false, "")
		live := fs.Bool("stream", false, "")
		id := fs.String("message-id", "", "")
		at := fs.String("at", "", "")
		in := fs.Duration("in", 0, "")
		src := inputFlags(fs)
		pos, err := parseMessage(s, fs, args, src, "ID")
		if err != nil {
			return nil, err
		}
		when, err := deliveryTime(name, *at, *in, time.Now())
		if err != nil {
			return nil, err
		}
		opts := []agent.SendOption{agent.WithMessageID(eventlog.MessageID(*id)), agent.At(when)}
		if *noAck {
			opts = append(opts, agent.Unacknowledged())
		}
		return func(ctx context.Context, e env) error {
			h, err := e.agents.Attach(ctx, pos[0])
			if err != nil {
				return err
			}
			var from streamStart
			if *live { // before sending: a quick turn may be over before we look
				if from, err = nextTurn(ctx, h); err != nil {
					return err
				}
			}
			ack, err := op(h, ctx, pos[1], opts...)
			switch {
			case errors.Is(err, signals.ErrDuplicateID):
				// A resend of a delivered message: delivered once, so success.
				fmt.Fprintf(e.s.Err, "starter: message %s already delivered; not delivered again\n", *id)
				ack.MessageID = eventlog.MessageID(*id)
			case errors.Is(err, signals.ErrReusedID):
				return fmt.Errorf("message ID %s was used before for a different message, so this one is not delivered: "+
					"send it under a new --message-id (or none)", *id)
			case err != nil:
				return err
			}
			e.printf("%s\n", ack.MessageID)
			if *live {
				return streamUntilIdle(ctx, e, h, from)
			}
			return nil
		}, nil
	}
}

// input is where a command reads its message from instead of its last
// argument: --file PATH, or standard input (--stdin, or the argument -).
type input struct {
	file  *string
	stdin *bool
}

func inputFlags(fs *flag.FlagSet) input {
	return input{file: fs.String("file", "", ""), stdin: fs.Bool("stdin", false, "")}
}

// parseMessage parses a command whose last argument is MESSAGE, which
// --file, --stdin or the argument - replace: it returns names and the
// message, read and checked against signals.MaxMessageBytes.
func parseMessage(s Starter, fs *flag.FlagSet, args []string, in input, names ...string) ([]string, error) {
	names = append(names, "MESSAGE")
	pos, err := parseUpTo(fs, args, names)
	if err != nil {
		return nil, err
	}
	given := len(pos) == len(names)
	dash := given && pos[len(pos)-1] == "-"
	switch {
	case *in.file != "" && *in.stdin:
		return nil, fmt.Errorf("%w: %s: --file and --stdin exclude each other", ErrUsage, fs.Name())
	case (*in.file != "" || *in.stdin) && given && !dash:
		return nil, fmt.Errorf("%w: %s: give the message as an argument or with --file/--stdin, not both", ErrUsage, fs.Name())
	case *in.file == "" && !*in.stdin && !given:
		return nil, needs(fs, names)
	case *in.file == "" && !*in.stdin && !dash:
		return pos, nil
	}
	text, err := readMessage(s, *in.file)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUsage, fs.Name(), err)
	}
	return append(pos[:len(names)-1], text), nil
}

// readMessage reads a message from path, or from standard input when path
// is empty, refusing one over signals.MaxMessageBytes.
func readMessage(s Starter, path string) (string, error) {
	from, what := s.In, "standard input"
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("--file: %w", err)
		}
		defer f.Close()
		from, what = f, path
	}
	if from == nil {
		return "", errors.New("no standard input to read the message from")
	}
	b, err := io.ReadAll(io.LimitReader(from, signals.MaxMessageBytes+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("read the message from %s: %w", what, err)
	case len(b) > signals.MaxMessageBytes:
		return "", fmt.Errorf("the message in %s is over the limit of %d bytes (%d KiB)", what, signals.MaxMessageBytes, signals.MaxMessageBytes>>10)
	}
	return string(b), nil
}
