package workflows

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/internal/release"
)

// Every history the last release recorded in its corpus
// (workflows/testdata/histories at the release commit, read from git, not
// from today's tree, which may have re-recorded or dropped some) replays
// with this build's workflow to the log it journaled: what agents started
// on the release and still running become after an upgrade. `make
// replay-release` runs it alone.
func TestTheLastReleasesHistoriesReplayToTheLogTheyJournaled(t *testing.T) {
	root := filepath.Join("..")
	rel, err := release.Last(root)
	require.NoError(t, err)
	dir := t.TempDir()
	files, err := release.Files(root, rel.Commit, "workflows/testdata/histories", dir)
	require.NoError(t, err)
	require.NotEmpty(t, files, "release %s (%s) recorded no histories", rel.Version, rel.Commit)
	t.Logf("replaying %d histories of %s (%.12s)", len(files), rel.Version, rel.Commit)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { replayToTheJournaledLog(t, f) })
	}
}
