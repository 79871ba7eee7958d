package llm

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

// scrubKey has the characters URL, JSON and base64 encodings change.
const scrubKey = `sk-proj-Ab+/c=d?&<e>"f\g 0123456789xyzSECRET`

func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// echo is how a server might write the key back: form (the key in some
// text encoding) between before and after, all optionally base64-encoded.
type echo struct {
	before, form, after string
	base64              func([]byte) string
}

// keyWindows are the 16-character windows of the echo's text that encode
// only bytes of form: none of them may survive scrubbing.
func (e echo) keyWindows() (text string, windows []string) {
	plain := e.before + e.form + e.after
	lo, hi := len(e.before), len(e.before)+len(e.form)
	if e.base64 == nil {
		for i := lo; i+16 <= hi; i++ {
			windows = append(windows, plain[i:i+16])
		}
		return plain, windows
	}
	text = e.base64([]byte(plain))
	for i := 0; i+16 <= len(text); i++ {
		first, last := i*3/4, (i+16)*3/4+1 // bytes the window's characters depend on
		if first >= lo && last <= hi {
			windows = append(windows, text[i:i+16])
		}
	}
	return text, windows
}

// Issue 10: a key echoed back encoded is still the key.
func TestScrubberRemovesTheKeyInEncodedForms(t *testing.T) {
	std, raw := base64.StdEncoding.EncodeToString, base64.RawURLEncoding.EncodeToString
	cases := map[string]echo{
		"as is":                       {form: scrubKey},
		"query-escaped":               {before: "?key=", form: url.QueryEscape(scrubKey)},
		"path-escaped":                {before: "/keys/", form: url.PathEscape(scrubKey)},
		"JSON-escaped":                {before: `{"key":"`, form: jsonEscaped(scrubKey), after: `"}`},
		"JSON-escaped with \\/":       {form: strings.ReplaceAll(jsonEscaped(scrubKey), "/", `\/`)},
		"base64":                      {form: scrubKey, base64: std},
		"base64 Basic credentials":    {before: "user:", form: scrubKey, base64: std},
		"base64 Bearer header":        {before: "Bearer ", form: scrubKey, base64: std},
		"URL-safe base64, no padding": {before: "x", form: scrubKey, after: "yz", base64: raw},
		"base64 of a JSON body":       {before: `{"api_key":"`, form: jsonEscaped(scrubKey), after: `"}`, base64: std},
		"base64 of a query":           {before: "a=1&key=", form: url.QueryEscape(scrubKey), base64: raw},
	}
	s := NewScrubber(scrubKey)
	for name, e := range cases {
		t.Run(name, func(t *testing.T) {
			text, windows := e.keyWindows()
			require.NotEmpty(t, windows)
			out := s.String("proxy echoed " + text + " back")
			require.Contains(t, out, Redacted)
			require.True(t, strings.HasPrefix(out, "proxy echoed ") && strings.HasSuffix(out, " back"), out)
			for _, w := range windows {
				require.NotContains(t, out, w, out)
			}
		})
	}
}

func TestScrubberLeavesOtherTextAlone(t *testing.T) {
	s := NewScrubber(scrubKey)
	text := `{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}} c2stcHJvag==`
	require.Equal(t, text, s.String(text))
	short := NewScrubber("abc")
	require.Equal(t, "[redacted] YWJj", short.String("abc YWJj"), "a short key's encodings are too common to scrub")
}

// replyKey is a key as providers issue them: letters, digits and dashes.
const replyKey = "sk-proj-Ab12Cd34Ef56Gh78"

// every writes each byte of s with f.
func every(s string, f func(c byte) string) string {
	var b strings.Builder
	for i := range len(s) {
		b.WriteString(f(s[i]))
	}
	return b.String()
}

// Issue 20: the forms a key takes in a model's reply or an error body
// beyond those of issue 10, whole and mixed with plain characters.
func TestScrubberRemovesEscapedCasedAndHexForms(t *testing.T) {
	u := func(c byte) string { return fmt.Sprintf(`\u%04x`, c) }
	cases := map[string]string{
		"\\u-escaped first character":  `\u0073` + replyKey[1:],
		"\\u-escaped, upper-case hex":  every(replyKey, func(c byte) string { return fmt.Sprintf(`\u%04X`, c) }),
		"\\u-escaped every character":  every(replyKey, u),
		"\\x-escaped":                  every(replyKey, func(c byte) string { return fmt.Sprintf(`\x%02x`, c) }),
		"decimal character references": every(replyKey, func(c byte) string { return fmt.Sprintf("&#%d;", c) }),
		"hex character references":     every(replyKey, func(c byte) string { return fmt.Sprintf("&#x%x;", c) }),
		"padded character references":  every(replyKey, func(c byte) string { return fmt.Sprintf("&#X%04X;", c) }),
		"one character reference":      "&#115;" + replyKey[1:],
		"percent-escaped every byte":   every(replyKey, func(c byte) string { return fmt.Sprintf("%%%02X", c) }),
		"upper case":                   strings.ToUpper(replyKey),
		"lower case":                   strings.ToLower(replyKey),
		"mixed case and escapes":       `SK\u002dPROJ-&#97;B12cd34EF56gh78`,
		"mixed case":                   "sK-PrOj-aB12cD34eF56gH78",
		"hex":                          hex.EncodeToString([]byte(replyKey)),
		"upper-case hex":               strings.ToUpper(hex.EncodeToString([]byte(replyKey))),
		"base64 of upper case":         base64.StdEncoding.EncodeToString([]byte(strings.ToUpper(replyKey))),
	}
	s := NewScrubber(replyKey)
	for name, form := range cases {
		t.Run(name, func(t *testing.T) {
			out := s.String("the key is " + form + ", keep it safe")
			require.Equal(t, "the key is "+Redacted+", keep it safe", out)
		})
	}
}

func TestScrubberLeavesEscapesOfOtherTextAlone(t *testing.T) {
	s := NewScrubber(replyKey)
	for _, text := range []string{
		`{"msg":"caf\u00e9 &amp; &#115;k-proj %41 \x41"}`,
		strings.ToUpper(replyKey[:len(replyKey)-1]) + "!", // one character short
		`\\u0073` + replyKey[1:] + "x",                    // backslash then "u0073": not an escape of s
		hex.EncodeToString([]byte(replyKey))[1:],          // hex out of step
	} {
		require.Equal(t, text, s.String(text))
	}
}

// A key in a reply: text, model name, tool call IDs, names and arguments.
func TestScrubberMessageRemovesTheKeyFromEveryField(t *testing.T) {
	s := NewScrubber(replyKey)
	in := eventlog.AssistantMessage{
		Text:  "Your key is " + replyKey,
		Model: "proxy-" + replyKey,
		ToolCalls: []eventlog.ToolCallRequest{
			{ID: "call_" + replyKey, Name: "write_file", Arguments: json.RawMessage(`{"path":"a.env","content":"KEY=\u0073` + replyKey[1:] + `\n"}`)},
			{ID: replyKey, Name: replyKey, Arguments: json.RawMessage(`{"` + replyKey + `":1}`)},
			{ID: "call_" + strings.ToUpper(replyKey), Name: "x", Arguments: json.RawMessage(`"` + every(replyKey, func(c byte) string { return fmt.Sprintf("&#%d;", c) }) + `"`)},
		},
		FinishReason: eventlog.FinishToolCalls,
	}
	out := s.Message(in)
	b, err := json.Marshal(out)
	require.NoError(t, err)
	require.NotContains(t, strings.ToLower(string(b)), "ab12cd34", string(b))
	require.Equal(t, "Your key is "+Redacted, out.Text)
	require.JSONEq(t, `{"path":"a.env","content":"KEY=[redacted]\n"}`, string(out.ToolCalls[0].Arguments))
	require.JSONEq(t, `{"[redacted]":1}`, string(out.ToolCalls[1].Arguments))
	ids := map[string]bool{}
	for _, c := range out.ToolCalls {
		require.False(t, ids[c.ID], "tool call IDs stay unique: %v", out.ToolCalls)
		ids[c.ID] = true
	}
	require.Equal(t, "Your key is "+replyKey, in.Text, "the input is not modified")
	require.Contains(t, string(in.ToolCalls[0].Arguments), replyKey[1:])
}

// A key whose quotes would break JSON when redacted as text: the
// arguments are scrubbed string by string instead and stay valid JSON.
func TestScrubberArgumentsStayValidJSON(t *testing.T) {
	key := `a":"b12345`
	s := NewScrubber(key)
	m := s.Message(eventlog.AssistantMessage{ToolCalls: []eventlog.ToolCallRequest{
		{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a":"b12345"}`)},
		{ID: "c2", Name: "f", Arguments: json.RawMessage(`{"x":"a\":\"b12345"}`)},
	}})
	require.JSONEq(t, `{"a":"b12345"}`, string(m.ToolCalls[0].Arguments), "two strings that only look like the key as text")
	require.JSONEq(t, `{"x":"[redacted]"}`, string(m.ToolCalls[1].Arguments))
}
