// Package blobstore keeps payloads too large for a Temporal history outside
// it: a converter.StorageDriver (the Go SDK's external payload storage) over
// a directory, and a data converter that resolves the claims a history holds
// for code that reads history itself (projection, the starter's log).
//
// Blobs are content-addressed: a file's name is the SHA-256 of the payload
// it holds, so storing the same payload twice writes one file, and a file
// whose bytes no longer hash to its name is reported corrupt, never served.
// The SDK calls Store after the data converter (and so the codec) has
// encoded a payload: with codec keys configured a blob is ciphertext.
//
// It must never lose or rewrite a blob: files are written to a temporary
// name and renamed into place (mode 0600, in a directory of mode 0700), and
// nothing here deletes one. A missing or corrupt blob is an error naming
// its claim and file; the SDK retries the task that needed it, so an agent
// waits for the blob to come back rather than failing.
package blobstore
