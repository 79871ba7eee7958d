package chaos

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// proc is one server or worker process.
type proc struct {
	cmd    *exec.Cmd
	began  time.Time
	exited chan struct{}
	killed atomic.Bool // by the harness, on purpose
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// kill sends SIGKILL and waits for the process to be gone.
func (p *proc) kill() {
	p.killed.Store(true)
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// outage is one kill: of the worker, or of the server (a restart).
type outage struct {
	server bool
	at     time.Time // the SIGKILL
	back   time.Time // the new worker started, or the new server serving
	pid    int       // the process killed
}

// cluster runs the server and the worker as processes of the test binary
// and replaces them when the schedule kills them. A worker that exits on
// its own (it cannot start while the server is down) is started again.
type cluster struct {
	bin        string
	dir        string // run directory: data, journal, logs
	port       int
	workerArgs []string

	mu        sync.Mutex
	server    *proc
	worker    *proc
	starts    map[string]int
	selfExits []string
	outages   []outage
	stopping  bool
}

func (c *cluster) hostPort() string { return "127.0.0.1:" + strconv.Itoa(c.port) }

// env is the harness's environment without what would change the worker's
// behaviour (provider keys, Temporal profiles, codec keys), plus role.
func (c *cluster) env(role string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "TEMPORAL_") ||
			strings.HasPrefix(k, "TETHER_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, envRole+"="+role, envDataDir+"="+filepath.Join(c.dir, "data"), envPort+"="+strconv.Itoa(c.port),
		envJournal+"="+c.dir)
}

// spawn starts role with args, its output going to logs/<role>-<n>.log.
func (c *cluster) spawn(role string, args []string, stdout io.Writer) (*proc, error) {
	c.mu.Lock()
	c.starts[role]++
	n := c.starts[role]
	c.mu.Unlock()
	logf, err := os.Create(filepath.Join(c.dir, "logs", fmt.Sprintf("%s-%03d.log", role, n)))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(c.bin, args...)
	cmd.Env, cmd.Stderr, cmd.Stdout = c.env(role), logf, logf
	if stdout != nil {
		cmd.Stdout = stdout
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", role, err)
	}
	p := &proc{cmd: cmd, began: time.Now(), exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(p.exited)
	}()
	return p, nil
}

// startServer starts the server and returns once it serves.
func (c *cluster) startServer(ctx context.Context) error {
	r, w := io.Pipe()
	p, err := c.spawn(roleServer, []string{"-test.run=^$"}, w)
	if err != nil {
		return err
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if sc.Text() == readyLine {
				close(ready)
				break
			}
		}
		_, _ = io.Copy(io.Discard, r)
	}()
	go func() { <-p.exited; w.Close() }()
	select {
	case <-ready:
	case <-p.exited:
		return errors.New("the server exited before serving (see its log in " + c.dir + "/logs)")
	case <-ctx.Done():
		p.kill()
		return fmt.Errorf("the server did not serve in time: %w", ctx.Err())
	}
	c.mu.Lock()
	c.server = p
	c.mu.Unlock()
	go c.watch(p, roleServer)
	return nil
}

// startWorker starts a worker process.
func (c *cluster) startWorker() error {
	p, err := c.spawn(roleWorker, c.workerArgs, nil)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.worker = p
	c.mu.Unlock()
	go c.watch(p, roleWorker)
	return nil
}

// watch notes a process that exits without being killed and starts it
// again: a worker exits when it cannot reach the server; a server should
// never exit, and the report says so.
func (c *cluster) watch(p *proc, role string) {
	<-p.exited
	if p.killed.Load() {
		return
	}
	c.mu.Lock()
	stopping := c.stopping
	if !stopping {
		c.selfExits = append(c.selfExits, fmt.Sprintf("%s pid %d: %v", role, p.pid(), p.cmd.ProcessState))
	}
	current := c.worker == p || c.server == p
	c.mu.Unlock()
	if stopping || !current {
		return
	}
	time.Sleep(time.Second)
	c.mu.Lock()
	again := (c.worker == p || c.server == p) && !c.stopping
	c.mu.Unlock()
	switch {
	case !again:
	case role == roleWorker:
		_ = c.startWorker()
	default:
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		_ = c.startServer(ctx)
	}
}

// killWorker kills the worker, waits down, and starts another.
func (c *cluster) killWorker(down time.Duration) error {
	c.mu.Lock()
	p := c.worker
	c.mu.Unlock()
	o := outage{at: time.Now(), pid: p.pid()}
	p.kill()
	time.Sleep(down)
	err := c.startWorker()
	o.back = time.Now()
	c.record(o)
	return err
}

// restartServer kills the server, waits down, and starts it again on its
// database; the worker keeps running and reconnects.
func (c *cluster) restartServer(ctx context.Context, down time.Duration) error {
	c.mu.Lock()
	p := c.server
	c.mu.Unlock()
	o := outage{server: true, at: time.Now(), pid: p.pid()}
	p.kill()
	time.Sleep(down)
	err := c.startServer(ctx)
	o.back = time.Now()
	c.record(o)
	return err
}

func (c *cluster) record(o outage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.outages = append(c.outages, o)
}

// stop kills both processes; nothing is restarted after it.
func (c *cluster) stop() {
	c.mu.Lock()
	c.stopping = true
	ps := []*proc{c.worker, c.server}
	c.mu.Unlock()
	for _, p := range ps {
		if p != nil {
			p.kill()
		}
	}
}
