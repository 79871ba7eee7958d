package eventlog

import (
	"encoding/json"
	"fmt"
	"time"
)

// Envelope is the persisted form of an Event: a sequence number that is
// gap-free across the agent's whole chain of runs, the workflow time it was
// recorded at, its type tag and its JSON data.
//
// Ref, when set, names the Temporal history fact that already carries the
// event's content (see Source). A journal copy of the envelope carries Ref
// instead of Data so that no content is written to history twice.
type Envelope struct {
	Seq  int64           `json:"seq"`
	At   time.Time       `json:"at"`
	Type Type            `json:"type"`
	Ref  Ref             `json:"ref,omitempty"`
	Data json.RawMessage `json:"data,omitempty"`
}

// Encode wraps e in an envelope. Times are kept to the millisecond.
func Encode(seq int64, at time.Time, ref Ref, e Event) (Envelope, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return Envelope{}, fmt.Errorf("encode %s (seq %d): %w", e.Type(), seq, err)
	}
	return Envelope{Seq: seq, At: at.UTC().Truncate(time.Millisecond), Type: e.Type(), Ref: ref, Data: data}, nil
}

// Journal returns the copy of env that is written to history: data is dropped
// when a reference says where history already holds it.
func (env Envelope) Journal() Envelope {
	if env.Ref != "" {
		env.Data = nil
	}
	return env
}

// Decode returns the typed event inside env. It knows every type; an unknown
// tag fails with ErrUnknownType, stripped data with ErrNoData, data that is
// not its type's event with ErrMalformed.
func Decode(env Envelope) (Event, error) {
	switch env.Type {
	case TypeInboxInserted:
		return decodeAs[InboxInserted](env)
	case TypeInboxClaimed:
		return decodeAs[InboxClaimed](env)
	case TypeInboxDiscarded:
		return decodeAs[InboxDiscarded](env)
	case TypeTurnStart:
		return decodeAs[TurnStart](env)
	case TypeTurnEnd:
		return decodeAs[TurnEnd](env)
	case TypeStepStart:
		return decodeAs[StepStart](env)
	case TypeStepEnd:
		return decodeAs[StepEnd](env)
	case TypeSystemMessage:
		return decodeAs[SystemMessage](env)
	case TypeUserMessage:
		return decodeAs[UserMessage](env)
	case TypeRuntimeContext:
		return decodeAs[RuntimeContext](env)
	case TypeAssistantMessage:
		return decodeAs[AssistantMessage](env)
	case TypeAssistantAttempt:
		return decodeAs[AssistantAttempt](env)
	case TypeToolCall:
		return decodeAs[ToolCall](env)
	case TypeToolResult:
		return decodeAs[ToolResult](env)
	case TypeStatus:
		return decodeAs[StatusChanged](env)
	case TypeContextPruned:
		return decodeAs[ContextPruned](env)
	case TypeContextCompacted:
		return decodeAs[ContextCompacted](env)
	case TypeModelSelected:
		return decodeAs[ModelSelected](env)
	case TypeTurnCanceling:
		return decodeAs[TurnCanceling](env)
	case TypeAgentDisposing:
		return decodeAs[AgentDisposing](env)
	case TypeMaintenanceQueued:
		return decodeAs[MaintenanceQueued](env)
	case TypeMaintenanceDone:
		return decodeAs[MaintenanceDone](env)
	case TypeRequestHeader:
		return decodeAs[RequestHeader](env)
	case TypeRequestContext:
		return decodeAs[RequestContext](env)
	case TypeChildStarted:
		return decodeAs[ChildStarted](env)
	case TypeChildSettled:
		return decodeAs[ChildSettled](env)
	case TypeChildEnded:
		return decodeAs[ChildEnded](env)
	case TypeDecisionRequested:
		return decodeAs[DecisionRequested](env)
	case TypeDecisionMade:
		return decodeAs[DecisionMade](env)
	case TypeWaitStarted:
		return decodeAs[WaitStarted](env)
	case TypeToolsListed:
		return decodeAs[ToolsListed](env)
	case TypeMessageScheduled:
		return decodeAs[MessageScheduled](env)
	case TypeSessionStarted:
		return decodeAs[SessionStarted](env)
	case TypeSessionForked:
		return decodeAs[SessionForked](env)
	case TypeSessionRewound:
		return decodeAs[SessionRewound](env)
	default:
		return nil, fmt.Errorf("%w: %q (seq %d)", ErrUnknownType, env.Type, env.Seq)
	}
}

func decodeAs[E Event](env Envelope) (Event, error) {
	var e E
	if len(env.Data) == 0 {
		return nil, fmt.Errorf("%w: %s (seq %d)", ErrNoData, env.Type, env.Seq)
	}
	if err := json.Unmarshal(env.Data, &e); err != nil {
		return nil, fmt.Errorf("%w: decode %s (seq %d): %w", ErrMalformed, env.Type, env.Seq, err)
	}
	return e, nil
}

// DecodeAll decodes a log in order.
func DecodeAll(envs []Envelope) ([]Event, error) {
	out := make([]Event, 0, len(envs))
	for _, env := range envs {
		e, err := Decode(env)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
