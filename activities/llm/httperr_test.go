package llm

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScrubberRemovesTheSecretAndKeepsTheChain(t *testing.T) {
	s := NewScrubber("sk-123")
	err := s.Err(fmt.Errorf("proxy said key sk-123 is bad: %w", context.Canceled))
	require.Equal(t, "proxy said key [redacted] is bad: context canceled", err.Error())
	require.NotContains(t, fmt.Sprintf("%#v", err), "sk-123")
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, "plain", Scrubber{}.String("plain"), "the zero value removes nothing")
	require.NoError(t, s.Err(nil))
}

func TestTruncateCutsOnARuneBoundary(t *testing.T) {
	require.Equal(t, "short", Truncate("short", 10))
	require.Equal(t, "ab…", Truncate("abé", 3), "é is two bytes: the cut moves back before it")
	require.Equal(t, "boom", Cause(errors.New("boom")))
}
