package devserver

import "errors"

// The errors Start wraps when it refuses a data directory.

// ErrDataDirInUse is wrapped by Start when another process serves DataDir:
// two servers on one SQLite file would fight over its shard.
var ErrDataDirInUse = errors.New("dev server data dir is in use by another process")

// ErrDataDirNotPrivate is wrapped by Start when DataDir is open to other
// users and holds files that are not the server's, so tightening it could
// lock others out of something that is theirs.
var ErrDataDirNotPrivate = errors.New("dev server data dir is open to other users")

// ErrIncompatibleDataDir is wrapped by Start when DataDir holds a database
// that this server release must not open.
var ErrIncompatibleDataDir = errors.New("incompatible dev server data dir")
