package eventlog

import "time"

// FailureKind is the normalised class of a failed model call. Each kind crosses
// the activity edge as the Type of a temporal.ApplicationError, so values are
// durable names.
type FailureKind string

const (
	FailureRateLimit       FailureKind = "rate_limit"
	FailureOverloaded      FailureKind = "overloaded"
	FailureServer          FailureKind = "server"
	FailureNetwork         FailureKind = "network"
	FailureTimeout         FailureKind = "timeout"
	FailureAuth            FailureKind = "auth"
	FailureInvalidRequest  FailureKind = "invalid_request"
	FailureContextOverflow FailureKind = "context_overflow"
	FailureContentFilter   FailureKind = "content_filter"
	FailureCanceled        FailureKind = "canceled"
	FailureUnknown         FailureKind = "unknown"
)

// FailureKinds lists every kind in a stable order.
var FailureKinds = []FailureKind{
	FailureRateLimit, FailureOverloaded, FailureServer, FailureNetwork, FailureTimeout,
	FailureAuth, FailureInvalidRequest, FailureContextOverflow, FailureContentFilter,
	FailureCanceled, FailureUnknown,
}

// Retryable reports whether a call that failed this way may succeed when
// repeated unchanged. Auth, invalid requests, context overflow and content
// filtering fail the same way every time.
func (k FailureKind) Retryable() bool {
	switch k {
	case FailureRateLimit, FailureOverloaded, FailureServer, FailureNetwork, FailureTimeout, FailureUnknown:
		return true
	default:
		return false
	}
}

// Failure is a normalised model-call failure as recorded in the log.
type Failure struct {
	Kind       FailureKind   `json:"kind"`
	Message    string        `json:"message"`
	StatusCode int           `json:"status_code,omitempty"`
	RetryAfter time.Duration `json:"retry_after,omitempty"`
}
