package loop

import "github.com/tetherdev/tether/signals"

// Carry is where history carries a Ready's journal, the one rule the shell
// follows: in the first of its commands whose payload history keeps whole
// (a model or summary activity's input, a tool activity's input, the
// Continue-As-New seed, the workflow result), which Carry returns with the
// journal in it; when none of them can carry it, Carry returns the
// commands as they are and the journal as left, for the shell to write
// after them as a marker (or not at all: workflows' plain idle tail). A
// local activity's input is not in history, so a local tool call carries
// nothing. The loop decides only when (Ready.Journal); this decides where,
// and it is pure, so the loop's tests play the shell by the same rule.
func Carry(rd Ready) (cmds []Command, left signals.Journal) {
	if rd.Journal.IsZero() {
		return rd.Commands, signals.Journal{}
	}
	for i, c := range rd.Commands {
		if c, ok := withJournal(c, rd.Journal); ok {
			cmds = append(cmds, rd.Commands[:i]...)
			cmds = append(cmds, c)
			return append(cmds, rd.Commands[i+1:]...), signals.Journal{}
		}
	}
	return rd.Commands, rd.Journal
}

// withJournal is c carrying j, if c has a journal slot that history keeps.
func withJournal(c Command, j signals.Journal) (Command, bool) {
	switch c := c.(type) {
	case CallModel:
		c.Input.Journal = j
		return c, true
	case Summarize:
		c.Input.Journal = j
		return c, true
	case StartTool:
		if c.Local {
			return c, false
		}
		c.Input.Journal = j
		return c, true
	case ContinueAsNew:
		c.Journal = j
		return c, true
	case Finish:
		c.Result.Journal = j
		return c, true
	default: // no payload history keeps
		return c, false
	}
}
