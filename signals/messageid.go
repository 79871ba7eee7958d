package signals

import (
	"encoding/binary"

	"github.com/tetherdev/tether/eventlog"
)

// DrawnIDLen is the length of a drawn ID (DrawnID): 64 bits in base 62.
const DrawnIDLen = 11

// base62 is DrawnID's alphabet: letters and digits only, so that a drawn
// ID needs no quoting in a shell, a URL or a search attribute query and
// never starts like a flag.
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// DrawnID is the ID a client draws for a message or a request from 8
// random bytes: their 64 bits in base 62, DrawnIDLen characters, left
// padded with '0'. A message ID recurs in history (its update's ID four
// times, the answer, the journal's inbox and claim events), so each
// character saved is saved about nine times a turn: 11 characters where
// the 16 hex digits of the same bits took 16. It is a pure function, so
// that the format is tested apart from the randomness.
func DrawnID(random [8]byte) eventlog.MessageID {
	n := binary.BigEndian.Uint64(random[:])
	var out [DrawnIDLen]byte
	for i := DrawnIDLen - 1; i >= 0; i-- {
		out[i] = base62[n%62]
		n /= 62
	}
	return eventlog.MessageID(out[:])
}
