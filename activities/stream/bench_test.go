package stream_test

import (
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/agent"
)

// BenchmarkHubLatency measures the time from Emit to a Read over HTTP
// yielding the chunk, one chunk in flight at a time, and reports its median
// and 99th percentile.
func BenchmarkHubLatency(b *testing.B) {
	h := stream.NewHub(stream.HubOptions{})
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	defer h.Close()
	w := h.Open(testKey)
	defer w.Close(nil)

	received := make(chan time.Time)
	go func() {
		defer close(received)
		for ev, err := range agent.ReadStream(b.Context(), srv.Client(), srv.URL+testKey.Path(), w.Token(), 0) {
			if err != nil || ev.Kind != stream.KindChunk {
				return
			}
			received <- time.Now()
		}
	}()
	w.Emit(llm.Chunk{Text: "warm up"}) // connects
	<-received

	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		w.Emit(llm.Chunk{Text: "token"})
		at, ok := <-received
		if !ok {
			b.Fatal("stream ended")
		}
		lat = append(lat, at.Sub(start))
	}
	slices.Sort(lat)
	b.ReportMetric(micros(lat[len(lat)/2]), "p50-µs")
	b.ReportMetric(micros(lat[len(lat)*99/100]), "p99-µs")
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
