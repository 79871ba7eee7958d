package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	commonpb "go.temporal.io/api/common/v1"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// attack is one kind of bad input. An update attack that is refused must
// never be accepted (the check fails if it is); what a signal attack did is
// read from the logs; what a start did, from how its workflow ended.
type attack struct {
	name    string
	big     bool // about 2 MB: spaced out
	start   bool
	refused bool // an update that must be refused
	// bug names the skipped test of a known bug this attack triggers: it
	// is left out unless -chaos.known-bugs.
	bug string
	run func(ctx context.Context, f *flood, target string) string
}

// The agent's signal and update names (signals/contract.go, orchestration.go).
var (
	messageNames   = []string{"followup", "steer", "inject", "send"}
	controlSignals = []string{"cancel", "dispose", "select-model", "child-report"}
	otherUpdates   = []string{"maintain", "wait-idle", "spawn", "approve", "deny", "answer"}
)

// Sizes of the big attacks: under Temporal's 2 MiB payload limit (over
// the agent's message limit), and over it.
const (
	nearLimit = 1900 << 10
	overLimit = 2300 << 10
)

var attacks = []attack{
	{name: "sig-undecodable", run: func(ctx context.Context, f *flood, t string) string {
		name := pick(f.rng, append(slicesOf(messageNames), controlSignals...))
		return f.signal(ctx, t, name, badPayload(f.rng, name))
	}},
	{name: "sig-empty", run: func(ctx context.Context, f *flood, t string) string {
		return f.signal(ctx, t, pick(f.rng, append(slicesOf(messageNames), "child-report")), emptyPayload(f.rng))
	}},
	{name: "sig-bad-fields", run: func(ctx context.Context, f *flood, t string) string {
		return f.signal(ctx, t, pick(f.rng, messageNames), js(badMessage(f.rng, f.seq())))
	}},
	{name: "sig-utf8", run: func(ctx context.Context, f *flood, t string) string {
		return f.signal(ctx, t, pick(f.rng, []string{"followup", "steer"}), js(utf8Message(f.rng, f.seq())))
	}},
	{name: "sig-2mb", big: true, run: func(ctx context.Context, f *flood, t string) string {
		return f.signal(ctx, t, "followup", js(bigMessage(f.seq(), nearLimit)))
	}},
	{name: "sig-over-limit", big: true, run: func(ctx context.Context, f *flood, t string) string {
		return f.signal(ctx, t, "followup", js(bigMessage(f.seq(), overLimit)))
	}},
	{name: "sig-duplicate-id", run: func(ctx context.Context, f *flood, t string) string {
		id, ok := f.led.anyAccepted(t, f.rng.IntN)
		if !ok {
			return outSkipped
		}
		return f.signal(ctx, t, pick(f.rng, []string{"followup", "steer", "inject"}), js(message(id, floodMarker+"DUP")))
	}},
	{name: "sig-unknown-name", run: func(ctx context.Context, f *flood, t string) string {
		return f.signal(ctx, t, "flood-no-such-signal", js(message("flood-unknown", floodMarker+"UNKNOWN")))
	}},
	{name: "sig-unknown-provider", run: func(ctx context.Context, f *flood, t string) string {
		return f.signal(ctx, t, "select-model", js(`{"provider":"flood-no-such-provider","model":"FLOOD-MODEL"}`))
	}},
	{name: "sig-unknown-child", run: func(ctx context.Context, f *flood, t string) string {
		r := signals.ChildReport{ID: "flood-nobody#1", Child: "flood-nobody", Turn: 1, Reason: eventlog.EndCompleted, Text: floodMarker + "CHILD"}
		return f.signal(ctx, t, "child-report", jsonOf(r))
	}},
	{name: "sig-child-replay", run: replayChildReport},
	{name: "upd-undecodable", refused: true, run: func(ctx context.Context, f *flood, t string) string {
		name := pick(f.rng, append(slicesOf(messageNames), otherUpdates...))
		return f.update(ctx, t, name, f.updateID(), badPayload(f.rng, name))
	}},
	{name: "upd-empty", refused: true, run: func(ctx context.Context, f *flood, t string) string {
		name := pick(f.rng, append(slicesOf(messageNames), "maintain", "spawn", "approve", "deny", "answer"))
		return f.update(ctx, t, name, f.updateID(), emptyPayload(f.rng))
	}},
	{name: "upd-bad-fields", refused: true, run: func(ctx context.Context, f *flood, t string) string {
		name, body := badUpdate(f.rng, f.seq())
		return f.update(ctx, t, name, f.updateID(), js(body))
	}},
	{name: "upd-utf8", run: func(ctx context.Context, f *flood, t string) string {
		return f.update(ctx, t, "followup", f.updateID(), js(utf8Message(f.rng, f.seq())))
	}},
	{name: "upd-2mb", big: true, refused: true, run: func(ctx context.Context, f *flood, t string) string {
		return f.update(ctx, t, "followup", f.updateID(), js(bigMessage(f.seq(), nearLimit)))
	}},
	{name: "upd-over-limit", big: true, refused: true, run: func(ctx context.Context, f *flood, t string) string {
		return f.update(ctx, t, "followup", f.updateID(), js(bigMessage(f.seq(), overLimit)))
	}},
	{name: "upd-duplicate-id", run: func(ctx context.Context, f *flood, t string) string {
		id, ok := f.led.anyAccepted(t, f.rng.IntN)
		if !ok {
			return outSkipped
		}
		return f.update(ctx, t, "followup", string(id), js(message(id, floodMarker+"DUP")))
	}},
	{name: "upd-unknown-name", refused: true, run: func(ctx context.Context, f *flood, t string) string {
		return f.update(ctx, t, "flood-no-such-update", f.updateID(), js(message("flood-unknown", floodMarker+"UNKNOWN")))
	}},
	{name: "start-invalid", start: true, run: func(ctx context.Context, f *flood, t string) string {
		o := invalidOptions[f.rng.IntN(len(invalidOptions))]
		return f.start(ctx, "start-invalid", jsonOf(signals.AgentInput{Options: o,
			First: &signals.Message{ID: "flood-first", Content: floodMarker + "START /tool echo {}"}}))
	}},
	{name: "start-undecodable", start: true, run: func(ctx context.Context, f *flood, t string) string {
		return f.start(ctx, "start-undecodable", badPayload(f.rng, ""))
	}},
	{name: "start-absurd-valid", start: true, run: func(ctx context.Context, f *flood, t string) string {
		return f.start(ctx, "start-absurd-valid", absurdInput(f.rng, t))
	}},
}

func (f *flood) updateID() string { return fmt.Sprintf("flood-upd-%d", f.seq()) }

func pick(rng *rand.Rand, xs []string) string { return xs[rng.IntN(len(xs))] }

func slicesOf(xs []string) []string { return append([]string(nil), xs...) }

func payload(encoding string, data []byte) *commonpb.Payloads {
	return &commonpb.Payloads{Payloads: []*commonpb.Payload{{Metadata: map[string][]byte{"encoding": []byte(encoding)}, Data: data}}}
}

// js is raw JSON, whatever its bytes.
func js(s string) *commonpb.Payloads { return payload("json/plain", []byte(s)) }

func jsonOf(v any) *commonpb.Payloads {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return js(string(b))
}

func message(id eventlog.MessageID, content string) string {
	return string(must(json.Marshal(signals.Message{ID: id, Content: content})))
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func bigMessage(n, size int) string {
	return message(eventlog.MessageID(fmt.Sprintf("flood-big-%d", n)), floodMarker+"BIG "+strings.Repeat("x", size))
}

// utf8Message has invalid UTF-8 bytes in its content (decoded, they become
// U+FFFD) or in its ID (which then fails validation).
func utf8Message(rng *rand.Rand, n int) string {
	if rng.IntN(2) == 0 {
		return fmt.Sprintf(`{"id":"flood-u%d","content":"%sUTF8 \xff\xfe\xfd"}`, n, floodMarker)
	}
	return fmt.Sprintf(`{"id":"flood-\xff%d","content":"%sUTF8ID"}`, n, floodMarker)
}

// badMessage has an ID the agent refuses, or blank content.
func badMessage(rng *rand.Rand, n int) string {
	ids := []eventlog.MessageID{"", "has space", "made:1.1", eventlog.MessageID(strings.Repeat("i", 200)), "tab\tid", "é"}
	if i := rng.IntN(len(ids) + 1); i < len(ids) {
		return message(ids[i], floodMarker+"FIELDS")
	}
	return message(eventlog.MessageID(fmt.Sprintf("flood-blank-%d", n)), " \n\t ")
}
