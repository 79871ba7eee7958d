//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadFileRefusesFIFOsWithoutOpeningThem(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644))
	tools, err := Workspace(WorkspaceOptions{Root: dir})
	require.NoError(t, err)
	r, err := NewRegistry(tools...)
	require.NoError(t, err)
	// Opening a FIFO with no writer would block forever; the test finishing
	// is the proof that it was never opened.
	require.Equal(t, modelError(`"pipe" is not a regular file or directory`), execute(t, r, "read_file", map[string]any{"path": "pipe"}))
}

func TestReadFileReportsPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root bypasses file permissions")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "locked.txt")
	require.NoError(t, os.WriteFile(path, []byte("x"), 0o000))
	tools, err := Workspace(WorkspaceOptions{Root: dir})
	require.NoError(t, err)
	r, err := NewRegistry(tools...)
	require.NoError(t, err)
	require.Equal(t, modelError(`path "locked.txt": permission denied`), execute(t, r, "read_file", map[string]any{"path": "locked.txt"}))
}
