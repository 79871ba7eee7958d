package signals

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// Journal is the compact history form of consecutive session events in
// their stripped form (eventlog.Strip). Seq and time are given once for the
// batch; each entry is a JSON array [type, ms after At, ref, data] with
// trailing empty elements left out, and the data of the events every turn
// records is itself an array of values (journalpack.go). Every session event is journaled into
// history exactly once, so this is most of what Tether adds to a history
// beyond the content itself: it is kept small.
type Journal struct {
	From    int64          `json:"from"`
	At      int64          `json:"at"` // unix milliseconds of the first entry
	Entries []JournalEntry `json:"e"`
}

// JournalEntry is one stripped event of a Journal.
type JournalEntry struct {
	Type  eventlog.Type
	Delta int64 // milliseconds after Journal.At
	Ref   eventlog.Ref
	Data  json.RawMessage
}

// UnmarshalJSON reads a journal; every failure matches ErrMalformedJournal.
func (j *Journal) UnmarshalJSON(b []byte) error {
	type plain Journal // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformedJournal, err)
	}
	*j = Journal(p)
	return nil
}

// IsZero makes an empty journal disappear under `omitzero`.
func (j Journal) IsZero() bool { return len(j.Entries) == 0 }

// NewJournal packs consecutive envelopes (already stripped).
func NewJournal(envs []eventlog.Envelope) (Journal, error) {
	if len(envs) == 0 {
		return Journal{}, nil
	}
	j := Journal{From: envs[0].Seq, At: envs[0].At.UnixMilli(), Entries: make([]JournalEntry, len(envs))}
	for i, env := range envs {
		if env.Seq != j.From+int64(i) {
			return Journal{}, fmt.Errorf("journal: seq %d where %d belongs", env.Seq, j.From+int64(i))
		}
		j.Entries[i] = JournalEntry{Type: env.Type, Delta: env.At.UnixMilli() - j.At, Ref: env.Ref, Data: env.Data}
	}
	return j, nil
}

// Envelopes unpacks the journal.
func (j Journal) Envelopes() []eventlog.Envelope {
	out := make([]eventlog.Envelope, len(j.Entries))
	for i, e := range j.Entries {
		out[i] = eventlog.Envelope{
			Seq: j.From + int64(i), At: time.UnixMilli(j.At + e.Delta).UTC(), Type: e.Type, Ref: e.Ref, Data: e.Data,
		}
	}
	return out
}

// journalCodes are the short tags the journal writes for event types: the
// journal is most of what Tether adds to a history, so its framing is kept
// small. Readers accept the full type names too.
var journalCodes = map[eventlog.Type]string{
	eventlog.TypeInboxInserted: "ii", eventlog.TypeInboxClaimed: "ic", eventlog.TypeInboxDiscarded: "id",
	eventlog.TypeTurnStart: "ts", eventlog.TypeTurnEnd: "te", eventlog.TypeStepStart: "ss", eventlog.TypeStepEnd: "se",
	eventlog.TypeSystemMessage: "sm", eventlog.TypeUserMessage: "um", eventlog.TypeRuntimeContext: "rc",
	eventlog.TypeAssistantMessage: "am", eventlog.TypeAssistantAttempt: "aa", eventlog.TypeToolCall: "tc",
	eventlog.TypeToolResult: "tr", eventlog.TypeStatus: "st", eventlog.TypeContextPruned: "cp",
	eventlog.TypeContextCompacted: "cc", eventlog.TypeModelSelected: "mo", eventlog.TypeTurnCanceling: "tx",
	eventlog.TypeAgentDisposing: "dx", eventlog.TypeMaintenanceQueued: "mq", eventlog.TypeMaintenanceDone: "md",
	eventlog.TypeRequestHeader: "rh", eventlog.TypeRequestContext: "rx",
	eventlog.TypeChildStarted: "cs", eventlog.TypeChildSettled: "cx", eventlog.TypeChildEnded: "ce",
	eventlog.TypeDecisionRequested: "dq", eventlog.TypeDecisionMade: "dm", eventlog.TypeWaitStarted: "ws",
	eventlog.TypeToolsListed: "tl", eventlog.TypeMessageScheduled: "is", eventlog.TypeSessionStarted: "sx",
	eventlog.TypeSessionForked: "sf", eventlog.TypeSessionRewound: "sr",
}

// journalTypes is journalCodes reversed.
var journalTypes = func() map[string]eventlog.Type {
	m := make(map[string]eventlog.Type, len(journalCodes))
	for t, c := range journalCodes {
		m[c] = t
	}
	return m
}()

// MarshalJSON writes [type, delta, ref, data], dropping empty trailing parts.
func (e JournalEntry) MarshalJSON() ([]byte, error) {
	tag := string(e.Type)
	if c, ok := journalCodes[e.Type]; ok {
		tag = c
	}
	parts := []any{tag, e.Delta, e.Ref, packData(e.Type, e.Data)}
	switch {
	case len(e.Data) > 0:
	case e.Ref != "":
		parts = parts[:3]
	default:
		parts = parts[:2]
	}
	return json.Marshal(parts)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *JournalEntry) UnmarshalJSON(b []byte) error {
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("journal entry: %w", err)
	}
	if len(parts) < 2 || len(parts) > 4 {
		return fmt.Errorf("journal entry: %d parts", len(parts))
	}
	*e = JournalEntry{}
	if err := json.Unmarshal(parts[0], &e.Type); err != nil {
		return fmt.Errorf("journal entry type: %w", err)
	}
	if t, ok := journalTypes[string(e.Type)]; ok {
		e.Type = t
	}
	if err := json.Unmarshal(parts[1], &e.Delta); err != nil {
		return fmt.Errorf("journal entry time: %w", err)
	}
	if len(parts) > 2 {
		if err := json.Unmarshal(parts[2], &e.Ref); err != nil {
			return fmt.Errorf("journal entry ref: %w", err)
		}
	}
	if len(parts) > 3 {
		data, err := unpackData(e.Type, parts[3])
		if err != nil {
			return err
		}
		e.Data = data
	}
	return nil
}
