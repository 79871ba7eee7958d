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
	var all, first, later []time.Duration
	before := 0
	for _, t := range f.timings {
		d := t.end.Sub(t.start)
		all = append(all, d)
		if t.turn == 1 {
			first = append(first, d)
		} else {
			later = append(later, d)
		}
		if !f.killed.IsZero() && t.end.Before(f.killed) {
			before++
		}
	}
	elapsed := f.end.Sub(f.start)
	turns := len(f.timings)
	var w strings.Builder
	fmt.Fprintf(&w, "\n%d agents × %d turns = %d turns in %.1f s: %.1f turns/s", f.env.Agents, f.turns, turns,
		elapsed.Seconds(), float64(turns)/elapsed.Seconds())
	fmt.Fprintf(&w, "\nturn latency (followup → idle): p50 %s, p99 %s; first turns (from the shared queue) p50 %s, p99 %s; "+
		"later turns (sticky to a worker) p50 %s, p99 %s", ms(pct(all, 50)), ms(pct(all, 99)),
		ms(pct(first, 50)), ms(pct(first, 99)), ms(pct(later, 50)), ms(pct(later, 99)))
	var rec recovery
	if !f.killed.IsZero() {
		rec = f.recovery(counts)
		k := f.killed.Sub(f.start)
		fmt.Fprintf(&w, "\nkill: %s SIGKILLed %.1f s in, after %d of %d turns (%.1f turns/s before, %.1f after); "+
			"the server had given all it held to others %.1f s after the kill (its last timeout); "+
			"it disturbed %d agents (an activity or workflow task of theirs timed out, or an activity was retried), "+
			"whose disturbed turns were all done %.1f s after the kill (recovery; the last was turn %d of %s)",
			f.env.Kill, k.Seconds(), before, turns, float64(before)/k.Seconds(),
			float64(turns-before)/f.end.Sub(f.killed).Seconds(), rec.detect.Seconds(), rec.agents, rec.done.Seconds(), rec.lastTurn, f.agentID(rec.lastAgent))
		if rec.early > 0 {
			fmt.Fprintf(&w, "; %d agents had such a trace before the kill (overload)", rec.early)
		}
	}
	fmt.Fprintf(&w, "\nverified from every agent's history: %d user messages, each settled as completed with one answer; "+
		"every tool call started once and answered once by its tool", turns)
	fmt.Fprintf(&w, "\ntraces of a lost worker: %d retry turns, %d activities timed out, %d activities retried, %d workflow tasks timed out",
		counts.retryTurns, counts.activityTimeouts, counts.activityRetries, counts.taskTimeouts)
	f.reportProcesses(&w, counts, turns)
	b.Log(w.String())
	b.ReportMetric(float64(turns)/elapsed.Seconds(), "turns/s")
	b.ReportMetric(float64(pct(all, 50).Microseconds())/1000, "p50-ms/turn")
	b.ReportMetric(float64(pct(all, 99).Microseconds())/1000, "p99-ms/turn")
	if !f.killed.IsZero() {
		b.ReportMetric(rec.done.Seconds(), "recovery-s")
	}
}

// recovery is what a kill did to the fleet.
type recovery struct {
	agents, early int           // agents with traces of a lost worker after the kill, and before it
	detect        time.Duration // kill → the last trace after it
	done          time.Duration // kill → the last disturbed turn done
	lastAgent     int           // that turn's agent
	lastTurn      int           // and its number there
}

// recovery finds the agents the kill disturbed (a trace of a lost worker
// after it) and, for each, the turn its last trace fell in.
func (f *fleet) recovery(counts clusterCounts) recovery {
	var r recovery
	turns := map[int][]turnTiming{}
	for _, t := range f.timings {
		turns[t.agent] = append(turns[t.agent], t)
	}
	for a, traces := range counts.disturbed {
		var last time.Time
		for _, t := range traces {
			if t.After(f.killed) && t.After(last) {
				last = t
			}
		}
		if slices.ContainsFunc(traces, func(t time.Time) bool { return t.Before(f.killed) }) {
			r.early++
		}
		if last.IsZero() {
			continue
		}
		r.agents++
		r.detect = max(r.detect, last.Sub(f.killed))
		slices.SortFunc(turns[a], func(x, y turnTiming) int { return x.turn - y.turn })
		for _, t := range turns[a] {
			if !t.end.Before(last) {
				if d := t.end.Sub(f.killed); d > r.done {
					r.done, r.lastAgent, r.lastTurn = d, a, t.turn
				}
				break
			}
		}
	}
	return r
}

// reportProcesses writes each process's CPU time during the run, its
// memory and, for workers, what it ran; any other identity that ran
// something is listed too.
func (f *fleet) reportProcesses(w *strings.Builder, counts clusterCounts, turns int) {
	names := slices.Sorted(maps.Keys(f.env.Procs))
	if _, ok := f.cpu0["postgres"]; ok {
		names = append(names, "postgres")
	}
	for name := range counts.activities {
		if _, ok := f.env.Procs[name]; !ok {
			names = append(names, name)
		}
	}
	var cpu float64
	for _, name := range names {
		fmt.Fprintf(w, "\n%s:", name)
		if n, t := counts.activities[name], counts.workflowTasks[name]; n+t > 0 {
			fmt.Fprintf(w, " %d activities, %d workflow tasks;", n, t)
		}
		if end, ok := f.cpu1[name]; ok {
			used := end - f.cpu0[name]
			cpu += used
			fmt.Fprintf(w, " CPU %.0f s;", used)
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
	if cpu > 0 {
		fmt.Fprintf(w, "\nCPU of these processes: %.0f s in all, %.0f ms a turn", cpu, 1000*cpu/float64(turns))
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
