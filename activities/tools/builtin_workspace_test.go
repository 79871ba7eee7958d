package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// newTestWorkspace builds dir/root with files and escape hatches pointing at
// dir/outside, and returns a registry over it plus both paths.
func newTestWorkspace(t *testing.T) (r *Registry, root, outside string) {
	t.Helper()
	dir := t.TempDir()
	root, outside = filepath.Join(dir, "root"), filepath.Join(dir, "outside")
	files := map[string]string{
		"root/a.txt":         "one\ntwo\nthree\n",
		"root/crlf.txt":      "x\r\ny",
		"root/empty.txt":     "",
		"root/bin.dat":       "PK\x00\x03",
		"root/sub/b.txt":     "bee",
		"root/sub/z/.keep":   "",
		"outside/secret.txt": "secret",
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(root, "emptydir"), 0o755))
	links := map[string]string{
		"link_out":          "../outside/secret.txt",
		"link_abs_out":      filepath.Join(outside, "secret.txt"),
		"link_dir_out":      "../outside",
		"link_in":           "sub/b.txt",
		"link_dangling_out": "../outside/nothing",
	}
	for name, target := range links {
		require.NoError(t, os.Symlink(target, filepath.Join(root, name)))
	}
	tools, err := Workspace(WorkspaceOptions{Root: root})
	require.NoError(t, err)
	r, err = NewRegistry(tools...)
	require.NoError(t, err)
	return r, root, outside
}

func execute(t *testing.T, r *Registry, name string, args any) Result {
	t.Helper()
	raw, err := json.Marshal(args)
	require.NoError(t, err)
	res, err := r.Execute(context.Background(), Call{Name: name, Arguments: raw})
	require.NoError(t, err)
	return res
}

func modelError(msg string) Result { return Result{IsError: true, Content: msg} }

func TestReadFileReadsTextInsideTheWorkspace(t *testing.T) {
	r, root, _ := newTestWorkspace(t)
	tests := []struct {
		name string
		args map[string]any
		want Result
	}{
		{"whole file", map[string]any{"path": "a.txt"}, Result{Content: "     1\tone\n     2\ttwo\n     3\tthree\n"}},
		{"offset", map[string]any{"path": "a.txt", "offset": 3}, Result{Content: "     3\tthree\n"}},
		{"limit", map[string]any{"path": "a.txt", "offset": 1, "limit": 2}, Result{Content: "     1\tone\n     2\ttwo\n[more lines follow; continue with offset=3]"}},
		{"offset past end", map[string]any{"path": "a.txt", "offset": 9}, Result{Content: "[offset 9 is past the end: the file has 3 lines]"}},
		{"crlf and no final newline", map[string]any{"path": "crlf.txt"}, Result{Content: "     1\tx\n     2\ty\n"}},
		{"empty file", map[string]any{"path": "empty.txt"}, Result{Content: "(empty file)"}},
		{"nested", map[string]any{"path": "sub/b.txt"}, Result{Content: "     1\tbee\n"}},
		{"dot-dot that stays inside", map[string]any{"path": "sub/../a.txt", "limit": 1}, Result{Content: "     1\tone\n[more lines follow; continue with offset=2]"}},
		{"absolute path inside", map[string]any{"path": filepath.Join(root, "sub", "b.txt")}, Result{Content: "     1\tbee\n"}},
		{"symlink inside", map[string]any{"path": "link_in"}, Result{Content: "     1\tbee\n"}},
		{"binary", map[string]any{"path": "bin.dat"}, modelError(`"bin.dat" is a binary file (contains NUL bytes); only text files can be read`)},
		{"directory", map[string]any{"path": "sub"}, modelError(`"sub" is a directory; use list_files`)},
		{"missing", map[string]any{"path": "nope.txt"}, modelError(`path "nope.txt" does not exist`)},
		// A dangling link reads as missing: nothing outside is opened or shown.
		{"dangling symlink out", map[string]any{"path": "link_dangling_out"}, modelError(`path "link_dangling_out" does not exist`)},
		{"file as directory", map[string]any{"path": "a.txt/x"}, modelError(`path "a.txt/x" does not exist`)},
		{"limit too large", map[string]any{"path": "a.txt", "limit": 5000}, modelError(`invalid arguments for tool "read_file": field "limit": must be <= 2000, got 5000`)},
		{"path required", map[string]any{}, modelError(`invalid arguments for tool "read_file": missing required field "path"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, execute(t, r, "read_file", tt.args))
		})
	}
}

func TestWorkspaceRefusesPathsThatEscapeTheRoot(t *testing.T) {
	r, _, outside := newTestWorkspace(t)
	secret := filepath.Join(outside, "secret.txt")
	tests := []struct {
		tool string
		path string
		want string
	}{
		{"read_file", "../outside/secret.txt", `path "../outside/secret.txt" is outside the workspace`},
		{"read_file", "sub/../../outside/secret.txt", `path "sub/../../outside/secret.txt" is outside the workspace`},
		{"read_file", secret, fmt.Sprintf("path %q is outside the workspace", secret)},
		{"read_file", "/etc/passwd", `path "/etc/passwd" is outside the workspace`},
		{"read_file", "link_out", `path "link_out" resolves outside the workspace`},
		{"read_file", "link_abs_out", `path "link_abs_out" resolves outside the workspace`},
		{"read_file", "link_dir_out/secret.txt", `path "link_dir_out/secret.txt" resolves outside the workspace`},
		{"read_file", "a\x00b", `path "a\x00b" is outside the workspace`},
		{"list_files", "..", `path ".." is outside the workspace`},
		{"list_files", outside, fmt.Sprintf("path %q is outside the workspace", outside)},
		{"list_files", "link_dir_out", `path "link_dir_out" resolves outside the workspace`},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.path, func(t *testing.T) {
			got := execute(t, r, tt.tool, map[string]string{"path": tt.path})
			require.Equal(t, modelError(tt.want), got)
			require.NotContains(t, got.Content, "secret\n")
		})
	}
}

func TestReadFileCutsLongLinesAndLargeOutput(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("é", readMaxLineBytes) // 2 bytes each: cut mid-line
	require.NoError(t, os.WriteFile(filepath.Join(dir, "long.txt"), []byte(long+"\nnext\n"), 0o644))
	line := strings.Repeat("x", 99) + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat(line, 1000)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "latebin.txt"), []byte(strings.Repeat(line, 100)+"a\x00b\n"), 0o644))
	tools, err := Workspace(WorkspaceOptions{Root: dir})
	require.NoError(t, err)
	r, err := NewRegistry(tools...)
	require.NoError(t, err)

	got := execute(t, r, "read_file", map[string]any{"path": "long.txt"})
	want := "     1\t" + strings.Repeat("é", readMaxLineBytes/2) + " [line truncated]\n     2\tnext\n"
	require.Equal(t, Result{Content: want}, got)

	got = execute(t, r, "read_file", map[string]any{"path": "big.txt"})
	require.LessOrEqual(t, len(got.Content), readMaxBytes+100)
	shown := strings.Count(got.Content, "\n")
	require.True(t, strings.HasSuffix(got.Content, fmt.Sprintf("[more lines follow; continue with offset=%d]", shown+1)), got.Content[len(got.Content)-80:])

	got = execute(t, r, "read_file", map[string]any{"path": "latebin.txt"})
	require.Equal(t, modelError(`"latebin.txt" is a binary file (contains NUL bytes); only text files can be read`), got)
}

func TestListFilesListsSortedEntries(t *testing.T) {
	r, root, _ := newTestWorkspace(t)
	all := "a.txt\nbin.dat\ncrlf.txt\nempty.txt\nemptydir/\nlink_abs_out\nlink_dangling_out\nlink_dir_out\nlink_in\nlink_out\nsub/"
	tests := []struct {
		name string
		args map[string]any
		want Result
	}{
		{"default is root", map[string]any{}, Result{Content: all}},
		{"dot", map[string]any{"path": "."}, Result{Content: all}},
		{"absolute root", map[string]any{"path": root}, Result{Content: all}},
		{"subdirectory", map[string]any{"path": "sub"}, Result{Content: "b.txt\nz/"}},
		{"dotfiles are not listed", map[string]any{"path": "sub/z"}, Result{Content: "(empty directory)"}},
		{"empty", map[string]any{"path": "emptydir"}, Result{Content: "(empty directory)"}},
		{"file", map[string]any{"path": "a.txt"}, modelError(`"a.txt" is not a directory; use read_file`)},
		{"missing", map[string]any{"path": "nope"}, modelError(`path "nope" does not exist`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, execute(t, r, "list_files", tt.args))
		})
	}
}

func TestListFilesBoundsTheListing(t *testing.T) {
	dir := t.TempDir()
	for i := range listMaxEntries + 5 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d", i)), nil, 0o644))
	}
	tools, err := Workspace(WorkspaceOptions{Root: dir})
	require.NoError(t, err)
	r, err := NewRegistry(tools...)
	require.NoError(t, err)
	got := execute(t, r, "list_files", map[string]any{})
	lines := strings.Split(got.Content, "\n")
	require.Len(t, lines, listMaxEntries+1)
	require.Equal(t, "f0000", lines[0])
	require.Equal(t, "[5 more entries not shown]", lines[listMaxEntries])
}

func TestWorkspaceRootThroughSymlinkAcceptsAbsolutePathsUnderEither(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	require.NoError(t, os.Mkdir(real, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(real, "f.txt"), []byte("hi"), 0o644))
	alias := filepath.Join(dir, "alias")
	require.NoError(t, os.Symlink(real, alias))
	tools, err := Workspace(WorkspaceOptions{Root: alias})
	require.NoError(t, err)
	r, err := NewRegistry(tools...)
	require.NoError(t, err)
	for _, p := range []string{"f.txt", filepath.Join(alias, "f.txt"), filepath.Join(real, "f.txt")} {
		require.Equal(t, Result{Content: "     1\thi\n"}, execute(t, r, "read_file", map[string]any{"path": p}), p)
	}
}

func TestWorkspaceRejectsBadRoots(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, root := range []string{"", filepath.Join(dir, "missing"), file} {
		_, err := Workspace(WorkspaceOptions{Root: root})
		require.Error(t, err, root)
	}
}

func TestWorkspaceToolsAreReadOnlyParallel(t *testing.T) {
	tools, err := Workspace(WorkspaceOptions{Root: t.TempDir()})
	require.NoError(t, err)
	require.Len(t, tools, 2)
	for _, tool := range tools {
		require.Equal(t, Parallel, tool.Mode, tool.Name)
	}
}

func TestReadFileStopsWhenContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := readLines(ctx, strings.NewReader(strings.Repeat("x\n", 10000)), readArgs{Path: "f", Offset: 9000, Limit: 1})
	require.ErrorIs(t, err, context.Canceled)
}
