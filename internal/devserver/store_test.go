package devserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDataDirFromAnotherServerReleaseIsRefusedAndKept(t *testing.T) {
	for name, stamp := range map[string]string{
		"other release": "go.temporal.io/server v1.29.0\n",
		"no stamp":      "",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, dbFileName)
			require.NoError(t, os.WriteFile(db, []byte("precious"), 0o644))
			if stamp != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, stampFileName), []byte(stamp), 0o644))
			}

			_, err := Start(context.Background(), Options{DataDir: dir})
			require.ErrorIs(t, err, ErrIncompatibleDataDir)
			require.ErrorContains(t, err, "move "+dir+" away")
			got, err := os.ReadFile(db)
			require.NoError(t, err)
			require.Equal(t, "precious", string(got))
		})
	}
}

func TestInMemoryDatabasesAreUnique(t *testing.T) {
	a, b := sqlConfig(""), sqlConfig("")
	require.NotEqual(t, a.DatabaseName, b.DatabaseName)
	require.Equal(t, "memory", a.ConnectAttributes["mode"])
}

func TestFileDatabaseUsesWAL(t *testing.T) {
	c := sqlConfig("/data")
	require.Equal(t, "/data/temporal.db", c.DatabaseName)
	require.Equal(t, "wal", c.ConnectAttributes["journal_mode"], "no leading underscore: SQLite ignores _journal_mode")
}

func TestSecondServerOnTheSameDataDirIsRefused(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first, err := Start(ctx, Options{DataDir: dir})
	require.NoError(t, err)
	_, err = Start(ctx, Options{DataDir: dir})
	require.ErrorIs(t, err, ErrDataDirInUse)
	require.NoError(t, first.Stop())
	again, err := Start(ctx, Options{DataDir: dir})
	require.NoError(t, err, "the lock goes with the server")
	require.NoError(t, again.Stop())
}
