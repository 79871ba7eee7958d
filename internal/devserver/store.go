package devserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/headers"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	sqliteschema "go.temporal.io/server/schema/sqlite"
)

const (
	dbFileName    = "temporal.db"
	visFileName   = "visibility.db"
	stampFileName = "temporal.version"
	lockFileName  = "lock"
)

// ServerVersion names the embedded server release. It is stamped next to the
// database file because the SQLite schema is only ever created fresh, never
// migrated.
const ServerVersion = "go.temporal.io/server v" + headers.ServerVersion

var memoryDBSeq atomic.Uint64

// stores are a server's SQLite databases: executions (history, tasks,
// namespaces) and visibility, which may be the same.
//
// They are two where the server makes them (in memory, and data dirs it
// creates): the plugin gives each database one connection, which every
// service shares, so a visibility write (each search attribute upsert, a
// few milliseconds of SQL) would otherwise hold up the next workflow task
// behind it. A data dir made before keeps its single database.
type stores struct {
	main, visibility *config.SQL
}

// openStores returns the SQLite stores for o with their schema and
// namespace in place.
func openStores(o Options) (stores, error) {
	st := stores{main: sqlConfig(o.DataDir), visibility: visibilityConfig(o.DataDir)}
	if o.DataDir != "" {
		separate, err := prepareDataDir(o.DataDir, st)
		if err != nil {
			return stores{}, err
		}
		if !separate {
			st.visibility = st.main
		}
	}
	ns, err := sqliteschema.NewNamespaceConfig(clusterName, o.Namespace, false, o.SearchAttributes)
	if err != nil {
		return stores{}, fmt.Errorf("namespace %s config: %w", o.Namespace, err)
	}
	// A no-op when the namespace exists; search attributes it lacks are
	// added through the operator service once the server runs.
	if err := sqliteschema.CreateNamespaces(st.main, ns); err != nil {
		return stores{}, fmt.Errorf("create namespace %s: %w", o.Namespace, err)
	}
	return st, nil
}

// sqlConfig is an in-memory database with a unique name when dataDir is
// empty, else DataDir/temporal.db in WAL mode. Attributes other than
// mode/cache/... become "_pragma=key=value"; the pragma names take no
// leading underscore (SQLite ignores "_journal_mode").
func sqlConfig(dataDir string) *config.SQL { return fileConfig(dataDir, dbFileName) }

// visibilityConfig is sqlConfig for the visibility database.
func visibilityConfig(dataDir string) *config.SQL { return fileConfig(dataDir, visFileName) }

func fileConfig(dataDir, file string) *config.SQL {
	if dataDir == "" {
		return &config.SQL{
			PluginName:        sqliteplugin.PluginName,
			DatabaseName:      fmt.Sprintf("tether-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), memoryDBSeq.Add(1)),
			ConnectAttributes: map[string]string{"mode": "memory", "cache": "shared"},
		}
	}
	return &config.SQL{
		PluginName:   sqliteplugin.PluginName,
		DatabaseName: filepath.Join(dataDir, file),
		ConnectAttributes: map[string]string{
			"mode":         "rwc",
			"journal_mode": "wal",
			"synchronous":  "2", // FULL: a committed workflow task survives power loss
			"busy_timeout": "10000",
		},
	}
}

// prepareDataDir creates fresh databases with their stamp in dir (which
// Start made private), or checks the stamp of existing ones, and reports
// whether visibility has a database of its own (not in data dirs made
// before it had). The server's files are made private once the stamp is
// known to be good: the files of a refused database are left as they were
// found.
func prepareDataDir(dir string, st stores) (separate bool, err error) {
	_, err = os.Stat(st.main.DatabaseName)
	switch {
	case err == nil:
		if err := checkStamp(dir); err != nil {
			return false, err
		}
		_, err := os.Stat(st.visibility.DatabaseName)
		return err == nil, makePrivateFiles(dir)
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("stat database: %w", err)
	}
	if err := makePrivateFiles(dir); err != nil {
		return false, err
	}
	// Stamp first: a database without a stamp is refused, never guessed at.
	if err := writeStamp(dir); err != nil {
		return false, err
	}
	// Visibility first: a data dir with temporal.db is complete.
	for _, cfg := range []*config.SQL{st.visibility, st.main} {
		if err := createPrivateFile(cfg.DatabaseName); err != nil {
			return false, err
		}
		if err := sqliteschema.SetupSchema(cfg); err != nil {
			return false, fmt.Errorf("create schema in %s (delete the incomplete file before retrying): %w", cfg.DatabaseName, err)
		}
	}
	return true, nil
}

func checkStamp(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, stampFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s has %s but no %s, so the server release that wrote it is unknown; "+
			"move %s away (nothing was deleted) to start with a fresh database",
			ErrIncompatibleDataDir, dir, dbFileName, stampFileName, dir)
	}
	if err != nil {
		return fmt.Errorf("read version stamp: %w", err)
	}
	if got := strings.TrimSpace(string(b)); got != ServerVersion {
		return fmt.Errorf("%w: %s was created by %q but this binary embeds %q and cannot migrate it; "+
			"move %s away (nothing was deleted) to start with a fresh database",
			ErrIncompatibleDataDir, dir, got, ServerVersion, dir)
	}
	return nil
}

func writeStamp(dir string) error {
	path := filepath.Join(dir, stampFileName)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(ServerVersion+"\n"), privateFileMode); err != nil {
		return fmt.Errorf("write version stamp: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write version stamp: %w", err)
	}
	return nil
}

// createPrivateFile creates the empty database file 0600 before SQLite opens
// it: SQLite would create it with the umask's mode, and gives its WAL and
// shared-memory files the database file's mode.
func createPrivateFile(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, privateFileMode)
	if err != nil {
		return fmt.Errorf("create database %s: %w", path, err)
	}
	return f.Close()
}
