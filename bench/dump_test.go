package bench

import (
	"bufio"
	"fmt"
	"os"

	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// envHistoryDump names a file BenchmarkHistory50Turns writes each history
// it measures to, one event a line: its ID, its protobuf size as served,
// its type and its JSON (payload data base64, as the server serves it), so
// that every byte of a turn can be accounted event by event and field by
// field. Unset, nothing is written.
const envHistoryDump = "TETHER_BENCH_HISTORY_DUMP"

// dumpHistory appends events to the envHistoryDump file under a heading
// naming the agent; it does nothing when the variable is unset.
func dumpHistory(id string, events []*historypb.HistoryEvent) error {
	path := os.Getenv(envHistoryDump)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", envHistoryDump, err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# %s: %d events\n", id, len(events))
	for _, ev := range events {
		js, err := protojson.Marshal(ev)
		if err != nil {
			f.Close()
			return fmt.Errorf("%s: event %d: %w", envHistoryDump, ev.GetEventId(), err)
		}
		fmt.Fprintf(w, "%d\t%d\t%s\t%s\n", ev.GetEventId(), proto.Size(ev), ev.GetEventType(), js)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", envHistoryDump, err)
	}
	return f.Close()
}
