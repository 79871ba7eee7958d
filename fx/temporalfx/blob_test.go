package temporalfx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx/fxtest"

	"github.com/tetherdev/tether/blobstore"
	"github.com/tetherdev/tether/fx/configfx"
)

// NewBlobs reads its own parts: with an embedded server (DevConfig says
// so) the blob directory waits for the first blob, since the server
// refuses a data dir holding what it did not make; without one the
// directory is made at startup. No directory configured, no store.
func TestBlobsOpenTheDirectoryAsTheDevPartSays(t *testing.T) {
	lc := fxtest.NewLifecycle(t)
	b := configfx.BlobConfig{Dir: filepath.Join(t.TempDir(), "embedded", "blobs"), Threshold: blobstore.DefaultThreshold}
	got, err := NewBlobs(b, configfx.DevConfig{Dev: true}, lc)
	require.NoError(t, err)
	require.Equal(t, b.Dir, got.Store.(*blobstore.Dir).Path())
	_, err = os.Stat(b.Dir)
	require.ErrorIs(t, err, os.ErrNotExist, "an embedded server's blob dir is made at the first blob")

	b.Dir = filepath.Join(t.TempDir(), "remote", "blobs")
	got, err = NewBlobs(b, configfx.DevConfig{}, lc)
	require.NoError(t, err)
	require.Equal(t, b.Dir, got.Store.(*blobstore.Dir).Path())
	require.DirExists(t, b.Dir, "without an embedded server it is made at startup")

	got, err = NewBlobs(configfx.BlobConfig{}, configfx.DevConfig{Demo: true}, lc)
	require.NoError(t, err)
	require.Nil(t, got.Store)
}
