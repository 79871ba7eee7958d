package tools

import (
	"errors"
	"fmt"

	"github.com/tetherdev/tether/internal/text"
)

// MaxResultBytes is the default cap on a result's content, in bytes.
// WithMaxResultBytes changes it per registry.
const MaxResultBytes = 64 << 10

// modelErrorf is ErrorResult(fmt.Errorf(...)) for the built-in tools.
func modelErrorf(format string, args ...any) error {
	return ErrorResult(fmt.Errorf(format, args...))
}

// Option configures a Registry.
type Option func(*Registry) error

// WithMaxResultBytes caps result content at n bytes (n > 0).
func WithMaxResultBytes(n int) Option {
	return func(r *Registry) error {
		if n <= 0 {
			return fmt.Errorf("max result bytes must be positive, got %d", n)
		}
		r.maxResultBytes = n
		return nil
	}
}

// With returns a copy of r with opts applied; r itself is unchanged, so the
// copy shares r's tools and both stay safe for concurrent use.
func (r *Registry) With(opts ...Option) (*Registry, error) {
	c := *r
	for _, opt := range opts {
		if opt == nil {
			return nil, errors.New("nil option")
		}
		if err := opt(&c); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// Truncate cuts s to at most limit bytes on a UTF-8 boundary and appends a
// notice saying how much was kept.
func Truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	kept := text.Cut(s, limit)
	return fmt.Sprintf("%s\n[truncated: %d of %d bytes shown]", kept, len(kept), len(s))
}
