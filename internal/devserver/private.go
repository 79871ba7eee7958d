package devserver

// The data directory holds every workflow's history: prompts, answers and
// tool results. It is the user's alone, like ~/.ssh: the directory 0700 and
// the server's files in it 0600.
const (
	privateDirMode  = 0o700
	privateFileMode = 0o600
)

// CodecTokenFile is the file in DataDir holding the codec server's token
// drawn for this start (fx/codecfx writes it afresh, 0600, each start).
const CodecTokenFile = "codec-auth-token"

// serverFiles are the files the server keeps in DataDir: the databases
// with their WAL journals and shared-memory indexes, the version stamp,
// the lock, and the codec token the worker writes beside them.
var serverFiles = []string{
	dbFileName, dbFileName + "-wal", dbFileName + "-shm", dbFileName + "-journal",
	visFileName, visFileName + "-wal", visFileName + "-shm", visFileName + "-journal",
	stampFileName, lockFileName, CodecTokenFile,
}
