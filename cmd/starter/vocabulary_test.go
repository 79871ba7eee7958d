package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// devWorker builds the real starter and worker binaries, runs worker --dev
// on a free port and returns the starter and its environment.
func devWorker(t *testing.T) (starter string, env []string) {
	t.Helper()
	dir := t.TempDir()
	starter, worker := filepath.Join(dir, "starter"), filepath.Join(dir, "worker")
	for bin, pkg := range map[string]string{starter: ".", worker: "../worker"} {
		out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
		require.NoError(t, err, string(out))
	}
	port := strconv.Itoa(freePort(t))
	var wlog bytes.Buffer
	w := exec.Command(worker, "--dev", "--data-dir", filepath.Join(dir, "data"), "--port", port, "--ui-port", "0", "--console-addr", "")
	w.Stdout, w.Stderr = &wlog, &wlog
	require.NoError(t, w.Start())
	t.Cleanup(func() { _ = w.Process.Signal(os.Interrupt); _ = w.Wait() })
	env = append(os.Environ(), "TEMPORAL_ADDRESS=127.0.0.1:"+port)
	require.Eventually(t, func() bool {
		_, err := runStarter(starter, env, 10*time.Second, "ls")
		return err == nil
	}, time.Minute, 200*time.Millisecond, "worker --dev never answered:\n%s", &wlog)
	return starter, env
}

// lsRow is agent id's row of an ls table, its columns split; nil when the
// table has none.
func lsRow(table, id string) []string {
	for _, line := range strings.Split(table, "\n") {
		if cols := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1); cols[0] == id {
			return cols
		}
	}
	return nil
}

// ls runs ls args until agent id's row has status (visibility catches up
// a moment late) and returns the row and what ls printed on stderr.
func ls(t *testing.T, starter string, env []string, id, status string, args ...string) (row []string, out string) {
	t.Helper()
	require.Eventually(t, func() bool {
		out, _ = runStarter(starter, env, 30*time.Second, append([]string{"ls"}, args...)...)
		row = lsRow(out, id)
		return len(row) > 1 && row[1] == status
	}, 30*time.Second, 200*time.Millisecond, "ls never listed %s as %s:\n%s", id, status, &out)
	return row, out
}

// One agent, one word in every command: a disposed agent reads disposed
// in ls, status and tree (not completed, idle or "closed (completed)"); an
// agent no worker has run (its task queue has none) reads starting in all
// three, not "idle turn 0", and ls says which queue lacks a worker; and an
// agent that named no model reads "worker default" in ls, status and
// tree until its worker resolved one, never a model called
// "default/default".
func TestTheStarterBinarySaysOneWordForAnAgentInLsStatusAndTree(t *testing.T) {
	starter, env := devWorker(t)
	run := func(args ...string) string {
		t.Helper()
		out, err := runStarter(starter, env, time.Minute, args...)
		require.NoError(t, err, "starter %v:\n%s", args, out)
		return out
	}
	run("start", "--id", "v1", "--provider", "scripted", "--wait", "/say hi")
	run("dispose", "v1")
	row, _ := ls(t, starter, env, "v1", "disposed", "--all")
	require.Equal(t, "scripted/scripted-demo", row[2])
	require.Contains(t, run("status", "v1"), "status:    disposed\n")
	require.Contains(t, run("status", "v1"), "model:     scripted/scripted-demo\n")
	require.Regexp(t, `(?m)^v1  disposed  turn 1  scripted/scripted-demo`, run("tree", "v1"))

	run("--task-queue", "nowhere", "start", "--id", "v2", "hi")
	row, out := ls(t, starter, env, "v2", "starting")
	require.Equal(t, []string{"v2", "starting", "worker default", "0"}, row[:4])
	require.Contains(t, out, `starter: no worker polls task queue "nowhere", so none has run these agents yet (starting): v2; `+
		"they run once one polls it (worker --task-queue nowhere)\n")
	st := run("status", "v2")
	require.Contains(t, st, "status:    starting\n")
	require.Contains(t, st, "model:     worker default\n")
	require.Equal(t, "v2  starting  worker default\n", firstLine(run("tree", "v2")))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line + "\n"
}
