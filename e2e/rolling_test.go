package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/release"
	"github.com/tetherdev/tether/signals"
)

// build is a worker and a starter binary of one Tether build.
type build struct {
	name, worker, starter string
}

// versionedOld is a commit of main with Worker Deployment Versioning
// (--versioning, starter deployment and upgrade): the old build of the
// versioned rolling deploy, since the last release predates versioning.
const versionedOld = "7faed46728f9b175debda65b9d1184ff33107236"

// builds are the binaries built so far by this test process, by name:
// each build is made once.
var builds = struct {
	sync.Mutex
	m   map[string]build
	dir string
}{m: map[string]build{}}

// removeBuilds removes the builds' directory as the test process ends.
func removeBuilds() {
	builds.Lock()
	defer builds.Unlock()
	if builds.dir != "" {
		_ = os.RemoveAll(builds.dir)
	}
}

// built returns the build of name, making it with make the first time.
func built(t *testing.T, name string, make func(dir string) build) build {
	t.Helper()
	builds.Lock()
	defer builds.Unlock()
	if b, ok := builds.m[name]; ok {
		return b
	}
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "tether-builds-")
		require.NoError(t, err)
		builds.dir = dir
	}
	dir := filepath.Join(builds.dir, name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	b := make(dir)
	builds.m[name] = b
	return b
}

// headBuild is HEAD's worker and starter, built from the working tree.
func headBuild(t *testing.T) build {
	return built(t, "head", func(dir string) build {
		root, err := filepath.Abs("..")
		require.NoError(t, err)
		return buildIn(t, "head", root, dir)
	})
}

// buildRelease builds the last release's worker and starter.
func buildRelease(t *testing.T) build {
	t.Helper()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	rel, err := release.Last(root)
	require.NoError(t, err)
	return buildCommit(t, rel.Version, rel.Commit)
}

// buildCommit builds the worker and starter of commit from the
// repository's history (git archive: the repository is not written to).
func buildCommit(t *testing.T, name, commit string) build {
	t.Helper()
	return built(t, name, func(dir string) build {
		root, err := filepath.Abs("..")
		require.NoError(t, err)
		return buildArchive(t, name, root, commit, dir)
	})
}

// buildArchive extracts commit of the repository at root into dir/src
// and builds it.
func buildArchive(t *testing.T, name, root, commit, dir string) build {
	t.Helper()
	src := filepath.Join(dir, "src")
	require.NoError(t, os.MkdirAll(src, 0o755))
	archive := exec.Command("git", "archive", commit)
	archive.Dir = root
	tar := exec.Command("tar", "-x", "-C", src)
	pipe, err := archive.StdoutPipe()
	require.NoError(t, err)
	tar.Stdin = pipe
	var stderr bytes.Buffer
	archive.Stderr = &stderr
	require.NoError(t, tar.Start())
	require.NoError(t, archive.Run(), "git archive %s: %s", commit, stderr.String())
	require.NoError(t, tar.Wait())
	return buildIn(t, name, src, dir)
}

// buildIn builds cmd/worker and cmd/starter of the module at src into
// dir/bin.
func buildIn(t *testing.T, name, src, dir string) build {
	t.Helper()
	bin := filepath.Join(dir, "bin")
	cmd := exec.Command("go", "build", "-o", bin+string(os.PathSeparator), "./cmd/worker", "./cmd/starter")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "build %s: %s", name, out)
	return build{name: name, worker: filepath.Join(bin, "worker"), starter: filepath.Join(bin, "starter")}
}

// deploy is one Temporal server with builds' workers on its task queue,
// and a model server whose first call saying "stall" never answers.
type deploy struct {
	t     *testing.T
	e     *env
	model *httptest.Server
	dir   string

	extra []string // more environment of every process

	mu      sync.Mutex
	stalled chan struct{} // closed when the stalled call arrived
	calls   int
}

func newDeploy(t *testing.T) *deploy {
	d := &deploy{t: t, e: newEnv(t), dir: t.TempDir(), stalled: make(chan struct{})}
	d.model = httptest.NewServer(http.HandlerFunc(d.serveModel))
	t.Cleanup(d.model.Close)
	return d
}

// serveModel is an OpenAI chat completions endpoint answering "answer to:
// <last message>", but for the first call whose last message says stall,
// which it holds until its caller goes away.
func (d *deploy) serveModel(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Stream   bool `json:"stream"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	last := req.Messages[len(req.Messages)-1].Content
	d.mu.Lock()
	d.calls++
	stall := strings.Contains(last, "stall") && d.calls == 1
	d.mu.Unlock()
	if stall {
		close(d.stalled)
		<-r.Context().Done()
		return
	}
	writeChatAnswer(w, req.Stream, "answer to: "+last)
}

func (d *deploy) env() []string {
	env := append(os.Environ(), "TEMPORAL_ADDRESS="+d.e.ts.GetFrontendHostPort(), "TEMPORAL_NAMESPACE="+d.e.ts.GetDefaultNamespace(),
		"OPENAI_BASE_URL="+d.model.URL, "OPENAI_COMPATIBLE_API_KEY=sk-test")
	return append(env, d.extra...)
}

// proc is a running worker process and the file its output goes to.
type proc struct {
	cmd *exec.Cmd
	out string
}

// start runs b's worker: continuing as new every 2 turns, so chains form.
func (d *deploy) start(b build, args ...string) *proc {
	d.t.Helper()
	out := filepath.Join(d.dir, fmt.Sprintf("%s-%d.log", b.name, time.Now().UnixNano()))
	f, err := os.Create(out)
	require.NoError(d.t, err)
	cmd := exec.Command(b.worker, append([]string{"--max-run-turns", "2", "--heartbeat-timeout", "4s", "--provider", "scripted"}, args...)...)
	cmd.Env, cmd.Stdout, cmd.Stderr = d.env(), f, f
	require.NoError(d.t, cmd.Start())
	p := &proc{cmd: cmd, out: out}
	d.t.Cleanup(func() {
		p.kill()
		f.Close()
		if d.t.Failed() {
			log, _ := os.ReadFile(out)
			d.t.Logf("%s's worker said:\n%s", b.name, tail(log, 4000))
		}
	})
	waitFor(d.t, time.Minute, b.name+"'s worker to start", func() bool {
		log, _ := os.ReadFile(out)
		return bytes.Contains(log, []byte("Started Worker"))
	})
	return p
}

// tail is the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	_, _ = p.cmd.Process.Wait()
}

// stop ends the worker as a deploy does: SIGTERM, then it drains.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	_, _ = p.cmd.Process.Wait()
}

// output is what the worker wrote.
func (p *proc) output(t *testing.T) string {
	b, err := os.ReadFile(p.out)
	require.NoError(t, err)
	return string(b)
}

// starter runs b's starter, which must succeed, and returns its standard
// output.
func (d *deploy) starter(b build, args ...string) string {
	d.t.Helper()
	out, _ := d.runStarter(b, args...)
	return out
}

// starterErr runs b's starter, which must succeed and print something,
// and returns what it wrote to standard error.
func (d *deploy) starterErr(b build, args ...string) string {
	d.t.Helper()
	out, errOut := d.runStarter(b, args...)
	require.NotEmpty(d.t, out, "%s starter %v printed nothing", b.name, args)
	return errOut
}

func (d *deploy) runStarter(b build, args ...string) (stdout, stderr string) {
	d.t.Helper()
	cmd := exec.Command(b.starter, args...)
	cmd.Env = d.env()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(d.t, cmd.Run(), "%s starter %v: %s", b.name, args, errOut.String())
	return out.String(), errOut.String()
}

// pending waits for the agent's one call waiting for a person.
func (d *deploy) pending(ctx context.Context, id string) signals.PendingView {
	d.t.Helper()
	h, err := d.e.agents.Attach(ctx, id)
	require.NoError(d.t, err)
	var st signals.StatusView
	waitFor(d.t, time.Minute, id+"'s call to wait for a person", func() bool {
		st, err = h.Status(ctx)
		return err == nil && len(st.Pending) == 1
	})
	return st.Pending[0]
}

// results are the contents of the tool results in id's whole log, read by
// HEAD's client across its chain of runs, and the answers.
func (d *deploy) results(ctx context.Context, id string) (tools, said []string) {
	d.t.Helper()
	h, err := d.e.agents.Attach(ctx, id)
	if h == nil { // a closed agent's handle still reads
		require.NoError(d.t, err)
	}
	log, err := h.Log(ctx)
	require.NoError(d.t, err, "the log of %s", id)
	evs := events(d.t, log)
	for _, r := range ofType[eventlog.ToolResult](evs) {
		tools = append(tools, r.Content)
	}
	return tools, answers(evs)
}

// idle waits until id is idle, across runs.
func (d *deploy) idle(ctx context.Context, id string) signals.StatusView {
	d.t.Helper()
	h, err := d.e.agents.Attach(ctx, id)
	require.NoError(d.t, err)
	return idleAcrossRuns(ctx, d.t, h)
}

// requireNoNondeterminism: no workflow task of any agent failed for
// nondeterminism, and the worker never said so.
func requireNoNondeterminism(t *testing.T, ps ...*proc) {
	t.Helper()
	for _, p := range ps {
		out := p.output(t)
		for _, bad := range []string{"nondetermin", "TMPRL1100", "panic"} {
			require.NotContains(t, strings.ToLower(out), strings.ToLower(bad), "%s says %s", p.out, bad)
		}
	}
}

// A plain rolling deploy from the last release to HEAD (no versioning):
// agents in every state on the release's worker, HEAD's worker started
// beside it (the builds mixed on one task queue), the release's worker
// killed with SIGKILL while a model call is in flight; then HEAD alone.
// Every agent finishes what it was doing exactly once, no workflow task
// fails for nondeterminism, and HEAD reads every agent's log across its
// chain of runs.
func TestARollingDeployFromTheLastReleaseFinishesEveryAgentOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the last release")
	}
	old := buildRelease(t)
	head := headBuild(t)
	d := newDeploy(t)
	ctx := ctxT(t, 6*time.Minute)

	v1 := d.start(old)
	calc := `/tool calculate {"expression":"6*7"}`
	d.starter(old, "start", "--id", "r-idle", "--wait", calc)
	d.starter(old, "start", "--id", "r-approval", "--approve", "calculate", `/tool calculate {"expression":"2+3"}`)
	d.starter(old, "start", "--id", "r-question", "--tools", "ask_human", `/tool ask_human {"question":"which colour?"}`)
	d.starter(old, "start", "--id", "r-wait", "--tools", "wait", `/tool wait {"seconds":20}`)
	d.starter(old, "start", "--id", "r-scheduled", "--wait", "/say now")
	d.starter(old, "followup", "--in", "20s", "r-scheduled", "/say later")
	child := `/tool ask_human {"question":"ready?"}`
	d.starter(old, "start", "--id", "r-parent", "--tools", "spawn_agent,ask_human",
		fmt.Sprintf(`/tool spawn_agent {"task":%q,"mode":"wait","tools":["ask_human"]}`, child)+"\n"+
			fmt.Sprintf(`/tool spawn_agent {"task":%q,"mode":"detach","tools":["ask_human"]}`, child))
	d.starter(old, "start", "--id", "r-chain", "--wait", "/say one")
	d.starter(old, "followup", "r-chain", "/say two")
	d.idle(ctx, "r-chain")
	d.starter(old, "followup", "r-chain", "/say three")
	d.idle(ctx, "r-chain")
	d.pending(ctx, "r-approval")
	d.pending(ctx, "r-question")
	parent, err := d.e.agents.Attach(ctx, "r-parent")
	require.NoError(t, err)
	var children []string
	waitFor(t, time.Minute, "the parent's two children to ask", func() bool {
		st, err := parent.Status(ctx)
		if err != nil || len(st.Children) != 2 {
			return false
		}
		children = children[:0]
		for _, c := range st.Children {
			children = append(children, c.ID)
		}
		return true
	})
	for _, c := range children {
		d.pending(ctx, c)
	}
	d.starter(old, "start", "--id", "r-inflight", "--provider", "openai", "stall here")
	select {
	case <-d.stalled:
	case <-ctx.Done():
		t.Fatal("the model call never arrived")
	}
	require.NotEmpty(t, d.firstRun(ctx, "r-chain"), "r-chain continued as new")

	// HEAD beside the release: the builds share the task queue.
	v2 := d.start(head)
	approval := d.pending(ctx, "r-approval")
	h, err := d.e.agents.Attach(ctx, "r-approval")
	require.NoError(t, err)
	_, err = h.Approve(ctx, approval.CallID, "ops", "fine")
	require.NoError(t, err)
	question := d.pending(ctx, "r-question")
	h, err = d.e.agents.Attach(ctx, "r-question")
	require.NoError(t, err)
	_, err = h.Answer(ctx, question.CallID, "ops", "green")
	require.NoError(t, err)
	d.idle(ctx, "r-approval")
	d.idle(ctx, "r-question")

	// The release's worker dies mid-call; HEAD carries on alone.
	v1.kill()
	for _, c := range children {
		p := d.pending(ctx, c)
		h, err := d.e.agents.Attach(ctx, c)
		require.NoError(t, err)
		_, err = h.Answer(ctx, p.CallID, "ops", "ready")
		require.NoError(t, err)
	}
	_, err = d.e.agents.Attach(ctx, "r-idle")
	require.NoError(t, err)
	d.starter(head, "followup", "r-idle", `/tool calculate {"expression":"1+1"}`)
	d.starter(head, "followup", "r-chain", "/say four")
	for _, id := range []string{"r-idle", "r-wait", "r-scheduled", "r-parent", "r-chain", "r-inflight"} {
		d.idle(ctx, id)
	}
	waitFor(t, time.Minute, "the scheduled message's turn", func() bool {
		_, said := d.results(ctx, "r-scheduled")
		return len(said) == 2
	})

	want := map[string][2][]string{
		"r-idle":      {{"42", "2"}, nil},
		"r-approval":  {{"5"}, nil},
		"r-question":  {{"green"}, nil},
		"r-scheduled": {nil, {"now", "later"}},
		"r-chain":     {nil, {"one", "two", "three", "four"}},
		"r-inflight":  {nil, {"answer to: stall here"}},
	}
	for id, w := range want {
		tools, said := d.results(ctx, id)
		if w[0] != nil {
			require.Equal(t, w[0], tools, "%s: each call ran once", id)
		}
		if w[1] != nil {
			require.Equal(t, w[1], said, "%s: each turn answered once", id)
		}
	}
	tools, _ := d.results(ctx, "r-wait")
	require.Len(t, tools, 1, "the wait ended once: %v", tools)
	tools, _ = d.results(ctx, "r-parent")
	require.Len(t, tools, 2, "both spawns have one result: %v", tools)
	require.Contains(t, strings.Join(tools, "\n"), "ready", "the waited-for child's answer")
	for _, c := range children {
		tools, _ := d.results(ctx, c)
		require.Equal(t, []string{"ready"}, tools, "child %s", c)
	}
	for _, id := range append([]string{"r-idle", "r-approval", "r-question", "r-wait", "r-scheduled", "r-parent", "r-chain", "r-inflight"}, children...) {
		require.NotEmpty(t, d.starter(head, "log", id), "HEAD's starter reads %s's log", id)
	}
	requireNoNondeterminism(t, v2)
}

// firstRun is "" when the agent has one run, else the ID of its first.
func (d *deploy) firstRun(ctx context.Context, id string) string {
	desc, err := d.e.c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(d.t, err)
	if first := desc.GetWorkflowExecutionInfo().GetFirstRunId(); first != desc.GetWorkflowExecutionInfo().GetExecution().GetRunId() {
		return first
	}
	return ""
}

// failedTasks are the causes of the failed workflow tasks in the history
// of id's latest run.
func (d *deploy) failedTasks(ctx context.Context, id string) []string {
	var out []string
	it := d.e.c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(d.t, err)
		if f := ev.GetWorkflowTaskFailedEventAttributes(); f != nil {
			out = append(out, f.GetFailure().GetMessage())
		}
	}
	return out
}

// The reverse: agents HEAD started, then the release's worker in its place
// (a rollback). The release refuses HEAD's runs cleanly: their workflow
// tasks fail naming the loop rules it does not know, and nothing is
// recorded. With HEAD back, each agent takes what arrived meanwhile and
// finishes exactly once.
func TestARollbackToTheLastReleaseRefusesHEADsRunsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the last release")
	}
	old := buildRelease(t)
	head := headBuild(t)
	d := newDeploy(t)
	ctx := ctxT(t, 6*time.Minute)

	v2 := d.start(head)
	d.starter(head, "start", "--id", "b-idle", "--wait", `/tool calculate {"expression":"6*7"}`)
	d.starter(head, "start", "--id", "b-approval", "--approve", "calculate", `/tool calculate {"expression":"2+3"}`)
	d.starter(head, "start", "--id", "b-wait", "--tools", "wait", `/tool wait {"seconds":5}`)
	approval := d.pending(ctx, "b-approval")
	v2.stop(t)

	v1 := d.start(old)
	d.starter(head, "followup", "--no-ack", "b-idle", `/tool calculate {"expression":"1+1"}`)
	waitFor(t, 2*time.Minute, "the release to refuse b-idle's and b-wait's runs", func() bool {
		return len(d.failedTasks(ctx, "b-idle")) > 0 && len(d.failedTasks(ctx, "b-wait")) > 0
	})
	for _, id := range []string{"b-idle", "b-wait"} {
		for _, cause := range d.failedTasks(ctx, id) {
			require.Contains(t, cause, "unknown loop rules", "%s: the release says why it refuses", id)
		}
	}
	// Its queries fail too (the run's workflow task is failing): the log is
	// read from history, which shows the release recorded nothing.
	h, err := d.e.agents.Attach(ctx, "b-idle")
	require.NoError(t, err)
	log, err := h.Log(ctx)
	var tf *agent.TaskFailingError
	require.ErrorAs(t, err, &tf)
	require.True(t, tf.FromHistory)
	var results []string
	for _, r := range ofType[eventlog.ToolResult](events(t, log)) {
		results = append(results, r.Content)
	}
	require.Equal(t, []string{"42"}, results, "nothing recorded by the release")
	out := d.starterErr(head, "log", "b-idle")
	require.Contains(t, out, "workflow task of agent b-idle is failing", "starter log says why it read history")
	v1.kill()

	v2 = d.start(head)
	h, err = d.e.agents.Attach(ctx, "b-approval")
	require.NoError(t, err)
	_, err = h.Approve(ctx, approval.CallID, "ops", "fine")
	require.NoError(t, err)
	for _, id := range []string{"b-idle", "b-approval", "b-wait"} {
		d.idle(ctx, id)
	}
	for id, want := range map[string]int{"b-idle": 2, "b-approval": 1, "b-wait": 1} {
		tools, _ := d.results(ctx, id)
		require.Len(t, tools, want, "%s: %v", id, tools)
	}
	tools, _ := d.results(ctx, "b-idle")
	require.Equal(t, []string{"42", "2"}, tools, "the followup sent during the rollback is taken once")
	requireNoNondeterminism(t, v2)
}

// buildID is the build ID the worker said it started with.
func (p *proc) buildID(t *testing.T) string {
	t.Helper()
	for _, line := range strings.Split(p.output(t), "\n") {
		if !strings.Contains(line, `msg="Started Worker"`) {
			continue
		}
		for _, f := range strings.Fields(line) {
			if id, ok := strings.CutPrefix(f, "BuildID="); ok {
				return id
			}
		}
	}
	t.Fatalf("%s names no build ID", p.out)
	return ""
}

// runBuild is the build of the version id's latest run is on ("" while it
// moves).
func (d *deploy) runBuild(ctx context.Context, id string) string {
	desc, err := d.e.c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(d.t, err)
	return desc.GetWorkflowExecutionInfo().GetVersioningInfo().GetDeploymentVersion().GetBuildId()
}

// A rolling deploy under Worker Deployment Versioning, as an operator runs
// it: agents in every state on the old build (a recorded commit with
// versioning), the new build (HEAD) started beside it and made current,
// the people's answers given (to the runs still pinned to the old build),
// every agent upgraded, the old build's workers stopped once nothing runs
// on it. Each agent ends on HEAD having done what it was doing exactly
// once, with no nondeterminism, and HEAD reads every log across its
// chain, the runs pinned to the stopped build included.
func TestAVersionedRollingDeployMovesEveryAgentToTheNewBuildOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an old commit")
	}
	old := buildCommit(t, "versioned-old", versionedOld)
	head := headBuild(t)
	d := newDeploy(t)
	d.extra = []string{"TETHER_DEPLOYMENT_NAME=roll"}
	ctx := ctxT(t, 8*time.Minute)

	v1 := d.start(old, "--versioning")
	b1 := v1.buildID(t)
	d.starter(old, "start", "--id", "v-idle", "--wait", `/tool calculate {"expression":"6*7"}`)
	require.Equal(t, b1, d.runBuild(ctx, "v-idle"), "the first versioned worker made itself current")
	d.starter(old, "start", "--id", "v-approval", "--approve", "calculate", `/tool calculate {"expression":"2+3"}`)
	d.starter(old, "start", "--id", "v-scheduled", "--wait", "/say now")
	d.starter(old, "followup", "--in", "45s", "v-scheduled", "/say later")
	d.starter(old, "start", "--id", "v-chain", "--wait", "/say one")
	for _, say := range []string{"/say two", "/say three"} {
		d.starter(old, "followup", "v-chain", say)
		d.idle(ctx, "v-chain")
	}
	require.NotEmpty(t, d.firstRun(ctx, "v-chain"), "v-chain continued as new on the old build")
	child := `/tool ask_human {"question":"ready?"}`
	d.starter(old, "start", "--id", "v-parent", "--tools", "spawn_agent,ask_human",
		fmt.Sprintf(`/tool spawn_agent {"task":%q,"mode":"wait","tools":["ask_human"]}`, child)+"\n"+
			fmt.Sprintf(`/tool spawn_agent {"task":%q,"mode":"detach","tools":["ask_human"]}`, child))
	d.starter(old, "start", "--id", "v-wait", "--tools", "wait", `/tool wait {"seconds":30}`)
	approval := d.pending(ctx, "v-approval")
	parent, err := d.e.agents.Attach(ctx, "v-parent")
	require.NoError(t, err)
	var kids []signals.ChildView
	waitFor(t, time.Minute, "the parent's two children", func() bool {
		st, err := parent.Status(ctx)
		if err == nil {
			kids = st.Children
		}
		return len(kids) == 2
	})
	var kid, detached string
	for _, c := range kids {
		if c.Mode == "detach" {
			detached = c.ID
		} else {
			kid = c.ID
		}
	}
	require.NotEmpty(t, detached)
	require.NotEmpty(t, kid)
	question := d.pending(ctx, kid)
	detachedQuestion := d.pending(ctx, detached)

	v2 := d.start(head, "--versioning")
	b2 := v2.buildID(t)
	require.NotEqual(t, b1, b2)
	d.starter(head, "deployment", "current", b2)
	d.starter(head, "start", "--id", "v-new", "--wait", "/say on the new build")
	require.Equal(t, b2, d.runBuild(ctx, "v-new"), "a new agent starts on the current version")

	h, err := d.e.agents.Attach(ctx, "v-approval")
	require.NoError(t, err)
	_, err = h.Approve(ctx, approval.CallID, "ops", "fine")
	require.NoError(t, err)
	h, err = d.e.agents.Attach(ctx, kid)
	require.NoError(t, err)
	_, err = h.Answer(ctx, question.CallID, "ops", "ready")
	require.NoError(t, err)
	h, err = d.e.agents.Attach(ctx, detached)
	require.NoError(t, err)
	_, err = h.Answer(ctx, detachedQuestion.CallID, "ops", "ready")
	require.NoError(t, err)
	ids := []string{"v-idle", "v-approval", "v-scheduled", "v-chain", "v-parent", "v-wait", detached}
	for _, id := range ids {
		d.idle(ctx, id)
	}
	require.Equal(t, b1, d.runBuild(ctx, "v-idle"), "a pinned run stays on its build until it moves")
	out := d.starter(head, "upgrade", "--all")
	require.Contains(t, out, "v-idle", "upgrade --all names the agents it moved")
	waitFor(t, 2*time.Minute, "every agent to move to the new build", func() bool {
		for _, id := range ids {
			if d.runBuild(ctx, id) != b2 {
				return false
			}
		}
		return true
	})
	v1.stop(t) // drained: no open run is on it

	d.starter(head, "followup", "v-idle", `/tool calculate {"expression":"1+1"}`)
	d.starter(head, "followup", "v-chain", "/say four")
	for _, id := range ids {
		d.idle(ctx, id)
	}
	waitFor(t, 2*time.Minute, "the scheduled message's turn, on the new build", func() bool {
		_, said := d.results(ctx, "v-scheduled")
		return len(said) == 2
	})
	waitFor(t, 2*time.Minute, "the server to refuse queries of runs pinned to the stopped build", func() bool {
		run1 := d.firstRun(ctx, "v-chain")
		_, err := d.e.c.QueryWorkflow(ctx, "v-chain", run1, signals.LogQuery.Name, signals.LogRequest{})
		return err != nil && strings.Contains(err.Error(), "no poller seen")
	})
	want := map[string][2][]string{
		"v-idle":      {{"42", "2"}, nil},
		"v-approval":  {{"5"}, nil},
		"v-scheduled": {nil, {"now", "later"}},
		"v-chain":     {nil, {"one", "two", "three", "four"}},
	}
	for id, w := range want {
		tools, said := d.results(ctx, id)
		if w[0] != nil {
			require.Equal(t, w[0], tools, "%s: each call ran once", id)
		}
		if w[1] != nil {
			require.Equal(t, w[1], said, "%s: each turn answered once", id)
		}
	}
	tools, _ := d.results(ctx, "v-parent")
	require.Len(t, tools, 2, "each spawn has one result")
	require.Contains(t, strings.Join(tools, "\n"), "ask_human returned: ready", "the waited-for child's answer")
	tools, _ = d.results(ctx, "v-wait")
	require.Len(t, tools, 1, "the wait ended once: %v", tools)
	tools, _ = d.results(ctx, detached)
	require.Equal(t, []string{"ready"}, tools, "the detached child's question, answered once")
	for _, id := range ids {
		require.Equal(t, b2, d.runBuild(ctx, id), "%s ends on the new build", id)
		require.NotEmpty(t, d.starter(head, "log", id), "HEAD's starter reads %s's log", id)
	}

	// And back: the old build started again and made current by a
	// rollback. A run pinned to the new build stays there and is served
	// by it; at its Continue-As-New (every second turn here) it moves to
	// the old build, which knows its rules.
	v1 = d.start(old, "--versioning")
	require.Equal(t, b1, v1.buildID(t))
	d.starter(head, "deployment", "rollback")
	d.starter(head, "start", "--id", "v-after", "--wait", "/say on the old build again")
	require.Equal(t, b1, d.runBuild(ctx, "v-after"), "new agents start on the version made current")
	pinned, err := d.e.c.DescribeWorkflowExecution(ctx, "v-new", "")
	require.NoError(t, err)
	pinnedRun := pinned.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	d.starter(head, "followup", "v-new", "/say still pinned")
	d.idle(ctx, "v-new")
	requireOn(ctx, t, d.e, "v-new", pinnedRun, b2) // its turn was the new build's
	waitFor(t, time.Minute, "v-new to move to the old build", func() bool { return d.runBuild(ctx, "v-new") == b1 })
	d.starter(head, "followup", "v-new", "/say back on the old build")
	d.idle(ctx, "v-new")
	_, said := d.results(ctx, "v-new")
	require.Equal(t, []string{"on the new build", "still pinned", "back on the old build"}, said)
	requireNoNondeterminism(t, v1, v2)
}
