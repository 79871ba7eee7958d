package a2aserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
)

// Push defaults.
const (
	// DefaultPushTimeout bounds one POST of a notification.
	DefaultPushTimeout = 10 * time.Second
	// DefaultPushAttempts bounds the POSTs of one notification: a receiver
	// that is down, answers 5xx or 429 is tried again, after 1s, then 2s.
	DefaultPushAttempts = 3
	// MaxPushConfigs bounds the configs of one task.
	MaxPushConfigs = 8
	// MaxPushTasks bounds the tasks with configs at once.
	MaxPushTasks = 10000
	// pushQueue is how many notifications one receiver may be behind
	// before the oldest undelivered is dropped.
	pushQueue = 16
)

// tokenHeader carries a config's token, as the A2A spec names it.
const tokenHeader = "X-A2A-Notification-Token"

// PushOptions configure push notifications.
type PushOptions struct {
	// Allow names what a push URL may reach beyond public addresses: host
	// names (any address they resolve to), IP addresses and CIDR
	// prefixes. Empty: public addresses only.
	Allow []string
	// Timeout bounds one POST (DefaultPushTimeout); Attempts the POSTs of
	// one notification (DefaultPushAttempts).
	Timeout  time.Duration
	Attempts int
}

// pusher keeps the push configs of tasks, in memory, and sends each
// task's state changes to them: one watcher per task with configs follows
// the agent's log (it reads, never writes), and one sender per config
// POSTs the task, in order, from its own queue, so a slow or dead
// receiver delays only itself and never the agent or a stream. Configs
// are dropped once their task's terminal state is sent, or when the
// server closes.
type pusher struct {
	h        *handler // reads tasks; its profile is unused
	guard    *pushGuard
	guarded  *http.Client
	open     *http.Client
	attempts int
	log      *slog.Logger

	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu    sync.Mutex
	tasks map[a2a.TaskID]*pushTask
}

type pushTask struct {
	targets []*pushTarget // in the order they were set
	last    *a2a.Task     // the last state sent to the targets
}

type pushTarget struct {
	config a2a.PushConfig
	queue  chan *a2a.Task
	cancel context.CancelFunc
}

func newPusher(h *handler, o PushOptions, log *slog.Logger) (*pusher, error) {
	g, err := newPushGuard(o.Allow)
	if err != nil {
		return nil, err
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultPushTimeout
	}
	if o.Attempts <= 0 {
		o.Attempts = DefaultPushAttempts
	}
	p := &pusher{h: h, guard: g, attempts: o.Attempts, log: log, tasks: map[a2a.TaskID]*pushTask{}}
	p.guarded, p.open = g.clients(o.Timeout)
	p.ctx, p.stop = context.WithCancel(context.Background())
	return p, nil
}

// close ends every watcher and sender and waits for them.
func (p *pusher) close() {
	p.stop()
	p.wg.Wait()
}

// set adds (or, with an ID already set, replaces) a config of task id,
// which must exist; the config is sent the task's state now, then every
// change. It returns the config as kept (with its ID).
func (p *pusher) set(ctx context.Context, id a2a.TaskID, c a2a.PushConfig) (*a2a.PushConfig, error) {
	if err := p.guard.check(ctx, &c); err != nil {
		return nil, err
	}
	if _, err := p.h.task(ctx, id); err != nil {
		return nil, err
	}
	if c.ID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		c.ID = "push-" + hex.EncodeToString(b[:])
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx.Err() != nil {
		return nil, fmt.Errorf("%w: the server is closing", a2a.ErrInternalError)
	}
	t := p.tasks[id]
	if t == nil {
		if len(p.tasks) >= MaxPushTasks {
			return nil, refusePush("this server holds configs for %d tasks, its most; try again once some have ended", MaxPushTasks)
		}
		t = &pushTask{}
		p.tasks[id] = t
		p.wg.Add(1)
		go p.watch(id)
	}
	if i := slices.IndexFunc(t.targets, func(x *pushTarget) bool { return x.config.ID == c.ID }); i >= 0 {
		t.targets[i].cancel()
		t.targets = slices.Delete(t.targets, i, i+1)
	} else if len(t.targets) >= MaxPushConfigs {
		return nil, refusePush("task %s has %d configs, its most: delete one first", id, MaxPushConfigs)
	}
	tg := p.start(c)
	t.targets = append(t.targets, tg)
	if t.last != nil {
		tg.queue <- t.last
	}
	out := c
	return &out, nil
}

// start runs a sender for c until its queue closes or it is canceled.
func (p *pusher) start(c a2a.PushConfig) *pushTarget {
	ctx, cancel := context.WithCancel(p.ctx)
	tg := &pushTarget{config: c, queue: make(chan *a2a.Task, pushQueue), cancel: cancel}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer cancel()
		for {
			select {
			case <-ctx.Done():
				return
			case task, ok := <-tg.queue:
				if !ok {
					return
				}
				p.deliver(ctx, c, task)
			}
		}
	}()
	return tg
}

// configs are task id's configs, in the order they were set.
func (p *pusher) configs(id a2a.TaskID) []a2a.PushConfig {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []a2a.PushConfig
	if t := p.tasks[id]; t != nil {
		for _, tg := range t.targets {
			out = append(out, tg.config)
		}
	}
	return out
}

// remove deletes task id's config cid; it reports whether there was one.
func (p *pusher) remove(id a2a.TaskID, cid string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.tasks[id]
	if t == nil {
		return false
	}
	i := slices.IndexFunc(t.targets, func(x *pushTarget) bool { return x.config.ID == cid })
	if i < 0 {
		return false
	}
	t.targets[i].cancel()
	t.targets = slices.Delete(t.targets, i, i+1)
	return true
}

// publish queues task for every config of its task when its state
// changed; a terminal state is the last: the configs are dropped once
// their senders have sent it. It reports whether the task is done.
func (p *pusher) publish(task *a2a.Task) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.tasks[task.ID]
	if t == nil {
		return true
	}
	if t.last != nil && t.last.Status.State == task.Status.State {
		return false
	}
	t.last = task
	for _, tg := range t.targets {
		select {
		case tg.queue <- task:
		default:
			p.log.Warn("A2A push receiver behind; notification dropped", "task", task.ID, "config", tg.config.ID, "state", task.Status.State)
		}
	}
	if !task.Status.State.Terminal() && len(t.targets) > 0 {
		return false
	}
	for _, tg := range t.targets {
		close(tg.queue) // the sender sends what is queued, then ends
	}
	delete(p.tasks, task.ID)
	return true
}

// watchRetry bounds the wait before a watcher reads a task again after
// its log could not be read.
const watchRetry = 30 * time.Second

// watch follows task id until it is terminal (publishing each change),
// its configs are all deleted, or the server closes. A log that cannot be
// read is read again, backing off; a task that is gone drops its configs.
func (p *pusher) watch(id a2a.TaskID) {
	defer p.wg.Done()
	wait := time.Second
	for p.ctx.Err() == nil {
		hd, msg, err := p.h.attach(p.ctx, id)
		var snap snapshot
		if err == nil {
			snap, err = p.h.read(p.ctx, hd, msg)
		}
		if errors.Is(err, a2a.ErrTaskNotFound) {
			p.drop(id)
			return
		}
		if err == nil {
			for s, ferr := range p.h.follow(p.ctx, hd, msg, snap, terminal) {
				if ferr != nil {
					err = ferr
					break
				}
				if p.publish(s.task) {
					return
				}
				wait = time.Second
			}
		}
		if p.ctx.Err() != nil {
			return
		}
		if err != nil {
			p.log.Warn("A2A push watcher cannot read its task; trying again", "task", id, "error", err)
		}
		select {
		case <-p.ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, watchRetry)
	}
}

// drop forgets task id's configs.
func (p *pusher) drop(id a2a.TaskID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.tasks[id]; t != nil {
		for _, tg := range t.targets {
			tg.cancel()
		}
		delete(p.tasks, id)
	}
}

func terminal(t *a2a.Task) bool { return t.Status.State.Terminal() }

// deliver POSTs task to c's URL, as the A2A spec says (the Task as JSON,
// the config's token in X-A2A-Notification-Token, its credentials in
// Authorization), up to attempts times while the receiver cannot be
// reached or answers 5xx or 429. A notification not delivered is logged
// and dropped: the next change is sent as usual.
func (p *pusher) deliver(ctx context.Context, c a2a.PushConfig, task *a2a.Task) {
	body, err := json.Marshal(task)
	if err != nil {
		p.log.Error("A2A push notification not encoded", "task", task.ID, "error", err)
		return
	}
	client := p.guarded
	if u, err := checkPushURL(c.URL); err == nil && p.guard.allowedHost(u.Hostname()) {
		client = p.open
	}
	backoff := time.Second
	for attempt := 1; ; attempt++ {
		retry, err := p.post(ctx, client, c, body)
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			return
		}
		if !retry || attempt >= p.attempts {
			p.log.Warn("A2A push notification not delivered", "task", task.ID, "config", c.ID, "state", task.Status.State,
				"attempts", attempt, "error", err)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}

// post sends one POST; it reports whether a failure is worth another try.
func (p *pusher) post(ctx context.Context, client *http.Client, c a2a.PushConfig, body []byte) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.Token != "" {
		req.Header.Set(tokenHeader, c.Token)
	}
	if c.Auth != nil && c.Auth.Credentials != "" {
		if scheme, ok := pushScheme(c.Auth); ok {
			req.Header.Set("Authorization", scheme+" "+c.Auth.Credentials)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return !errors.Is(err, errPushAddr), err
	}
	_ = resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return false, nil
	}
	return resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests, fmt.Errorf("the receiver answered HTTP %s", resp.Status)
}
