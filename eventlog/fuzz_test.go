package eventlog_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/tetherdev/tether/eventlog"
)

// FuzzDecode feeds envelope JSON to Decode. Whatever the bytes, Decode
// never panics, fails only with its typed errors, and a decoded event
// encodes and decodes again to the same envelope. The seeds in
// testdata/fuzz/FuzzDecode (every event type, and malformed forms) run as
// a normal test.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var env eventlog.Envelope
		if json.Unmarshal(data, &env) != nil {
			return // not an envelope: JSON's verdict, not Decode's
		}
		ev, err := eventlog.Decode(env)
		if err != nil {
			if !errors.Is(err, eventlog.ErrUnknownType) && !errors.Is(err, eventlog.ErrNoData) && !errors.Is(err, eventlog.ErrMalformed) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if ev.Type() != env.Type {
			t.Fatalf("decoded %s from a %s envelope", ev.Type(), env.Type)
		}
		once, err := eventlog.Encode(env.Seq, env.At, env.Ref, ev)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		ev2, err := eventlog.Decode(once)
		if err != nil {
			t.Fatalf("decode of a re-encoded event: %v", err)
		}
		twice, err := eventlog.Encode(once.Seq, once.At, once.Ref, ev2)
		if err != nil || string(twice.Data) != string(once.Data) {
			t.Fatalf("encoding is not stable: %s then %s (%v)", once.Data, twice.Data, err)
		}
	})
}
