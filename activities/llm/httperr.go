package llm

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Redacted replaces a secret in text a server or the network stack wrote.
const Redacted = "[redacted]"

// Scrubber removes one secret (an API key) from error text. The zero value
// removes nothing.
type Scrubber struct{ secret string }

// NewScrubber scrubs secret.
func NewScrubber(secret string) Scrubber { return Scrubber{secret: secret} }

// String returns s without the secret.
func (s Scrubber) String(text string) string {
	if s.secret == "" {
		return text
	}
	return strings.ReplaceAll(text, s.secret, Redacted)
}

// Err returns err with its text scrubbed, still unwrapping to err (so
// errors.Is sees context errors). The result does not hold the secret, so
// even a %#v print of it is safe.
func (s Scrubber) Err(err error) error {
	if s.secret == "" || err == nil {
		return err
	}
	return scrubbedError{msg: s.String(err.Error()), err: err}
}

type scrubbedError struct {
	msg string
	err error
}

func (e scrubbedError) Error() string { return e.msg }
func (e scrubbedError) Unwrap() error { return e.err }

// Truncate cuts s to about max bytes on a rune boundary.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Cause drops the *url.Error wrapper so a message names the failure, not
// the URL (which may carry credentials).
func Cause(err error) string {
	var uerr *url.Error
	if errors.As(err, &uerr) && uerr.Err != nil {
		return uerr.Err.Error()
	}
	return err.Error()
}

// ReadBody reads at most limit bytes of an error response's body.
func ReadBody(res *http.Response, limit int64) string {
	if res.Body == nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(res.Body, limit))
	return string(b)
}
