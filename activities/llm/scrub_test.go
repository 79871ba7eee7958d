package llm

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
