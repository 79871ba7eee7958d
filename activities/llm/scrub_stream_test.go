package llm

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// streamed runs text through Stream in pieces of the given sizes (cycled)
// and returns what reached the subscriber, concatenated, and the chunks.
func streamed(s Scrubber, text string, sizes []int, field func(string) Chunk) (string, []Chunk) {
	var got []Chunk
	emit, flush := s.Stream(func(c Chunk) { got = append(got, c) })
	for i, n := 0, 0; i < len(text); n++ {
		size := min(sizes[n%len(sizes)], len(text)-i)
		emit(field(text[i : i+size]))
		i += size
	}
	flush()
	var b strings.Builder
	for _, c := range got {
		b.WriteString(c.Text + c.Reasoning + c.Arguments)
	}
	return b.String(), got
}

func asText(s string) Chunk      { return Chunk{Text: s} }
func asReasoning(s string) Chunk { return Chunk{Reasoning: s} }
func asArguments(s string) Chunk { return Chunk{ToolIndex: 2, Arguments: s} }

// Issue 20: a model streams a key as a dozen tokens; no chunk, and no
// run of chunks, may spell it.
func TestStreamRemovesAKeySplitAcrossChunks(t *testing.T) {
	s := NewScrubber(replyKey)
	forms := map[string]string{
		"as is":                replyKey,
		"upper case":           strings.ToUpper(replyKey),
		"\\u-escaped":          every(replyKey, func(c byte) string { return fmt.Sprintf(`\u%04x`, c) }),
		"character references": every(replyKey, func(c byte) string { return fmt.Sprintf("&#%d;", c) }),
		"hex":                  fmt.Sprintf("%x", replyKey),
	}
	fields := map[string]func(string) Chunk{"text": asText, "reasoning": asReasoning, "arguments": asArguments}
	for name, form := range forms {
		for fieldName, field := range fields {
			for _, sizes := range [][]int{{1}, {2}, {3}, {4, 1, 7}, {5}, {11}} {
				text := "Here it is: " + form + " (keep it safe)"
				got, chunks := streamed(s, text, sizes, field)
				where := fmt.Sprintf("%s in %s, pieces %v", name, fieldName, sizes)
				require.Equal(t, "Here it is: "+Redacted+" (keep it safe)", got, where)
				for _, c := range chunks {
					require.NotContains(t, strings.ToLower(c.Text+c.Reasoning+c.Arguments), "ab12cd", where)
				}
			}
		}
	}
}

// Text without the key reaches the subscriber whole, in order, whatever
// its pieces; only what could begin the key waits for the next piece.
func TestStreamPassesOtherTextOnUnchanged(t *testing.T) {
	s := NewScrubber(replyKey)
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{
		"The capital of France is Paris.",
		`{"path":"notes/sk-other.txt","query":"s\u0073 &amp; %41 \x41 &#"}`,
		"ends with an unfinished escape \\u00",
		"ends with the key's start sk-proj-Ab",
		strings.Repeat("sk-proj-", 40),
	}
	for _, text := range texts {
		for range 20 {
			sizes := []int{1 + rng.IntN(6), 1 + rng.IntN(9)}
			got, chunks := streamed(s, text, sizes, asText)
			require.Equal(t, text, got, "pieces %v", sizes)
			for _, c := range chunks {
				require.NotEmpty(t, c.Text, "no empty chunk")
			}
		}
	}
	got, chunks := streamed(s, "Paris is lovely", []int{5}, asText)
	require.Equal(t, "Paris is lovely", got)
	require.Equal(t, []Chunk{{Text: "Pari"}, {Text: "s is l"}, {Text: "ovely"}}, chunks,
		`only the "s" that could begin the key waited`)
}

func TestStreamKeepsToolCallHeadersAndFlushesEachCallsArguments(t *testing.T) {
	s := NewScrubber(replyKey)
	var got []Chunk
	emit, flush := s.Stream(func(c Chunk) { got = append(got, c) })
	emit(Chunk{ToolIndex: 0, ToolID: "call_1", ToolName: "write"})
	emit(Chunk{ToolIndex: 0, Arguments: `{"k":"` + replyKey[:10]})
	emit(Chunk{ToolIndex: 1, ToolID: "call_2", ToolName: "read", Arguments: `{"p":"s`})
	emit(Chunk{ToolIndex: 0, Arguments: replyKey[10:] + `"}`})
	flush()
	require.Equal(t, []Chunk{
		{ToolIndex: 0, ToolID: "call_1", ToolName: "write"},
		{ToolIndex: 0, Arguments: `{"k":"`},
		{ToolIndex: 1, ToolID: "call_2", ToolName: "read", Arguments: `{"p":"`},
		{ToolIndex: 0, Arguments: `[redacted]"}`},
		{ToolIndex: 1, Arguments: `s`},
	}, got)
}

func TestStreamWithoutASecretPassesChunksThrough(t *testing.T) {
	var got []Chunk
	emit, flush := Scrubber{}.Stream(func(c Chunk) { got = append(got, c) })
	emit(Chunk{Text: "s"})
	flush()
	require.Equal(t, []Chunk{{Text: "s"}}, got)
}
