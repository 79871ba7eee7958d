package chaos

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// recoveries measures each outage of one kind: kill → the first tool
// execution that started afterwards on a live system (on another worker
// process after a worker kill; after the server served again after a
// restart), and, for restarts, kill → serving again.
func recoveries(outages []outage, journal []execution, server bool) (recovery, down []time.Duration) {
	for _, o := range outages {
		if o.server != server {
			continue
		}
		if server {
			down = append(down, o.back.Sub(o.at))
		}
		for _, x := range journal {
			if x.verb == "start" && x.at.After(o.at) && (server && x.at.After(o.back) || !server && x.pid != o.pid) {
				recovery = append(recovery, x.at.Sub(o.at))
				break
			}
		}
	}
	return recovery, down
}

// quantiles is "p50 / p95 / max" of ds (nearest rank).
func quantiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(q float64) time.Duration { return s[int(math.Ceil(q*float64(len(s))))-1] }
	return fmt.Sprintf("p50 %s / p95 %s / max %s (%d)", rank(0.5).Round(100*time.Millisecond),
		rank(0.95).Round(100*time.Millisecond), s[len(s)-1].Round(100*time.Millisecond), len(s))
}

// logFigures counts what the logs hold.
type logFigures struct {
	roots, children, floodAgents, runs, turns, messages, toolResults int
	approved, denied, answered, waits, compactions, spawned, utf8    int
}

func countLogs(records []*record, utf8 int) logFigures {
	f := logFigures{utf8: utf8}
	for _, r := range records {
		switch {
		case !r.fleet():
			f.floodAgents++
		case strings.Contains(r.id, ".child-"):
			f.children++
		default:
			f.roots++
		}
		f.runs += len(r.runs)
		for _, e := range r.events {
			switch e := e.(type) {
			case eventlog.TurnStart:
				f.turns++
			case eventlog.InboxInserted:
				f.messages++
			case eventlog.ToolResult:
				f.toolResults++
			case eventlog.DecisionMade:
				switch {
				case e.Decider != "chaos":
				case e.Approved && strings.HasPrefix(e.Text, "approved"):
					f.approved++
				case e.Approved:
					f.answered++
				default:
					f.denied++
				}
			case eventlog.WaitStarted:
				f.waits++
			case eventlog.ContextCompacted:
				f.compactions++
			case eventlog.ChildStarted:
				f.spawned++
			}
		}
	}
	return f
}

// journalFigures: executions started, finished, and distinct keys.
func journalFigures(j []execution) (starts, dones, keys int) {
	seen := map[string]bool{}
	for _, x := range j {
		if x.verb == "start" {
			starts++
		} else {
			dones++
		}
		seen[x.key] = true
	}
	return starts, dones, len(seen)
}

// report logs the run's figures.
func report(t *testing.T, seed uint64, wall time.Duration, c *cluster, led *ledger, streams *streamTally, fl *flood,
	cf *clientFaults, res results) {
	f := countLogs(res.records, res.utf8)
	starts, dones, keys := journalFigures(res.journal)
	killRec, _ := recoveries(c.outages, res.journal, false)
	restartRec, down := recoveries(c.outages, res.journal, true)
	floodLines, floodSent := fl.summary()
	streams.mu.Lock()
	chunks, resets, fails := streams.chunks, streams.resets, streams.fails
	streams.mu.Unlock()
	complete := 0
	for _, m := range streams.complete() {
		complete += len(m)
	}
	led.mu.Lock()
	sent, signalled := 0, 0
	for _, byID := range led.sent {
		for _, m := range byID {
			sent++
			if m.signal {
				signalled++
			}
		}
	}
	lines := []string{
		fmt.Sprintf("seed %d; wall time %s (first kill to quiescence)", seed, wall.Round(time.Second)),
		fmt.Sprintf("agents: %d of the fleet, %d children (%d spawns), %d started by the flood; %d runs (%d continued as new)",
			f.roots, f.children, f.spawned, f.floodAgents, f.runs, f.runs-len(res.records)),
		fmt.Sprintf("turns %d in %d rounds; messages in the logs %d; accepted from the fleet %d (%d as signals), "+
			"%d resends, %d answered as duplicates", f.turns, led.rounds, f.messages, sent, signalled, led.resends, led.duplicates),
		fmt.Sprintf("decisions: %d approved, %d denied, %d answered (%d resent); waits %d; compactions %d (%d asked while idle)",
			f.approved, f.denied, f.answered, led.decisionResends, f.waits, f.compactions, led.maintenance),
		fmt.Sprintf("journaled tools: %d calls, %d executions started, %d finished (%d started again)", keys, starts, dones, starts-keys),
		fmt.Sprintf("streams: %d chunks read live, %d attempts read to their end, %d resets, %d followings broken", chunks, complete, resets, fails),
		fmt.Sprintf("kills: %d worker (SIGKILL), %d server restarts; processes that exited on their own: %d",
			len(killRec), len(down), len(c.selfExits)),
		"recovery, kill → a tool starting on the next worker: " + quantiles(killRec),
		"server down, kill → serving again on its database: " + quantiles(down),
		"recovery, server kill → a tool starting after it serves: " + quantiles(restartRec),
		fmt.Sprintf("flood: %d bad inputs; %d invalid-UTF-8 messages got in as U+FFFD and were answered", floodSent, f.utf8),
	}
	led.mu.Unlock()
	for _, l := range floodLines {
		lines = append(lines, "  "+l)
	}
	lines = append(lines, cf.summary()...)
	for _, e := range c.selfExits {
		lines = append(lines, "exited on its own: "+e)
	}
	lines = append(lines, fmt.Sprintf("violations: %d", len(res.v.list)))
	t.Log("chaos figures:\n" + strings.Join(lines, "\n"))
}
