package signals_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// FuzzJournalUnmarshal feeds bytes to Journal's decoder: it never panics,
// fails only with ErrMalformedJournal, and a journal it accepts unpacks
// and encodes again to a journal that decodes to the same envelopes.
func FuzzJournalUnmarshal(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var j signals.Journal
		if err := j.UnmarshalJSON(data); err != nil {
			if !errors.Is(err, signals.ErrMalformedJournal) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		envs := j.Envelopes()
		if len(envs) != len(j.Entries) {
			t.Fatalf("%d envelopes from %d entries", len(envs), len(j.Entries))
		}
		b, err := json.Marshal(j)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		var again signals.Journal
		if err := again.UnmarshalJSON(b); err != nil {
			t.Fatalf("decode of a re-encoded journal %s: %v", b, err)
		}
		b2, err := json.Marshal(again)
		if err != nil || string(b2) != string(b) {
			t.Fatalf("encoding is not stable: %s then %s (%v)", b, b2, err)
		}
	})
}

// validationErrors are the sentinels a validator may fail with.
var validationErrors = []error{
	signals.ErrEmptyMessage, signals.ErrMessageTooLarge, signals.ErrInvalidID, signals.ErrInvalidList,
	signals.ErrInvalidUTF8, signals.ErrCauseTooLarge,
}

func requireTyped(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, s := range validationErrors {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("%s: untyped error: %v", what, err)
}

// FuzzValidate runs every validator of the signal and update contract on
// arbitrary input: none panics, each fails only with its sentinels, and
// what passes is what the contract promises (IDs of printable ASCII within
// 128 bytes outside the hook namespace, bounded UTF-8 content that is not
// blank, bounded causes).
func FuzzValidate(f *testing.F) {
	f.Fuzz(func(t *testing.T, id, content, list, cause string, wake bool) {
		idErr := signals.ValidateID(eventlog.MessageID(id))
		requireTyped(t, "id", idErr)
		if idErr == nil {
			if id == "" || len(id) > signals.MaxIDBytes || strings.HasPrefix(id, signals.MadePrefix) {
				t.Fatalf("accepted id %q", id)
			}
			for i := 0; i < len(id); i++ {
				if id[i] <= ' ' || id[i] > '~' {
					t.Fatalf("accepted id %q with byte %#x", id, id[i])
				}
			}
		}
		contentErr := signals.ValidateContent(content)
		requireTyped(t, "content", contentErr)
		if contentErr == nil && (!utf8.ValidString(content) || len(content) > signals.MaxMessageBytes || strings.TrimSpace(content) == "") {
			t.Fatalf("accepted content %q", content)
		}
		m := signals.Message{ID: eventlog.MessageID(id), Content: content}
		msgErr := signals.ValidateMessage(m)
		requireTyped(t, "message", msgErr)
		if (msgErr == nil) != (idErr == nil && contentErr == nil) {
			t.Fatalf("message verdict %v, id %v, content %v", msgErr, idErr, contentErr)
		}
		sendErr := signals.ValidateSend(signals.Send{Message: m, List: eventlog.List(list), Wake: wake})
		requireTyped(t, "send", sendErr)
		if sendErr == nil && (msgErr != nil || !eventlog.List(list).Valid()) {
			t.Fatalf("accepted send to %q", list)
		}
		causeErr := signals.ValidateCause(cause)
		requireTyped(t, "cause", causeErr)
		bounded := signals.BoundCause(cause)
		if err := signals.ValidateCause(bounded); err != nil {
			t.Fatalf("a bounded cause is refused: %v", err)
		}
		if causeErr == nil && bounded != cause {
			t.Fatalf("a valid cause was cut")
		}
		if utf8.ValidString(cause) && !utf8.ValidString(bounded) {
			t.Fatalf("bounding split a rune")
		}
		if signals.BoundCause(bounded) != bounded {
			t.Fatalf("bounding twice cuts again")
		}
	})
}
