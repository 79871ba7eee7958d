package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// rss is a process's resident memory now and at its peak, in KiB.
type rss struct{ now, peak int64 }

func readRSS(pid int) (rss, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return rss{}, fmt.Errorf("memory of pid %d: %w", pid, err)
	}
	var r rss
	for _, line := range strings.Split(string(b), "\n") {
		key, val, _ := strings.Cut(line, ":")
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		switch key {
		case "VmRSS":
			r.now = n
		case "VmHWM":
			r.peak = n
		}
	}
	return r, nil
}

// userHZ is the unit of /proc/<pid>/stat times on Linux.
const userHZ = 100

// cpuSeconds is the CPU time pid, its reaped children and its live
// children have used: a PostgreSQL server is its postmaster's children.
func cpuSeconds(pid int) (float64, error) {
	_, ticks, err := readStat(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("CPU of pid %d: %w", pid, err)
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		if ppid, child, err := readStat(path); err == nil && ppid == pid {
			ticks += child
		}
	}
	return float64(ticks) / userHZ, nil
}

// readStat returns a process's parent and its CPU ticks: user and system,
// its own and those of its reaped children.
func readStat(path string) (ppid int, ticks int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	// Fields after the command name, which may hold spaces: state, ppid,
	// ..., utime (12th), stime, cutime, cstime.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(fields) < 15 {
		return 0, 0, fmt.Errorf("%s: %d fields", path, len(fields))
	}
	ppid, _ = strconv.Atoi(fields[1])
	for _, f := range fields[11:15] {
		n, _ := strconv.ParseInt(f, 10, 64)
		ticks += n
	}
	return ppid, ticks, nil
}
