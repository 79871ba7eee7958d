package release

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// repo makes a throwaway repository with a commit per baseline version.
func repo(t *testing.T, versions ...string) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) string {
		out, err := Git(dir, append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		require.NoError(t, err)
		return out
	}
	git("init", "-q")
	commits := map[string]string{}
	for _, v := range versions {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "api", v), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "api", v, "x.export.gz"), []byte(v), 0o644))
		git("add", ".")
		git("commit", "-q", "-m", v)
		commits[v] = git("rev-parse", "HEAD")
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "later"), []byte("after the release"), 0o644))
	git("add", ".")
	git("commit", "-q", "-m", "later")
	return dir, commits
}

func TestTheLastReleaseIsTheNewestBaselineAtTheCommitThatWroteIt(t *testing.T) {
	dir, commits := repo(t, "v0.9.0", "v0.10.0", "v0.2.0")
	r, err := Last(dir)
	require.NoError(t, err)
	require.Equal(t, Release{Version: "v0.10.0", Commit: commits["v0.10.0"]}, r, "v0.10.0 is newer than v0.9.0 and v0.2.0")
}

func TestATagOfTheReleaseWinsOverTheCommitThatWroteTheBaseline(t *testing.T) {
	dir, _ := repo(t, "v1.0.0")
	_, err := Git(dir, "tag", "v1.0.0", "HEAD")
	require.NoError(t, err)
	head, err := Git(dir, "rev-parse", "HEAD")
	require.NoError(t, err)
	r, err := Last(dir)
	require.NoError(t, err)
	require.Equal(t, head, r.Commit)
}

func TestNoBaselineOrNoHistoryIsAnErrorSayingSo(t *testing.T) {
	_, err := Last(t.TempDir())
	require.ErrorContains(t, err, "no api/vX.Y.Z baseline")

	dir := t.TempDir() // a baseline in a tree with no repository
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "api", "v0.1.0"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "api", "vnext"), 0o755)) // not a version: ignored
	_, err = Last(dir)
	require.ErrorContains(t, err, "release v0.1.0")
}

func TestFilesWritesTheTreeOfAPathAtACommit(t *testing.T) {
	dir, commits := repo(t, "v0.1.0", "v0.2.0")
	out := t.TempDir()
	files, err := Files(dir, commits["v0.1.0"], "api", out)
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(out, "api", "v0.1.0", "x.export.gz")}, files, "what the commit held, not the later tree")
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.Equal(t, "v0.1.0", string(b))
}

// This repository's last release is v0.1.0 (or later), found without tags.
func TestThisRepositorysLastReleaseIsFound(t *testing.T) {
	r, err := Last(filepath.Join("..", ".."))
	require.NoError(t, err)
	require.Regexp(t, `^v\d+\.\d+\.\d+$`, r.Version)
	require.Regexp(t, `^[0-9a-f]{40}$`, r.Commit)
}
