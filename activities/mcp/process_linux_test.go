package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/mcp"
)

// gone reports whether process pid has exited: it no longer exists, or
// it is a zombie no one has reaped yet.
func gone(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	_, fields, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(fields, "Z") || strings.HasPrefix(fields, "X")
}

func pidOf(t *testing.T, s string) int {
	t.Helper()
	var pid int
	_, err := fmt.Sscan(s, &pid)
	require.NoError(t, err, s)
	return pid
}

func TestAStdioServerDiesWithAWorkerKilledBySIGKILL(t *testing.T) {
	w := exec.Command(os.Args[0], "-test.run=^$")
	w.Env = append(os.Environ(), workerEnv+"="+serverBin, workerStateEnv+"="+t.TempDir())
	w.Stderr = os.Stderr
	out, err := w.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, w.Start())
	t.Cleanup(func() { _ = w.Process.Kill(); _ = w.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "the worker printed no server pid")
	server := pidOf(t, strings.TrimPrefix(line, "pid "))
	require.False(t, gone(server), "the server runs")

	require.NoError(t, w.Process.Signal(syscall.SIGKILL))
	_ = w.Wait()
	require.Eventually(t, func() bool { return gone(server) }, 10*time.Second, 10*time.Millisecond,
		"the server %d outlived its worker", server)
}

// connected is a transport whose connection is already open.
type connected struct{ conn sdk.Connection }

func (c connected) Connect(context.Context) (sdk.Connection, error) { return c.conn, nil }

// onEndingThread runs f on a goroutine locked to a thread that is not the
// main one and ends when f returns (Go ends a thread whose locked
// goroutine exits), and returns once it has ended.
func onEndingThread(t *testing.T, f func()) {
	t.Helper()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	tids := make(chan int, 1)
	for {
		go func() {
			runtime.LockOSThread()
			if syscall.Gettid() == os.Getpid() { // Go never ends the main thread: keep it
				tids <- 0
				<-release
				runtime.UnlockOSThread()
				return
			}
			f()
			tids <- syscall.Gettid()
		}() // returns locked: the thread ends
		if tid := <-tids; tid != 0 {
			require.Eventually(t, func() bool {
				_, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid))
				return os.IsNotExist(err)
			}, 10*time.Second, 5*time.Millisecond, "the locked thread ended")
			return
		}
	}
}

func TestAStdioServerOutlivesTheThreadThatAskedForIt(t *testing.T) {
	m := newFixture(t, false).manager()
	var (
		conn sdk.Connection
		err  error
	)
	onEndingThread(t, func() { conn, err = m.Transport("srv").Connect(context.Background()) })
	require.NoError(t, err)

	s, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(timeout(t, 10*time.Second), connected{conn}, nil)
	require.NoError(t, err, "the server answers after the thread that started it ended")
	t.Cleanup(func() { _ = s.Close() })
	res, err := s.CallTool(timeout(t, 10*time.Second), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "alive"}})
	require.NoError(t, err)
	require.Equal(t, "alive", mcp.Text(res))
}

func TestClosingAManagerKillsWhatItsStdioServersStarted(t *testing.T) {
	m := newFixture(t, false).manager()
	child := pidOf(t, call(t, m, "spawn", `{}`).Content)
	require.False(t, gone(child), "the server's child runs")

	require.NoError(t, m.Close())
	require.Eventually(t, func() bool { return gone(child) }, 10*time.Second, 10*time.Millisecond,
		"the server's child %d outlived the worker's stop", child)
}
