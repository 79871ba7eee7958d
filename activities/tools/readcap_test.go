package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// WorkspaceOptions.MaxReadBytes is read_file's output cap: a larger one
// returns more of a file in one call, whole under the registry's cap;
// the default stays DefaultReadMaxBytes.
func TestReadFileReturnsUpToTheWorkspacesReadCap(t *testing.T) {
	dir := t.TempDir()
	line := strings.Repeat("x", 99) + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat(line, 1500)), 0o644))
	read := func(maxRead int, opts ...Option) Result {
		ws, err := Workspace(WorkspaceOptions{Root: dir, MaxReadBytes: maxRead})
		require.NoError(t, err)
		r, err := NewRegistry(ws...)
		require.NoError(t, err)
		if len(opts) > 0 {
			r, err = r.With(opts...)
			require.NoError(t, err)
		}
		return execute(t, r, "read_file", map[string]any{"path": "big.txt", "limit": 2000})
	}
	got := read(0)
	require.LessOrEqual(t, len(got.Content), DefaultReadMaxBytes+100)
	require.Greater(t, len(got.Content), DefaultReadMaxBytes-200)
	require.Contains(t, got.Content, "[more lines follow")

	got = read(120<<10, WithMaxResultBytes(256<<10))
	require.Greater(t, len(got.Content), 100<<10, "more than the default in one call")
	require.LessOrEqual(t, len(got.Content), 120<<10+100)
	require.Contains(t, got.Content, "[more lines follow")
	require.NotContains(t, got.Content, "[truncated", "within the registry's cap: not cut again")

	_, err := Workspace(WorkspaceOptions{Root: dir, MaxReadBytes: -1})
	require.Error(t, err)
}
