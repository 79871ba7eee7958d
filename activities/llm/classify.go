package llm

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// Body phrases that mark a rejected request as too long for the model's
// context window. Matched case-insensitively; providers word this freely.
var contextOverflowSignals = []string{
	"context_length_exceeded",
	"maximum context length",
	"context length",
	"context window",
	"prompt is too long",
	"prompt too long",
}

// Body phrases that mark a rejected request as blocked by content policy.
var contentFilterSignals = []string{
	"content_filter",
	"content_policy_violation",
	"content policy",
	"content management policy",
}

// ClassifyHTTP maps a provider's HTTP error status and response body to a
// normalised failure kind. It is provider-independent: adapters call it with
// the raw body so message wording can refine a 4xx.
func ClassifyHTTP(status int, body string) eventlog.FailureKind {
	switch {
	case status == http.StatusTooManyRequests:
		return eventlog.FailureRateLimit
	case status == http.StatusServiceUnavailable || status == 529:
		return eventlog.FailureOverloaded
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout || status == 524:
		return eventlog.FailureTimeout
	case status >= 500 && status <= 599:
		return eventlog.FailureServer
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return eventlog.FailureAuth
	case status == http.StatusRequestEntityTooLarge:
		return classifyTooLarge(body)
	case status >= 400 && status <= 499:
		return classifyRejected(body)
	default:
		return eventlog.FailureUnknown
	}
}

// classifyRejected refines a client error by what the body says.
func classifyRejected(body string) eventlog.FailureKind {
	lower := strings.ToLower(body)
	switch {
	case containsAny(lower, contextOverflowSignals):
		return eventlog.FailureContextOverflow
	case containsAny(lower, contentFilterSignals):
		return eventlog.FailureContentFilter
	default:
		return eventlog.FailureInvalidRequest
	}
}

// classifyTooLarge treats a 413 as context overflow only when the body talks
// about tokens or context; otherwise the payload itself was too big.
func classifyTooLarge(body string) eventlog.FailureKind {
	lower := strings.ToLower(body)
	if strings.Contains(lower, "context") || strings.Contains(lower, "token") {
		return eventlog.FailureContextOverflow
	}
	return eventlog.FailureInvalidRequest
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// ParseRetryAfter reads how long the server asked the caller to wait:
// retry-after-ms (milliseconds, preferred for precision), else Retry-After as
// delta-seconds or an HTTP date relative to now. It returns 0 when no usable
// hint is present and never a negative duration.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if d, ok := parseDelay(h.Get("Retry-After-Ms"), time.Millisecond); ok {
		return d
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if d, ok := parseDelay(v, time.Second); ok {
		return d
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// parseDelay parses a non-negative decimal count of unit, clamping values
// too large for a time.Duration.
func parseDelay(v string, unit time.Duration) (time.Duration, bool) {
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(n) || n < 0 {
		return 0, false
	}
	d := n * float64(unit)
	if d >= math.MaxInt64 {
		return time.Duration(math.MaxInt64), true
	}
	return time.Duration(d), true
}
