package llm_test

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

func TestClassifyHTTPMapsStatusAndBodyToKind(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   eventlog.FailureKind
	}{
		{"429 is rate limit", 429, `{"error":{"code":"rate_limit_exceeded"}}`, eventlog.FailureRateLimit},
		{"503 is overloaded", 503, `{"error":{"message":"The engine is currently overloaded"}}`, eventlog.FailureOverloaded},
		{"529 is overloaded", 529, `{"type":"error","error":{"type":"overloaded_error"}}`, eventlog.FailureOverloaded},
		{"500 is server", 500, `{"error":{"type":"server_error"}}`, eventlog.FailureServer},
		{"502 is server", 502, `<html>Bad Gateway</html>`, eventlog.FailureServer},
		{"408 is timeout", 408, ``, eventlog.FailureTimeout},
		{"504 is timeout", 504, `upstream request timeout`, eventlog.FailureTimeout},
		{"401 is auth", 401, `{"error":{"code":"invalid_api_key"}}`, eventlog.FailureAuth},
		{"403 is auth", 403, `{"error":{"message":"Project does not have access"}}`, eventlog.FailureAuth},
		{"400 plain is invalid request", 400, `{"error":{"message":"Invalid parameter: messages"}}`, eventlog.FailureInvalidRequest},
		{"404 is invalid request", 404, `{"error":{"code":"model_not_found"}}`, eventlog.FailureInvalidRequest},
		{"409 is invalid request", 409, `{"error":{"message":"conflict"}}`, eventlog.FailureInvalidRequest},
		{"422 is invalid request", 422, `{"detail":"field required"}`, eventlog.FailureInvalidRequest},
		{"400 context_length_exceeded code", 400, `{"error":{"code":"context_length_exceeded"}}`, eventlog.FailureContextOverflow},
		{"400 maximum context length wording", 400, `This model's Maximum Context Length is 8192 tokens`, eventlog.FailureContextOverflow},
		{"400 prompt is too long wording", 400, `{"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, eventlog.FailureContextOverflow},
		{"400 context window wording", 400, `input exceeds the context window`, eventlog.FailureContextOverflow},
		{"422 vllm context length wording", 422, `{"message":"This model's maximum context length is 4096 tokens."}`, eventlog.FailureContextOverflow},
		{"400 content_filter code", 400, `{"error":{"code":"content_filter"}}`, eventlog.FailureContentFilter},
		{"400 content_policy_violation code", 400, `{"error":{"code":"content_policy_violation"}}`, eventlog.FailureContentFilter},
		{"413 mentioning tokens is overflow", 413, `request too large: too many tokens`, eventlog.FailureContextOverflow},
		{"413 mentioning context is overflow", 413, `exceeds context`, eventlog.FailureContextOverflow},
		{"413 plain is invalid request", 413, `payload too large`, eventlog.FailureInvalidRequest},
		{"other 4xx is invalid request", 402, `payment required`, eventlog.FailureInvalidRequest},
		{"non-error status is unknown", 302, ``, eventlog.FailureUnknown},
		{"zero status is unknown", 0, ``, eventlog.FailureUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, llm.ClassifyHTTP(tt.status, tt.body))
		})
	}
}

func TestParseRetryAfterReadsSecondsDatesAndMilliseconds(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"no header", nil, 0},
		{"delta seconds", map[string]string{"Retry-After": "20"}, 20 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"http date in the future", map[string]string{"Retry-After": "Sun, 01 Mar 2026 12:00:30 GMT"}, 30 * time.Second},
		{"http date in the past", map[string]string{"Retry-After": "Sun, 01 Mar 2026 11:59:00 GMT"}, 0},
		{"milliseconds", map[string]string{"Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{"milliseconds win over seconds", map[string]string{"Retry-After-Ms": "250", "Retry-After": "1"}, 250 * time.Millisecond},
		{"negative seconds", map[string]string{"Retry-After": "-5"}, 0},
		{"negative milliseconds fall back to seconds", map[string]string{"Retry-After-Ms": "-5", "Retry-After": "2"}, 2 * time.Second},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"huge value clamps", map[string]string{"Retry-After": "1e300"}, time.Duration(math.MaxInt64)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			require.Equal(t, tt.want, llm.ParseRetryAfter(h, now))
		})
	}
}

func TestParseRetryAfterAcceptsNilHeader(t *testing.T) {
	require.Zero(t, llm.ParseRetryAfter(nil, time.Now()))
}
