package signals

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

func TestJournalRoundTripsEnvelopes(t *testing.T) {
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	envs := []eventlog.Envelope{
		{Seq: 7, At: at, Type: eventlog.TypeTurnStart, Data: json.RawMessage(`{"turn":2}`)},
		{Seq: 8, At: at.Add(1500 * time.Millisecond), Type: eventlog.TypeAssistantMessage, Ref: "act:model-2-1"},
		{Seq: 9, At: at.Add(2 * time.Second), Type: eventlog.TypeUserMessage, Ref: "msg:m1", Data: json.RawMessage(`{}`)},
	}
	j, err := NewJournal(envs)
	require.NoError(t, err)
	b, err := json.Marshal(j)
	require.NoError(t, err)
	require.JSONEq(t, `{"from":7,"at":1796025600000,"e":[["ts",0,"",[2]],["am",1500,"act:model-2-1"],["um",2000,"msg:m1",{}]]}`, string(b))
	var back Journal
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, envs, back.Envelopes())
}

func TestJournalWritesEveryTurnsEventsAsValuesAndReadsBothForms(t *testing.T) {
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	events := []eventlog.Event{
		eventlog.InboxInserted{List: eventlog.NextTurn, Wake: true},
		eventlog.InboxInserted{MessageID: "made-1-1", List: eventlog.NextStep, Content: "from a hook"},
		eventlog.InboxClaimed{MessageID: "m1", List: eventlog.NextTurn, Turn: 3},
		eventlog.StatusChanged{Status: eventlog.StatusRunning},
		eventlog.TurnStart{Turn: 3},
		eventlog.StepStart{Turn: 3, Step: 1, Model: "m"},
		eventlog.RequestHeader{Tools: []string{"a", "b"}},
		eventlog.RequestContext{Messages: 9, Tokens: 1232},
		eventlog.StepEnd{Turn: 3, Step: 1},
		eventlog.TurnEnd{Turn: 3, Reason: eventlog.EndFailed, Error: "boom"},
	}
	var envs []eventlog.Envelope
	for i, e := range events {
		env, err := eventlog.Encode(int64(i), at, "", e)
		require.NoError(t, err)
		envs = append(envs, env)
	}
	j, err := NewJournal(envs)
	require.NoError(t, err)
	b, err := json.Marshal(j)
	require.NoError(t, err)
	require.JSONEq(t, `{"from":0,"at":1796025600000,"e":[
		["ii",0,"",["next-turn",true]],
		["ii",0,"",["next-step",false,"made-1-1","from a hook"]],
		["ic",0,"",["m1","next-turn",3]],
		["st",0,"",["running"]],
		["ts",0,"",[3]],
		["ss",0,"",[3,1,null,"m"]],
		["rh",0,"",[null,null,null,null,["a","b"]]],
		["rx",0,"",[9,1232]],
		["se",0,"",[3,1]],
		["te",0,"",[3,"failed","boom"]]]}`, string(b))
	var back Journal
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, envs, back.Envelopes(), "the events' own data, byte for byte")

	var old JournalEntry
	require.NoError(t, json.Unmarshal([]byte(`["ic",0,"",{"message_id":"m1","list":"next-turn","turn":3}]`), &old))
	require.JSONEq(t, `{"message_id":"m1","list":"next-turn","turn":3}`, string(old.Data), "the object form still reads")
	require.Error(t, json.Unmarshal([]byte(`["se",0,"",[1,2,3]]`), &old), "more values than fields")
}

func TestJournalRejectsGapsAndMalformedEntries(t *testing.T) {
	_, err := NewJournal([]eventlog.Envelope{{Seq: 1}, {Seq: 3}})
	require.Error(t, err)
	var e JournalEntry
	require.Error(t, json.Unmarshal([]byte(`["only-type"]`), &e))
	require.Error(t, json.Unmarshal([]byte(`{"type":"x"}`), &e))
	require.True(t, Journal{}.IsZero())
}

func TestValidateMessage(t *testing.T) {
	big := make([]byte, MaxMessageBytes+1)
	for i := range big {
		big[i] = 'x'
	}
	cases := []struct {
		name string
		msg  Message
		want error
	}{
		{"ok", Message{ID: "m-1", Content: "hi"}, nil},
		{"empty", Message{ID: "m", Content: ""}, ErrEmptyMessage},
		{"blank", Message{ID: "m", Content: " \n\t"}, ErrEmptyMessage},
		{"too large", Message{ID: "m", Content: string(big)}, ErrMessageTooLarge},
		{"bad utf-8", Message{ID: "m", Content: "\xff"}, ErrInvalidUTF8},
		{"no id", Message{Content: "hi"}, ErrInvalidID},
		{"id with space", Message{ID: "a b", Content: "hi"}, ErrInvalidID},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateMessage(tc.msg)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
		})
	}
	require.ErrorIs(t, ValidateSend(Send{Message: Message{ID: "m", Content: "x"}, List: "later"}), ErrInvalidList)
	require.Equal(t, RejectDisposed, RejectionType(ErrDisposed))
	require.Equal(t, RejectInvalid, RejectionType(ErrEmptyMessage))
	require.ErrorIs(t, RejectionError(RejectDuplicate), ErrDuplicateID)
}

func TestJournalHasACodeForEveryTypeAndReadsFullNames(t *testing.T) {
	require.Len(t, journalCodes, len(eventlog.Types))
	require.Len(t, journalTypes, len(eventlog.Types), "codes are unique")
	var e JournalEntry
	require.NoError(t, json.Unmarshal([]byte(`["turn/end",5]`), &e))
	require.Equal(t, eventlog.TypeTurnEnd, e.Type)
	require.NoError(t, json.Unmarshal([]byte(`["te",5]`), &e))
	require.Equal(t, eventlog.TypeTurnEnd, e.Type)
	b, err := json.Marshal(JournalEntry{Type: eventlog.TypeMessageScheduled, Ref: "msg:m3",
		Data: json.RawMessage(`{"list":"next-turn","wake":true,"at":"2026-12-01T10:00:00Z"}`)})
	require.NoError(t, err)
	require.JSONEq(t, `["is",0,"msg:m3",{"list":"next-turn","wake":true,"at":"2026-12-01T10:00:00Z"}]`, string(b))
}

func TestIdleTailIsTheJournalOfATurnEndingOnAModelAnswer(t *testing.T) {
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	j, err := IdleTail(48, at, "model-3-2")
	require.NoError(t, err)
	b, err := json.Marshal(j)
	require.NoError(t, err)
	require.JSONEq(t, `{"from":48,"at":1796025600000,"e":[["am",0,"act:model-3-2"],["se",0,"",[3,2]],["te",0,"",[3,"completed"]],["st",0,"",["idle"]]]}`, string(b))
	again, err := IdleTail(48, at.Add(999*time.Microsecond), "model-3-2")
	require.NoError(t, err)
	require.True(t, j.Equal(again), "to the millisecond")
	other, err := IdleTail(48, at, "model-3-1")
	require.NoError(t, err)
	require.False(t, j.Equal(other))
	_, err = IdleTail(48, at, "tool-3-1-0")
	require.Error(t, err)
}
