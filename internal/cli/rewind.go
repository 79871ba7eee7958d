package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/tetherdev/tether/agent"
)

// rewind is `starter rewind ID --to-turn K [--by NAME]`: the idle agent
// back at the end of turn K (agent.Handle.Rewind); the turns after it stay
// in its log, rewound past.
func rewind(_ Starter, args []string) (action, error) {
	fs := flag.NewFlagSet("rewind", flag.ContinueOnError)
	to := fs.Int("to-turn", -1, "")
	by := fs.String("by", "", "")
	pos, err := parse(fs, args, "ID")
	if err != nil {
		return nil, err
	}
	if *to < 0 {
		return nil, fmt.Errorf("%w: rewind needs --to-turn K, a turn that ended (0: the agent's start; starter log ID shows the turns)", ErrUsage)
	}
	return func(ctx context.Context, e env) error {
		h, err := e.agents.Attach(ctx, pos[0])
		if err != nil {
			return err
		}
		r, err := h.Rewind(ctx, *to, agent.RewoundBy(*by))
		if err != nil {
			return err
		}
		if r.Seq < 0 {
			e.printf("%s already stands at the end of turn %d: nothing recorded\n", pos[0], r.Turn)
			return nil
		}
		past := fmt.Sprintf("turns %d to %d stay", r.Turn+1, r.Past)
		if r.Past == r.Turn+1 {
			past = fmt.Sprintf("turn %d stays", r.Past)
		}
		e.printf("%s rewound to the end of turn %d (%s in its log, rewound past); the conversation keeps %d messages\n",
			pos[0], r.Turn, past, r.Keep)
		return nil
	}, nil
}
