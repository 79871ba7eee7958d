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
	stampFileName = "temporal.version"
	lockFileName  = "lock"
)

// ServerVersion names the embedded server release. It is stamped next to the
// database file because the SQLite schema is only ever created fresh, never
// migrated.
const ServerVersion = "go.temporal.io/server v" + headers.ServerVersion

// ErrIncompatibleDataDir is wrapped by Start when DataDir holds a database
// that this server release must not open.
var ErrIncompatibleDataDir = errors.New("incompatible dev server data dir")

var memoryDBSeq atomic.Uint64

// openStore returns the SQLite store for o with its schema and namespace in
// place.
func openStore(o Options) (*config.SQL, error) {
	cfg := sqlConfig(o.DataDir)
	if o.DataDir != "" {
		if err := prepareDataDir(o.DataDir, cfg); err != nil {
			return nil, err
		}
	}
	ns, err := sqliteschema.NewNamespaceConfig(clusterName, o.Namespace, false, o.SearchAttributes)
	if err != nil {
		return nil, fmt.Errorf("namespace %s config: %w", o.Namespace, err)
	}
	// A no-op when the namespace exists; search attributes it lacks are
	// added through the operator service once the server runs.
	if err := sqliteschema.CreateNamespaces(cfg, ns); err != nil {
		return nil, fmt.Errorf("create namespace %s: %w", o.Namespace, err)
	}
	return cfg, nil
}

// sqlConfig is an in-memory database with a unique name when dataDir is
// empty, else DataDir/temporal.db in WAL mode. Attributes other than
// mode/cache/... become "_pragma=key=value"; the pragma names take no
// leading underscore (SQLite ignores "_journal_mode").
func sqlConfig(dataDir string) *config.SQL {
	if dataDir == "" {
		return &config.SQL{
			PluginName:        sqliteplugin.PluginName,
			DatabaseName:      fmt.Sprintf("tether-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), memoryDBSeq.Add(1)),
			ConnectAttributes: map[string]string{"mode": "memory", "cache": "shared"},
		}
	}
	return &config.SQL{
		PluginName:   sqliteplugin.PluginName,
		DatabaseName: filepath.Join(dataDir, dbFileName),
		ConnectAttributes: map[string]string{
			"mode":         "rwc",
			"journal_mode": "wal",
			"synchronous":  "2", // FULL: a committed workflow task survives power loss
			"busy_timeout": "10000",
		},
	}
}

// prepareDataDir creates a fresh database with its stamp in dir (which
// Start made private), or checks the stamp of an existing database. The
// server's files are made private once the stamp is known to be good: the
// files of a refused database are left as they were found.
func prepareDataDir(dir string, cfg *config.SQL) error {
	_, err := os.Stat(cfg.DatabaseName)
	switch {
	case err == nil:
		if err := checkStamp(dir); err != nil {
			return err
		}
		return makePrivateFiles(dir)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("stat database: %w", err)
	}
	if err := makePrivateFiles(dir); err != nil {
		return err
	}
	// Stamp first: a database without a stamp is refused, never guessed at.
	if err := writeStamp(dir); err != nil {
		return err
	}
	if err := createPrivateFile(cfg.DatabaseName); err != nil {
		return err
	}
	if err := sqliteschema.SetupSchema(cfg); err != nil {
		return fmt.Errorf("create schema in %s (delete the incomplete file before retrying): %w", cfg.DatabaseName, err)
	}
	return nil
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
