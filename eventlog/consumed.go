package eventlog

// Progress is where an accepted message stands.
type Progress string

const (
	ProgressScheduled Progress = "scheduled" // waiting for its time (inbox/scheduled)
	ProgressPending   Progress = "pending"   // inserted, not yet claimed or discarded
	ProgressClaimed   Progress = "claimed"   // claimed by a turn that is still open
	ProgressDone      Progress = "done"      // its turn closed; TurnEnd says how
	ProgressDiscarded Progress = "discarded" // removed unclaimed; Discard says why
)

// Outcome is what became of one MessageID.
type Outcome struct {
	List     List           `json:"list"`
	Progress Progress       `json:"progress"`
	Turn     int            `json:"turn,omitempty"`
	TurnEnd  EndReason      `json:"turn_end,omitempty"`
	Discard  DiscardOutcome `json:"discard,omitempty"`
}

// ConsumedWork folds the log into the outcome of every MessageID it mentions
// (seed 003's foldConsumedWork). A message claimed by a turn that was retried
// follows the retry chain: its outcome is the terminal turn's.
func ConsumedWork(events []Event) map[MessageID]Outcome {
	out := map[MessageID]Outcome{}
	open := map[MessageID]bool{} // claimed by the open turn chain
	for _, e := range events {
		switch e := e.(type) {
		case MessageScheduled:
			out[e.MessageID] = Outcome{List: e.List, Progress: ProgressScheduled}
		case InboxInserted:
			out[e.MessageID] = Outcome{List: e.List, Progress: ProgressPending}
		case InboxClaimed:
			o := out[e.MessageID]
			o.List, o.Progress, o.Turn = e.List, ProgressClaimed, e.Turn
			out[e.MessageID] = o
			open[e.MessageID] = true
		case InboxDiscarded:
			o := out[e.MessageID]
			o.List, o.Progress, o.Discard = e.List, ProgressDiscarded, e.Outcome
			out[e.MessageID] = o
		case TurnStart:
			if e.RetryOf == 0 {
				clear(open) // a new chain: earlier claims are settled
			}
			for id := range open { // a retry turn reopens the failed turn's claims
				o := out[id]
				o.Progress, o.Turn, o.TurnEnd = ProgressClaimed, e.Turn, ""
				out[id] = o
			}
		case TurnEnd:
			closeTurn(out, open, e)
		case StepStart, StepEnd, SystemMessage, UserMessage, RuntimeContext, AssistantMessage, AssistantAttempt,
			ToolCall, ToolResult, StatusChanged, ContextPruned, ContextCompacted, ModelSelected, TurnCanceling,
			AgentDisposing, MaintenanceQueued, MaintenanceDone, RequestHeader, RequestContext, ChildStarted,
			ChildSettled, ChildEnded, DecisionRequested, DecisionMade, WaitStarted, ToolsListed, SessionStarted,
			SessionForked, SessionRewound:
		}
	}
	return out
}

// closeTurn settles the claims of the open chain. They stay in open so that a
// retry turn (a TurnStart with RetryOf) can reopen them.
func closeTurn(out map[MessageID]Outcome, open map[MessageID]bool, e TurnEnd) {
	for id := range open {
		o := out[id]
		o.Progress, o.TurnEnd = ProgressDone, e.Reason
		out[id] = o
	}
}
