//go:build unix

package devserver

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// permissiveUmask lets the test see the modes the server asks for rather
// than the ones a default umask happens to leave. The umask is process-wide:
// tests using it must not run in parallel.
func permissiveUmask(t *testing.T) {
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
}

func requireMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, want, fi.Mode().Perm(), "mode of %s", path)
}

func TestDataDirAndEveryServerFileArePrivateToTheUser(t *testing.T) {
	permissiveUmask(t)
	dir := filepath.Join(t.TempDir(), "new", "data")
	s := startServer(t, Options{DataDir: dir})
	require.NotNil(t, s)

	requireMode(t, dir, 0o700)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		requireMode(t, filepath.Join(dir, e.Name()), 0o600)
	}
	require.Subset(t, names, []string{dbFileName, dbFileName + "-wal", dbFileName + "-shm", visFileName, stampFileName, lockFileName},
		"the databases, their WAL files, the stamp and the lock were all checked")
}

func TestOpenDataDirOfAnEarlierReleaseIsTightened(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	files := map[string]string{stampFileName: ServerVersion + "\n", dbFileName: "db", dbFileName + "-wal": "", lockFileName: "",
		CodecTokenFile: "an earlier start's token\n"}
	for name, content := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		require.NoError(t, os.Chmod(path, 0o644))
	}

	require.NoError(t, makePrivateDir(dir))
	separate, err := prepareDataDir(dir, stores{main: sqlConfig(dir), visibility: visibilityConfig(dir)})
	require.NoError(t, err)
	require.False(t, separate, "a data dir made before keeps visibility in temporal.db")

	requireMode(t, dir, 0o700)
	for name := range files {
		requireMode(t, filepath.Join(dir, name), 0o600)
	}
}

func TestOpenDataDirHoldingOtherFilesIsRefusedAndLeftAlone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Start(ctx, Options{DataDir: dir})
	require.ErrorIs(t, err, ErrDataDirNotPrivate)
	require.ErrorContains(t, err, "holds notes.txt")
	require.ErrorContains(t, err, "chmod 700 "+dir)

	requireMode(t, dir, 0o755)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing was created")
}

func TestPrivateDataDirIsUsedAsItIs(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644))
	require.NoError(t, makePrivateDir(dir))
	requireMode(t, dir, 0o700)
	requireMode(t, filepath.Join(dir, "notes.txt"), 0o644)
}
