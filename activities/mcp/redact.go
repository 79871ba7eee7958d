package mcp

import (
	"net/url"
	"regexp"
)

// urlInText finds URLs in the text of an error, as Go's HTTP client quotes
// them (Post "https://host/mcp?token=…": dial tcp …).
var urlInText = regexp.MustCompile(`https?://[^\s"'<>]+`)

// redact drops what a URL in an error's text may hold of a secret: its
// user info, query and fragment. A token passed in a server's URL then
// never reaches the session log, the history or the worker's log, where
// listing errors, error results and retried faults go.
func redact(s string) string {
	return urlInText.ReplaceAllStringFunc(s, func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			return "<url>"
		}
		if u.User == nil && u.RawQuery == "" && u.Fragment == "" && !u.ForceQuery {
			return raw
		}
		u.User, u.RawQuery, u.Fragment, u.ForceQuery = nil, "", "", false
		return u.String() + "?…"
	})
}

// redacted is an error whose text is redacted; errors.Is and As still see
// what it wraps.
type redacted struct{ err error }

func (r redacted) Error() string { return redact(r.err.Error()) }
func (r redacted) Unwrap() error { return r.err }
