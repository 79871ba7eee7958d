package signals

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Durations on the wire. Go's encoding writes a time.Duration as a number
// of nanoseconds, and that is what Tether writes. Clients in other
// languages send durations as people write them, so every wire type a
// client sends that holds one also reads a string time.ParseDuration
// takes ("2s", "1h30m"). The Go fields stay time.Duration, and what Tether
// writes does not change: a recorded history replays as it ran.

// parseDuration reads a number of nanoseconds (an integer, also in
// exponent form such as 2e9) or a duration string.
func parseDuration(b json.RawMessage) (time.Duration, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration: %s", s, durationForms)
		}
		return v, nil
	}
	if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		return time.Duration(n), nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, fmt.Errorf("%s is not a duration: %s", b, durationForms)
	}
	return time.Duration(f), nil
}

// durationForms says what a duration may be, in every error about one.
const durationForms = `give an integer number of nanoseconds or a string such as "2s" or "1h30m"`

// durationField is one duration field of a policy: its name as an error
// names it, what the JSON holds, and the Go field it sets.
type durationField struct {
	name string
	raw  json.RawMessage
	into *time.Duration
}

// readDurations sets each field that the JSON holds; absent and null
// leave it as it was.
func readDurations(fields ...durationField) error {
	for _, f := range fields {
		if len(f.raw) == 0 || string(bytes.TrimSpace(f.raw)) == "null" {
			continue
		}
		v, err := parseDuration(f.raw)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalidOptions, f.name, err)
		}
		*f.into = v
	}
	return nil
}

// UnmarshalJSON reads a retry policy; initial and max are durations in
// either form.
func (p *RetryPolicy) UnmarshalJSON(b []byte) error {
	type plain RetryPolicy // without this method
	w := struct {
		*plain
		Initial json.RawMessage `json:"initial"`
		Max     json.RawMessage `json:"max"`
	}{plain: (*plain)(p)}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("%w: retry: %w", ErrInvalidOptions, err)
	}
	return readDurations(durationField{"retry.initial", w.Initial, &p.Initial}, durationField{"retry.max", w.Max, &p.Max})
}

// UnmarshalJSON reads an approval policy; timeout and answer_timeout are
// durations in either form.
func (p *ApprovalPolicy) UnmarshalJSON(b []byte) error {
	type plain ApprovalPolicy // without this method
	w := struct {
		*plain
		Timeout       json.RawMessage `json:"timeout"`
		AnswerTimeout json.RawMessage `json:"answer_timeout"`
	}{plain: (*plain)(p)}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("%w: approval: %w", ErrInvalidOptions, err)
	}
	return readDurations(durationField{"approval.timeout", w.Timeout, &p.Timeout},
		durationField{"approval.answer_timeout", w.AnswerTimeout, &p.AnswerTimeout})
}

// UnmarshalJSON reads a wait policy; max is a duration in either form.
func (p *WaitPolicy) UnmarshalJSON(b []byte) error {
	type plain WaitPolicy // without this method
	w := struct {
		*plain
		Max json.RawMessage `json:"max"`
	}{plain: (*plain)(p)}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("%w: wait: %w", ErrInvalidOptions, err)
	}
	return readDurations(durationField{"wait.max", w.Max, &p.Max})
}
