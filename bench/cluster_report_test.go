package bench

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// report logs the run's figures and reports the headline ones as metrics.
func (f *fleet) report(b *testing.B, counts clusterCounts) {
	var all, before []time.Duration
	var inFlight int
	var recovery time.Duration
	for _, t := range f.timings {
		d := t.end.Sub(t.start)
		all = append(all, d)
		if f.killed.IsZero() || t.end.Before(f.killed) {
			before = append(before, d)
		}
		if !f.killed.IsZero() && t.start.Before(f.killed) && t.end.After(f.killed) {
			inFlight++
			recovery = max(recovery, t.end.Sub(f.killed))
		}
	}
	elapsed := f.end.Sub(f.start)
	turns := len(f.timings)
	var w strings.Builder
	fmt.Fprintf(&w, "\n%d agents × %d turns = %d turns in %.1f s: %.1f turns/s\n", f.env.Agents, f.turns, turns,
		elapsed.Seconds(), float64(turns)/elapsed.Seconds())
	fmt.Fprintf(&w, "turn latency (followup → idle): p50 %s, p99 %s", ms(pct(all, 50)), ms(pct(all, 99)))
	if !f.killed.IsZero() {
		fmt.Fprintf(&w, "; before the kill p50 %s, p99 %s", ms(pct(before, 50)), ms(pct(before, 99)))
		fmt.Fprintf(&w, "\nkill: %s SIGKILLed %.1f s in, after %d of %d turns; %d turns were in flight, "+
			"the last of them done %.1f s after the kill (recovery)", f.env.Kill, f.killed.Sub(f.start).Seconds(),
			len(before), turns, inFlight, recovery.Seconds())
	}
	fmt.Fprintf(&w, "\nverified from every agent's history: %d user messages, each settled as completed with one answer; "+
		"every tool call started once and answered once by its tool", turns)
	fmt.Fprintf(&w, "\ntraces of the kill: %d retry turns, %d activities timed out, %d activities retried, %d workflow tasks timed out",
		counts.retryTurns, counts.activityTimeouts, counts.activityRetries, counts.taskTimeouts)
	f.reportProcesses(&w, counts)
	b.Log(w.String())
	b.ReportMetric(float64(turns)/elapsed.Seconds(), "turns/s")
	b.ReportMetric(float64(pct(all, 50).Microseconds())/1000, "p50-ms/turn")
	b.ReportMetric(float64(pct(all, 99).Microseconds())/1000, "p99-ms/turn")
	if !f.killed.IsZero() {
		b.ReportMetric(recovery.Seconds(), "recovery-s")
	}
}

// reportProcesses writes each named process's memory and, for workers,
// what it ran; any other identity that ran something is listed too.
func (f *fleet) reportProcesses(w *strings.Builder, counts clusterCounts) {
	names := slices.Sorted(maps.Keys(f.env.Procs))
	for name := range counts.activities {
		if _, ok := f.env.Procs[name]; !ok {
			names = append(names, name)
		}
	}
	for _, name := range names {
		fmt.Fprintf(w, "\n%s:", name)
		if n, t := counts.activities[name], counts.workflowTasks[name]; n+t > 0 {
			fmt.Fprintf(w, " %d activities, %d workflow tasks;", n, t)
		}
		mem, ok := f.memory[name]
		switch {
		case ok:
			fmt.Fprintf(w, " RSS %s at the kill, peak %s", mib(mem.now), mib(mem.peak))
		case f.env.Procs[name] > 0:
			if mem, err := readRSS(f.env.Procs[name]); err == nil {
				fmt.Fprintf(w, " RSS %s at the end, peak %s", mib(mem.now), mib(mem.peak))
			}
		}
	}
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000) }

func mib(kib int64) string { return fmt.Sprintf("%.0f MiB", float64(kib)/1024) }
