package mcp

import (
	"context"
	"fmt"
	"os/exec"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdio is the transport of a stdio server: the SDK's CommandTransport,
// with the server started as the leader of its own process group, bound
// to die with the worker (see process_linux.go), and that group killed
// once the session ends, so what the server started ends with it.
type stdio struct {
	cmd   *exec.Cmd
	inner *sdk.CommandTransport
}

func newStdio(cmd *exec.Cmd) *stdio {
	cmd.SysProcAttr = groupAttr()
	return &stdio{cmd: cmd, inner: &sdk.CommandTransport{Command: cmd, TerminateDuration: StopWait}}
}

// Connect starts the server on the thread that starts every server, which
// lives as long as the worker: a parent-death signal follows the thread
// that forked, not the process.
func (t *stdio) Connect(ctx context.Context) (sdk.Connection, error) {
	var (
		conn sdk.Connection
		err  error
	)
	if perr := onStarterThread(func() { conn, err = t.inner.Connect(ctx) }); perr != nil {
		return nil, perr
	}
	if err != nil {
		return nil, err
	}
	return &groupConn{Connection: conn, pid: t.cmd.Process.Pid}, nil
}

// groupConn kills the server's process group once the connection is
// closed, which the SDK's Close does after the server exited (or was
// terminated): processes the server started and left behind die too.
type groupConn struct {
	sdk.Connection
	pid  int
	once sync.Once
}

func (c *groupConn) Close() error {
	err := c.Connection.Close()
	c.once.Do(func() { killGroup(c.pid) })
	return err
}

// run calls f and returns its panic as an error, so a panic never ends
// the goroutine that runs it.
func run(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("start MCP server: panic: %v", p)
		}
	}()
	f()
	return nil
}
