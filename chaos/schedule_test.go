package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// step is one event of the schedule: after gap, kill the worker (and
// start another after down) or the server (and restart it on its database
// after down).
type step struct {
	gap    time.Duration
	server bool
	down   time.Duration
}

// Bounds of the time a killed process stays down.
const (
	maxWorkerDown = 2 * time.Second
	minServerDown = time.Second
	maxServerDown = 6 * time.Second
)

// newSchedule draws kills worker kills and restarts server restarts, the
// restarts spread evenly among the kills, each after a gap of 0.5 to 1.5
// times interval. A third of the worker kills restart it at once.
func newSchedule(rng *rand.Rand, kills, restarts int, interval time.Duration) []step {
	total := kills + restarts
	server := map[int]bool{}
	for i := 1; i <= restarts; i++ {
		server[i*total/(restarts+1)] = true
	}
	steps := make([]step, 0, total)
	for i := range total {
		s := step{gap: time.Duration((0.5 + rng.Float64()) * float64(interval)), server: server[i]}
		switch {
		case s.server:
			s.down = minServerDown + time.Duration(rng.Int64N(int64(maxServerDown-minServerDown)))
		case rng.IntN(3) > 0:
			s.down = time.Duration(rng.Int64N(int64(maxWorkerDown)))
		}
		steps = append(steps, s)
	}
	return steps
}

// runSchedule plays the steps against the cluster.
func (c *cluster) runSchedule(ctx context.Context, steps []step, logf func(string, ...any)) error {
	for i, s := range steps {
		select {
		case <-ctx.Done():
			return fmt.Errorf("schedule stopped at step %d of %d: %w", i, len(steps), ctx.Err())
		case <-time.After(s.gap):
		}
		if s.server {
			logf("step %d/%d: restart the server (down %s)", i+1, len(steps), s.down.Round(time.Millisecond))
			rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
			err := c.restartServer(rctx, s.down)
			cancel()
			if err != nil {
				return fmt.Errorf("step %d: %w", i+1, err)
			}
			continue
		}
		logf("step %d/%d: kill the worker (down %s)", i+1, len(steps), s.down.Round(time.Millisecond))
		if err := c.killWorker(s.down); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	return nil
}
