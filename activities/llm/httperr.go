package llm

import (
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/tetherdev/tether/internal/text"
)

// Truncate cuts s to about max bytes on a rune boundary.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return text.Cut(s, max) + "…"
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
