package loop

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Session start runs once per fresh agent under rules 4 that enabled a
// session-start hook, before anything else; what it injects reaches the
// first step; its errors are recorded and change nothing else.
func TestSessionStartRunsOnceBeforeTheFirstTurnAndCannotVeto(t *testing.T) {
	cases := []struct {
		name    string
		rules   Rules
		hooks   []string
		restore bool // a run continued as new from a fresh agent's seed
		during  func(d *driver)
		err     error
		// want: whether session-start ran, the errors it recorded, the
		// first step's batch, and what the log ends with.
		ran    bool
		errors []string
		batch  []eventlog.MessageID
	}{
		{name: "rules 4 with a hook: runs, its inject joins the first step", rules: Rules4, hooks: []string{"greeter"},
			during: func(d *driver) { d.step(Make{Content: "context", List: eventlog.NextStep}) },
			ran:    true, batch: []eventlog.MessageID{"made:0.1", "m1"}},
		{name: "a client's message sent meanwhile waits for the first turn", rules: Rules4, hooks: []string{"greeter"},
			during: func(d *driver) { d.inject("m2") }, ran: true, batch: []eventlog.MessageID{"m2", "m1"}},
		{name: "errors are recorded, one per hook, and the turn opens", rules: Rules4, hooks: []string{"a", "b"},
			err: errors.Join(errors.New("hook a failed at session-start: x"), errors.New("hook b panicked at session-start: y")),
			ran: true, errors: []string{"hook a failed at session-start: x", "hook b panicked at session-start: y"},
			batch: []eventlog.MessageID{"m1"}},
		{name: "a single error", rules: Rules4, hooks: []string{"a"}, err: errors.New("boom"),
			ran: true, errors: []string{"boom"}, batch: []eventlog.MessageID{"m1"}},
		{name: "zero rules mean Latest", hooks: []string{"greeter"}, ran: true, batch: []eventlog.MessageID{"m1"}},
		{name: "rules 3 never run it", rules: Rules3, hooks: []string{"greeter"}, batch: []eventlog.MessageID{"m1"}},
		{name: "no session-start hook, no event", rules: Rules4, batch: []eventlog.MessageID{"m1"}},
		{name: "a continued run does not run it again", rules: Rules4, hooks: []string{"greeter"}, restore: true,
			batch: []eventlog.MessageID{"m1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{AgentID: "a1", Rules: tc.rules, SessionStart: tc.hooks}
			l := New(cfg)
			if tc.restore {
				seed := startedSeed(t, cfg)
				require.True(t, seed.State.SessionStarted, "the seed carries the start")
				l = Restore(cfg, seed)
			}
			d := &driver{t: t, l: l, now: t0}
			d.followup("m1")
			rd := d.l.Step(d.now, Resume{})
			if tc.ran {
				require.Equal(t, []Command{RunHooks{Point: PointSessionStart}}, rd.Commands, "nothing before session-start")
				require.False(t, d.l.Due(), "the loop waits for the hooks")
				require.False(t, d.l.AtBoundary(), "no Continue-As-New while they run")
				if tc.during != nil {
					tc.during(d)
				}
				require.Zero(t, d.l.State().Turn, "no turn opens while they run")
				d.step(HooksRan{Point: PointSessionStart, Err: tc.err})
			} else {
				d.handle(rd.Commands)
			}
			d.requireOK()
			started := only[eventlog.SessionStarted](d.events())
			if !tc.ran {
				require.Empty(t, started)
				require.NotContains(t, d.seen, RunHooks{Point: PointSessionStart})
			} else {
				require.Equal(t, []eventlog.SessionStarted{{Hooks: tc.hooks, Errors: tc.errors}}, started)
				require.True(t, d.l.State().SessionStarted)
			}
			decided := seen[DecidePreStep](d)
			require.Len(t, decided, 1, "the first turn's step was proposed")
			var ids []eventlog.MessageID
			for _, m := range decided[0].Batch {
				ids = append(ids, m.ID)
			}
			require.Equal(t, tc.batch, ids)
			require.Len(t, inFlight[CallModel](d), 1, "the first step calls the model")
		})
	}
}

// startedSeed is the seed of a fresh agent whose session started and whose
// first turn completed: what the next run after Continue-As-New restores.
func startedSeed(t *testing.T, cfg Config) signals.Seed {
	t.Helper()
	d := &driver{t: t, l: New(cfg), now: t0}
	d.followup("m0")
	d.resume()
	d.answerModel(answer("hi"))
	d.requireOK()
	require.Len(t, only[eventlog.SessionStarted](d.events()), 1)
	seed, err := d.l.Seed()
	require.NoError(t, err)
	return seed
}

// A dispose that arrives while the hooks run finishes the agent after they
// did; it never skips them.
func TestSessionStartRunsBeforeADisposeFinishesTheAgent(t *testing.T) {
	d := &driver{t: t, l: New(Config{AgentID: "a1", SessionStart: []string{"greeter"}}), now: t0}
	require.Equal(t, []Command{RunHooks{Point: PointSessionStart}}, d.l.Step(d.now, Resume{}).Commands)
	d.step(Dispose{Cause: "done"})
	d.step(HooksRan{Point: PointSessionStart})
	d.requireOK()
	require.Equal(t, []eventlog.Type{eventlog.TypeAgentDisposing, eventlog.TypeSessionStarted}, d.types())
	require.Len(t, seen[Finish](d), 1)
}

// An answer to session-start in another phase is a bug in the shell: the
// run fails with the phase named.
func TestSessionStartOutcomeOutOfPhaseFailsTheRun(t *testing.T) {
	l := New(Config{AgentID: "a1", Rules: Rules4})
	rd := l.Step(t0, HooksRan{Point: PointSessionStart})
	require.ErrorIs(t, l.Err(), eventlog.ErrInvalidTransition)
	require.ErrorContains(t, l.Err(), "in phase idle")
	require.IsType(t, Fail{}, rd.Commands[0])
}
