package llm_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

func call(id, name, args string) eventlog.ToolCallRequest {
	return eventlog.ToolCallRequest{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func ids(calls []eventlog.ToolCallRequest) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.ID
	}
	return out
}

func TestNormalizeToolCallsGivesEveryCallItsOwnID(t *testing.T) {
	long := strings.Repeat("x", llm.MaxToolCallIDBytes+1)
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"unique ids are kept", []string{"call_a", "call_b"}, []string{"call_a", "call_b"}},
		{"empty ids get their index", []string{"", ""}, []string{"call_0", "call_1"}},
		{"a repeated id gets the repeat's index", []string{"x", "x", "x"}, []string{"x", "x_1", "x_2"}},
		{"a generated id never takes a real one", []string{"", "call_0"}, []string{"call_0_1", "call_0"}},
		{"a suffix never takes a real one", []string{"x", "x", "x_1"}, []string{"x", "call_1", "x_1"}},
		{"overlong ids are replaced", []string{long, long}, []string{"call_0", "call_1"}},
		{"ids with spaces or control bytes are replaced", []string{"a b", "a\nb", "naïve"}, []string{"call_0", "call_1", "call_2"}},
		{"the longest valid id is kept", []string{long[1:]}, []string{long[1:]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []eventlog.ToolCallRequest
			for _, id := range tt.in {
				calls = append(calls, call(id, "f", `{}`))
			}
			got := llm.NormalizeToolCalls(calls)
			require.Equal(t, tt.want, ids(got))
			require.Equal(t, tt.in, ids(calls), "the input is not modified")
			require.Equal(t, got, llm.NormalizeToolCalls(got), "normalising twice changes nothing")
		})
	}
	require.Empty(t, llm.NormalizeToolCalls(nil))
}

func TestNormalizeToolCallsCutsNamesNoToolCanHave(t *testing.T) {
	got := llm.NormalizeToolCalls([]eventlog.ToolCallRequest{call("c", strings.Repeat("n", 1<<20), `{}`)})
	require.Equal(t, strings.Repeat("n", llm.MaxToolNameBytes)+"…", got[0].Name)
}

func encoded(t *testing.T, m eventlog.AssistantMessage) int {
	t.Helper()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return len(b)
}

func TestBoundKeepsAReplyWithinItsLimitSayingWhatWasCut(t *testing.T) {
	big := func(n int, ch string) string { return strings.Repeat(ch, n) }
	args := func(n int) string { return `{"text":"` + big(n, "a") + `"}` }
	tests := []struct {
		name       string
		in         eventlog.AssistantMessage
		textCut    bool
		dropped    []int // indexes of calls whose arguments are dropped
		wantText   string
		wantNotice string
	}{
		{name: "a small reply is unchanged", in: eventlog.AssistantMessage{Text: "hi", ToolCalls: []eventlog.ToolCallRequest{call("c", "f", `{"a":1}`)}}, wantText: "hi"},
		{name: "an empty reply is unchanged", in: eventlog.AssistantMessage{}, wantText: ""},
		{name: "3 MB of text is cut", in: eventlog.AssistantMessage{Text: big(3<<20, "a")}, textCut: true,
			wantNotice: fmt.Sprintf("of %d bytes kept; a reply may be at most %d bytes]", 3<<20, llm.MaxReplyBytes)},
		{name: "text of HTML characters is cut by its JSON size", in: eventlog.AssistantMessage{Text: big(1<<20, "<")}, textCut: true},
		{name: "oversize arguments are dropped", in: eventlog.AssistantMessage{Text: "ok", ToolCalls: []eventlog.ToolCallRequest{
			call("c0", "f", args(3<<20)), call("c1", "f", `{}`)}}, dropped: []int{0}, wantText: "ok"},
		{name: "calls that fit one by one but not together lose the largest", in: eventlog.AssistantMessage{ToolCalls: []eventlog.ToolCallRequest{
			call("c0", "f", args(200<<10)), call("c1", "f", args(250<<10)), call("c2", "f", args(200<<10)),
			call("c3", "f", args(240<<10)), call("c4", "f", args(200<<10))}}, dropped: []int{1}},
		{name: "arguments that are not JSON are kept as a JSON string", in: eventlog.AssistantMessage{ToolCalls: []eventlog.ToolCallRequest{
			call("c0", "f", `{not json`)}}},
		{name: "too many calls keep the first ones", in: eventlog.AssistantMessage{ToolCalls: make([]eventlog.ToolCallRequest, llm.MaxToolCalls+5)},
			wantNotice: "[5 more tool calls dropped: at most 128 in one reply]"},
		{name: "a huge model name is cut", in: eventlog.AssistantMessage{Model: big(3<<20, "m")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := llm.Bound(tt.in)
			require.LessOrEqual(t, encoded(t, got), llm.MaxReplyBytes)
			if tt.wantText != "" || (!tt.textCut && tt.wantNotice == "") {
				require.Equal(t, tt.wantText, got.Text)
			}
			if tt.textCut {
				require.Contains(t, got.Text, "\n[reply cut: ")
				require.Greater(t, encoded(t, got), llm.MaxReplyBytes-4096, "the cut keeps what fits")
			}
			require.Contains(t, got.Text, tt.wantNotice)
			for i, c := range got.ToolCalls {
				n, limit, dropped := llm.DroppedArguments(c.Arguments)
				require.Equal(t, contains(tt.dropped, i), dropped, "call %d", i)
				if dropped {
					require.Equal(t, llm.MaxArgumentsBytes, limit)
					require.Equal(t, len(tt.in.ToolCalls[i].Arguments), n)
				}
				require.True(t, json.Valid(c.Arguments), "call %d", i)
			}
			require.LessOrEqual(t, len(got.ToolCalls), llm.MaxToolCalls)
			require.LessOrEqual(t, len(got.Model), llm.MaxModelNameBytes+len("…"))
			require.Equal(t, got, llm.Bound(got), "bounding twice changes nothing")
		})
	}
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestDroppedArgumentsRecognisesOnlyItsOwnMarker(t *testing.T) {
	marker := llm.Bound(eventlog.AssistantMessage{ToolCalls: []eventlog.ToolCallRequest{
		call("c", "f", `"`+strings.Repeat("a", llm.MaxArgumentsBytes)+`"`)}}).ToolCalls[0].Arguments
	n, limit, ok := llm.DroppedArguments(marker)
	require.True(t, ok)
	require.Equal(t, llm.MaxArgumentsBytes+2, n)
	require.Equal(t, llm.MaxArgumentsBytes, limit)
	for _, args := range []string{``, `{}`, `null`, `{"tether_dropped_arguments":1}`, `"tether_dropped_arguments"`,
		`{"tether_dropped_arguments":{"bytes":1,"limit":2},"path":"x"}`, `{"tether_dropped_arguments"`} {
		_, _, ok := llm.DroppedArguments(json.RawMessage(args))
		require.False(t, ok, args)
	}
	require.Contains(t, llm.DroppedNotice(n, limit), "call it again with smaller arguments")
}

func TestEncodedLenIsTheJSONSizeOfAString(t *testing.T) {
	for _, s := range []string{"", "plain", `"quoted" \ back`, "\n\t\r\b\f", "\x00\x01\x1f\x7f", "<a href='x'>&amp;</a>",
		"naïve 😀", "\u2028\u2029", "bad \xff\xfe utf8", "cut \xe2\x82", strings.Repeat("<", 1000)} {
		b, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, len(b)-2, llm.EncodedLen(s), "%q", s)
		for budget := 0; budget <= len(b); budget++ {
			n := llm.CutEncoded(s, budget)
			require.LessOrEqual(t, llm.EncodedLen(s[:n]), budget, "%q at %d", s, budget)
			if n < len(s) {
				next := n + 1
				for next < len(s) && !utf8.RuneStart(s[next]) {
					next++
				}
				require.Greater(t, llm.EncodedLen(s[:next]), budget, "%q at %d: the cut keeps all that fits", s, budget)
			}
		}
	}
}
