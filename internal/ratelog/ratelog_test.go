package ratelog

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// capture records what reaches it and signals each summary.
type capture struct {
	mu        sync.Mutex
	records   []slog.Record
	summaries chan slog.Record
}

func newCapture() *capture { return &capture{summaries: make(chan slog.Record, 16)} }

func (c *capture) Enabled(context.Context, slog.Level) bool { return true }
func (c *capture) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *capture) WithGroup(string) slog.Handler            { return c }
func (c *capture) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	c.records = append(c.records, r)
	c.mu.Unlock()
	if r.Message == SuppressedMessage {
		c.summaries <- r
	}
	return nil
}

func (c *capture) count(msg string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, r := range c.records {
		if r.Message == msg {
			n++
		}
	}
	return n
}

func attrs(r slog.Record) map[string]string {
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	return m
}

func waitSummary(t *testing.T, c *capture) slog.Record {
	t.Helper()
	select {
	case r := <-c.summaries:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no summary line")
		return slog.Record{}
	}
}

const corrupted = "Deserialization error. Corrupted signal received on channel followup."

func TestAFloodOfOneMessagePassesTheBurstThenOneSummary(t *testing.T) {
	c := newCapture()
	log := slog.New(New(c, Options{Burst: 5, Every: 200 * time.Millisecond, MinLevel: slog.LevelWarn}))
	for i := range 1000 {
		log.Error(corrupted, "error", fmt.Sprint("bad payload ", i))
		log.With("agent", "a1").Error(corrupted) // derived loggers share the budget
	}
	log.Error("Another failure")
	log.Info("Routine line")
	require.Equal(t, 5, c.count(corrupted))
	require.Equal(t, 1, c.count("Another failure"), "other messages have their own budget")

	s := waitSummary(t, c)
	require.Equal(t, slog.LevelError, s.Level)
	require.Equal(t, map[string]string{"message": corrupted, "level": "ERROR", "suppressed": "1995", "interval": "200ms"}, attrs(s))

	log.Error(corrupted)
	require.Equal(t, 6, c.count(corrupted), "the next window passes again")
	require.Equal(t, 1, c.count(SuppressedMessage))
}

func TestRecordsBelowMinLevelAreNeverLimited(t *testing.T) {
	c := newCapture()
	log := slog.New(New(c, Options{Burst: 1, Every: time.Hour, MinLevel: slog.LevelWarn}))
	for range 50 {
		log.Info("Turn finished")
	}
	require.Equal(t, 50, c.count("Turn finished"))
}

// Messages that vary (the SDK names the signal channel in its message)
// cannot get past the limit: past MaxKeys they share one budget.
func TestVaryingMessagesShareOneBudgetPastMaxKeys(t *testing.T) {
	c := newCapture()
	log := slog.New(New(c, Options{Burst: 2, Every: 200 * time.Millisecond, MaxKeys: 4}))
	for i := range 1000 {
		log.Error(fmt.Sprintf("Corrupted signal received on channel c%d.", i))
	}
	c.mu.Lock()
	written := len(c.records)
	c.mu.Unlock()
	require.Equal(t, 4+2, written, "four tracked messages, then two of the shared budget")
	s := waitSummary(t, c)
	require.Equal(t, "(other messages)", attrs(s)["message"])
	require.Equal(t, "994", attrs(s)["suppressed"])
}
