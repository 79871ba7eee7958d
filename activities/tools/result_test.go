package tools

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTruncateCutsOnUTF8BoundaryAndSaysHowMuch(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{"fits", "hello", 5, "hello"},
		{"ascii", "hello world", 5, "hello\n[truncated: 5 of 11 bytes shown]"},
		{"inside two-byte rune", "aé", 2, "a\n[truncated: 1 of 3 bytes shown]"},
		{"inside four-byte rune", "ab😀", 4, "ab\n[truncated: 2 of 6 bytes shown]"},
		{"after full rune", "é😀", 2, "é\n[truncated: 2 of 6 bytes shown]"},
		{"first rune too big", "😀", 3, "\n[truncated: 0 of 4 bytes shown]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, Truncate(tt.in, tt.limit))
		})
	}
}

func TestErrorResultIsFoundThroughWrapping(t *testing.T) {
	require.NoError(t, ErrorResult(nil))
	base := errors.New("file not found")
	err := fmt.Errorf("read: %w", ErrorResult(base))
	var mv *ModelVisibleError
	require.ErrorAs(t, err, &mv)
	require.ErrorIs(t, err, base)
	require.Equal(t, "read: file not found", err.Error())
}
