//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 20: a hard link inside the workspace to a file outside it is, by
// path, an ordinary file of the workspace; its link count gives it away.
func TestReadFileRefusesHardLinks(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "credentials.txt")
	require.NoError(t, os.WriteFile(outside, []byte("SECRET=outside"), 0o600))
	root := t.TempDir()
	writeFile(t, root, "ordinary.txt", "ordinary")
	writeFile(t, root, "a.txt", "twice")
	if err := os.Link(outside, filepath.Join(root, "notes.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	require.NoError(t, os.Link(filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")))

	tools, err := Workspace(WorkspaceOptions{Root: root})
	require.NoError(t, err)
	r, err := NewRegistry(tools...)
	require.NoError(t, err)
	got := execute(t, r, "read_file", map[string]any{"path": "notes.txt"})
	require.Equal(t, modelError(`"notes.txt" is withheld: it has 2 hard links, and the workspace reads no file that may also be named outside it`), got)
	require.NotContains(t, got.Content, "SECRET")
	require.Equal(t, modelError(`"b.txt" is withheld: it has 2 hard links, and the workspace reads no file that may also be named outside it`),
		execute(t, r, "read_file", map[string]any{"path": "b.txt"}), "both names inside is refused too: no name tells which case it is")
	require.Equal(t, Result{Content: "     1\tordinary\n"}, execute(t, r, "read_file", map[string]any{"path": "ordinary.txt"}))

	require.NoError(t, os.Remove(filepath.Join(root, "b.txt")))
	require.Equal(t, Result{Content: "     1\ttwice\n"}, execute(t, r, "read_file", map[string]any{"path": "a.txt"}),
		"a file is readable again once it has one name")

	allowing, err := Workspace(WorkspaceOptions{Root: root, AllowHardLinks: true})
	require.NoError(t, err)
	ra, err := NewRegistry(allowing...)
	require.NoError(t, err)
	require.Equal(t, Result{Content: "     1\tSECRET=outside\n"}, execute(t, ra, "read_file", map[string]any{"path": "notes.txt"}))
}
