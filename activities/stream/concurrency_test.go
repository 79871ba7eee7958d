package stream_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/stream"
)

// Several streams, each fed by several emitters at once and read by
// subscribers that arrive as it opens, during the emits and after the end,
// directly and over HTTP: every subscriber sees the same gap-free sequence
// from its offset, ending with done. (None arrives before the Open: no one
// has the token of a stream that is not open.)
func TestConcurrentEmittersAndSubscribersAgree(t *testing.T) {
	requireNoGoroutineLeak(t)
	const (
		streams  = 4
		emitters = 4
		perEmit  = 150
		total    = emitters * perEmit
	)
	h, srv := serve(t, stream.HubOptions{MaxSubscribersPerStream: 9})

	type reading struct {
		stream int
		from   int64
		got    []stream.Event
		err    error
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		readings []reading
	)
	subscribeAll := func(s int, k stream.Key, token string) {
		for i, from := range []int64{0, 7, total / 2} {
			wg.Go(func() {
				r := reading{stream: s, from: from}
				if i%2 == 0 {
					var ch <-chan stream.Event
					if ch, r.err = h.Subscribe(t.Context(), k, token, from); r.err == nil {
						r.got, r.err = drain(ch)
					}
				} else {
					r.got, r.err = readAll(t.Context(), srv, srv.URL+k.Path(), token, from)
				}
				mu.Lock()
				readings = append(readings, r)
				mu.Unlock()
			})
		}
	}

	for s := range streams {
		k := stream.Key{Agent: "a", Run: "r", Activity: fmt.Sprint(s), Attempt: 1}
		wg.Go(func() {
			w := h.Open(k)
			subscribeAll(s, k, w.Token()) // as it opens
			var emits sync.WaitGroup
			for e := range emitters {
				emits.Go(func() {
					for i := range perEmit {
						w.Emit(llm.Chunk{Text: fmt.Sprintf("%d/%d", e, i)})
					}
				})
			}
			subscribeAll(s, k, w.Token()) // during the emits
			emits.Wait()
			w.Close(nil)
			subscribeAll(s, k, w.Token()) // after the end
		})
	}
	wg.Wait()

	full := make([][]stream.Event, streams)
	for _, r := range readings {
		require.NoError(t, r.err)
		if r.from == 0 {
			full[r.stream] = r.got
		}
	}
	for s, evs := range full {
		require.Len(t, evs, total+1, "stream %d", s)
		texts := make(map[string]bool)
		for i, ev := range evs[:total] {
			require.Equal(t, int64(i), ev.Seq)
			texts[ev.Chunk.Text] = true
		}
		require.Len(t, texts, total, "every chunk exactly once")
		require.Equal(t, stream.KindDone, evs[total].Kind)
	}
	for _, r := range readings {
		require.Equal(t, full[r.stream][r.from:], r.got, "stream %d from %d", r.stream, r.from)
	}
}
