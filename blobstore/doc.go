// Package blobstore keeps payloads too large for a Temporal history outside
// it: converter.StorageDrivers (the Go SDK's external payload storage) over
// a directory (Dir) or a PostgreSQL table (Postgres, for a cluster whose
// workers share no file system), a data converter that resolves the claims
// a history holds for code that reads history itself (projection, the
// starter's log, the codec server's /decode), and a collector (Collect)
// that deletes the blobs no history references any more.
//
// Blobs are content-addressed: a blob's name (file name, row key) is the
// SHA-256 of the payload it holds, so storing the same payload twice keeps
// one blob, and a blob whose bytes no longer hash to its name is reported
// corrupt, never served. The SDK calls Store after the data converter (and
// so the codec) has encoded a payload: with codec keys configured a blob
// is ciphertext.
//
// It must never lose or rewrite a blob's bytes: files are written to a
// temporary name and renamed into place (mode 0600, in a directory of mode
// 0700); rows are inserted once, and a second Store of the same payload
// only moves the blob's stored-at time forward. Any number of workers and
// clients may store into one store at once. A missing or corrupt blob is
// an error naming its claim and its file or table; the SDK retries the
// task that needed it, so an agent waits for the blob to come back rather
// than failing.
//
// Only Collect deletes, and only a blob that no workflow history of the
// namespace (open, or closed within its retention), no running workflow's
// pending activity and no schedule names, and that was last stored more
// than a grace period before the collection began: a claim reaches
// history after its blob is stored, and storing again moves the time, so
// a blob about to be named survives. It deletes nothing when any history
// cannot be read. Claims nested inside a payload's own data (a workflow
// input that embeds another payload) are not seen; Tether writes none.
package blobstore
