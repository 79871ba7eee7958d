package agent

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

func TestDivergeFindsTheFirstMessageWhereTwoConversationsDiffer(t *testing.T) {
	user := func(s string) eventlog.Message { return eventlog.Message{Role: eventlog.RoleUser, Content: s} }
	call := func(args string) eventlog.Message {
		return eventlog.Message{Role: eventlog.RoleAssistant, ToolCalls: []eventlog.ToolCallRequest{{ID: "c1", Name: "echo", Arguments: json.RawMessage(args)}}}
	}
	result := func(id, s string) eventlog.Message {
		return eventlog.Message{Role: eventlog.RoleTool, ToolCallID: id, Content: s}
	}
	hi, bye := user("hi"), user("bye")
	for _, c := range []struct {
		name   string
		a, b   []eventlog.Message
		common int
		same   bool
	}{
		{"both empty", nil, nil, 0, true},
		{"one empty", nil, []eventlog.Message{hi}, 0, false},
		{"the same", []eventlog.Message{hi, bye}, []eventlog.Message{hi, bye}, 2, true},
		{"one goes on", []eventlog.Message{hi}, []eventlog.Message{hi, bye}, 1, false},
		{"the last differs", []eventlog.Message{hi, bye}, []eventlog.Message{hi, hi}, 1, false},
		{"the first differs", []eventlog.Message{bye, hi}, []eventlog.Message{hi, hi}, 0, false},
		{"a tool call's arguments", []eventlog.Message{hi, call(`{"a":1}`)}, []eventlog.Message{hi, call(`{"a":2}`)}, 1, false},
		{"the call a result answers", []eventlog.Message{result("c1", "ok")}, []eventlog.Message{result("c2", "ok")}, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Diverge(c.a, c.b)
			require.Equal(t, c.common, d.Common)
			require.Equal(t, c.same, d.Same())
			require.Len(t, d.A, len(c.a)-c.common)
			require.Len(t, d.B, len(c.b)-c.common)
			back := Diverge(c.b, c.a)
			require.Equal(t, d.Common, back.Common, "symmetric")
		})
	}
}
