package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/signals"
)

// EnvDeploymentName names the deployment of the worker's --versioning
// (the worker reads the same variable); the default is the task queue.
const EnvDeploymentName = "TETHER_DEPLOYMENT_NAME"

// deploymentName is --deployment-name's default.
func (e env) deploymentName(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if e.s.Env != nil && e.s.Env(EnvDeploymentName) != "" {
		return e.s.Env(EnvDeploymentName)
	}
	return e.conn.taskQueue
}

// deployment shows the versions of the worker deployment and the agents
// running on each (`starter deployment`), makes a version current
// (`starter deployment current BUILD`): new agents start on it, and every
// agent pinned to another moves to it when it continues as new; ramps one
// (`deployment ramp BUILD PERCENT`, `ramp --clear`) or rolls back to the
// version current before (`deployment rollback`, ramp.go).
func deployment(_ Starter, args []string) (action, error) {
	fs := flag.NewFlagSet("deployment", flag.ContinueOnError)
	name := fs.String("deployment-name", "", "the workers' --deployment-name (default "+EnvDeploymentName+", else the task queue)")
	clear := fs.Bool("clear", false, "with ramp: stop ramping (no version ramps)")
	if err := negativePercent(args); err != nil {
		return nil, err
	}
	pos, err := parseUpTo(fs, args, []string{"current|ramp|rollback", "BUILD", "PERCENT"})
	if err != nil {
		return nil, err
	}
	dep := func(e env) string { return e.deploymentName(*name) }
	if *clear && (len(pos) == 0 || pos[0] != "ramp") {
		return nil, fmt.Errorf("%w: deployment --clear goes with ramp: deployment ramp --clear", ErrUsage)
	}
	switch {
	case len(pos) == 0:
		return func(ctx context.Context, e env) error { return showDeployment(ctx, e, dep(e)) }, nil
	case pos[0] == "current" && len(pos) == 2:
		return func(ctx context.Context, e env) error { return makeCurrent(ctx, e, dep(e), pos[1]) }, nil
	case pos[0] == "ramp":
		return rampAction(pos[1:], *clear, dep)
	case pos[0] == "rollback" && len(pos) == 1:
		return func(ctx context.Context, e env) error { return rollback(ctx, e, dep(e)) }, nil
	}
	return nil, fmt.Errorf("%w: deployment takes nothing (list the versions), current BUILD (make BUILD current), "+
		"ramp BUILD PERCENT or ramp --clear (send PERCENT of new runs to BUILD, or stop), or rollback "+
		"(make the version current before the current one current again)", ErrUsage)
}

// makeCurrent makes build the current version of dep.
func makeCurrent(ctx context.Context, e env, dep, build string) error {
	h := e.conn.c.WorkerDeploymentClient().GetHandle(dep)
	d, err := h.Describe(ctx, client.WorkerDeploymentDescribeOptions{})
	if err != nil {
		return fmt.Errorf("describe deployment %s (workers with --versioning create it): %w", dep, err)
	}
	// The conflict token refuses the change if another came between.
	_, err = h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: build, ConflictToken: d.ConflictToken})
	if err != nil {
		return fmt.Errorf("make %s current in deployment %s (a version exists once one of its workers polled: "+
			"is a worker of build %s running with --versioning?): %w", build, dep, build, err)
	}
	prev := "none"
	if p := d.Info.RoutingConfig.CurrentVersion; p != nil {
		prev = p.BuildID
	}
	e.printf("%s is current in deployment %s (was %s): new agents start on it; agents on other versions move "+
		"when they continue as new (starter upgrade --all asks them to now)\n", build, dep, prev)
	return nil
}

func showDeployment(ctx context.Context, e env, dep string) error {
	d, err := e.conn.c.WorkerDeploymentClient().GetHandle(dep).Describe(ctx, client.WorkerDeploymentDescribeOptions{})
	if err != nil {
		return fmt.Errorf("describe deployment %s (workers with --versioning create it): %w", dep, err)
	}
	rc := d.Info.RoutingConfig
	current, ramping := "", ""
	if rc.CurrentVersion != nil {
		current = rc.CurrentVersion.BuildID
	}
	if rc.RampingVersion != nil {
		ramping = rc.RampingVersion.BuildID
	}
	e.printf("deployment %s: current %s\n", dep, cmp.Or(current, "none"))
	if ramping != "" {
		e.printf("ramping %s at %s\n", ramping, rampShown(rc.RampingVersionPercentage))
	}
	e.printf("%-16s %-10s %-10s %s\n", "BUILD", "ROLE", "AGENTS", "DRAINAGE")
	for _, v := range d.Info.VersionSummaries {
		role := "-"
		switch v.Version.BuildID {
		case current:
			role = "current"
		case ramping:
			role = "ramping"
		}
		agents := "?"
		if n, err := e.countOn(ctx, dep, v.Version.BuildID); err == nil {
			agents = itoa(int(n))
		}
		e.printf("%-16s %-10s %-10s %s\n", v.Version.BuildID, role, agents, drainage(v.DrainageStatus))
	}
	return nil
}

// countOn counts the open agents whose run is on build of dep, by the
// server's own versioning attribute.
func (e env) countOn(ctx context.Context, dep, build string) (int64, error) {
	res, err := e.conn.c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{
		Namespace: e.conn.namespace, Query: onVersion(dep, build)})
	return res.GetCount(), err
}

// onVersion is the visibility query of the open agents on a version.
func onVersion(dep, build string) string {
	return fmt.Sprintf("%s AND TemporalWorkerDeploymentVersion = '%s:%s'", openAgents, dep, build)
}

// openAgents is the visibility query of every open agent.
var openAgents = fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", signals.AgentWorkflow)

func drainage(s client.WorkerDeploymentVersionDrainageStatus) string {
	switch s {
	case client.WorkerDeploymentVersionDrainageStatusDraining:
		return "draining (pinned agents still run on it)"
	case client.WorkerDeploymentVersionDrainageStatusDrained:
		return "drained (no open agent on it: its workers may stop)"
	}
	return "-"
}

// upgrade asks agents to continue as new at their next true idle phase
// (the upgrade maintenance task), so that a run pinned to an older
// version moves to the current one: one agent, or with --all every open
// agent not on the current version, --pace apart and at most --parallel
// waiting at once.
func upgrade(_ Starter, args []string) (action, error) {
	fs := flag.NewFlagSet("upgrade", flag.ContinueOnError)
	all := fs.Bool("all", false, "every open agent not on the deployment's current version")
	name := fs.String("deployment-name", "", "with --all: the workers' --deployment-name (default "+EnvDeploymentName+", else the task queue)")
	pace := fs.Duration("pace", 200*time.Millisecond, "with --all: time between two agents' requests")
	parallel := fs.Int("parallel", 8, "with --all: most agents whose upgrade is waiting for their idle at once")
	pos, err := parseUpTo(fs, args, []string{"ID"})
	switch {
	case err != nil:
		return nil, err
	case *all == (len(pos) == 1):
		return nil, fmt.Errorf("%w: upgrade takes an agent ID or --all", ErrUsage)
	case *pace < 0 || *parallel < 1:
		return nil, fmt.Errorf("%w: upgrade --pace must not be negative and --parallel must be at least 1", ErrUsage)
	}
	if !*all {
		return func(ctx context.Context, e env) error {
			if err := upgradeOne(ctx, e, pos[0]); err != nil {
				return err
			}
			e.printf("%s continues as new now, on the deployment's current version if its worker runs with --versioning\n", pos[0])
			return nil
		}, nil
	}
	return func(ctx context.Context, e env) error {
		return upgradeAll(ctx, e, e.deploymentName(*name), *pace, *parallel)
	}, nil
}

func upgradeOne(ctx context.Context, e env, id string) error {
	h, err := e.agents.Attach(ctx, id)
	if err != nil {
		return err
	}
	if _, err := h.RunMaintenance(ctx, signals.TaskUpgrade); err != nil {
		return fmt.Errorf("upgrade %s: %w", id, err)
	}
	return nil
}

func upgradeAll(ctx context.Context, e env, dep string, pace time.Duration, parallel int) error {
	d, err := e.conn.c.WorkerDeploymentClient().GetHandle(dep).Describe(ctx, client.WorkerDeploymentDescribeOptions{})
	if err != nil {
		return fmt.Errorf("describe deployment %s: %w", dep, err)
	}
	cur := d.Info.RoutingConfig.CurrentVersion
	if cur == nil {
		return fmt.Errorf("deployment %s has no current version to move agents to: starter deployment current BUILD", dep)
	}
	stay := []string{cur.BuildID}
	if r := d.Info.RoutingConfig.RampingVersion; r != nil {
		stay = append(stay, r.BuildID)
	}
	ids, err := e.agentsOff(ctx, dep, stay)
	if err != nil {
		return err
	}
	var (
		mu     sync.Mutex
		failed []error
		wg     sync.WaitGroup
		slots  = make(chan struct{}, parallel)
	)
	for i, id := range ids {
		if i > 0 && pace > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(pace):
			}
		}
		if ctx.Err() != nil {
			break
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			err := upgradeOne(ctx, e, id)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed = append(failed, err)
				e.printf("%s: %v\n", id, err)
				return
			}
			e.printf("%s continues as new on %s\n", id, cur.BuildID)
		}()
	}
	wg.Wait()
	e.printf("%d of %d agents not on %s upgraded\n", len(ids)-len(failed), len(ids), cur.BuildID)
	e.printSkipped(ctx, dep, stay)
	return cmp.Or(errors.Join(failed...), ctx.Err())
}

// agentsOff lists the open agents on a version of dep other than those
// in stay (by the server's versioning attributes; agents an unversioned
// worker runs have none and are not listed, nor are another deployment's).
func (e env) agentsOff(ctx context.Context, dep string, stay []string) ([]string, error) {
	var ids []string
	var token []byte
	for {
		res, err := e.conn.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: e.conn.namespace, Query: offVersions(dep, stay), NextPageToken: token, PageSize: 1000})
		if err != nil {
			return nil, fmt.Errorf("list agents not on %s: %w", strings.Join(stay, " or "), err)
		}
		for _, w := range res.GetExecutions() {
			ids = append(ids, w.GetExecution().GetWorkflowId())
		}
		if token = res.GetNextPageToken(); len(token) == 0 {
			return ids, nil
		}
	}
}

// offVersions is the visibility query of the open agents of dep on none
// of the builds in stay.
func offVersions(dep string, stay []string) string {
	vs := make([]string, len(stay))
	for i, b := range stay {
		vs[i] = "'" + dep + ":" + b + "'"
	}
	return fmt.Sprintf("%s AND TemporalWorkerDeployment = '%s' AND TemporalWorkerDeploymentVersion NOT IN (%s)",
		openAgents, dep, strings.Join(vs, ", "))
}

// printSkipped says how many open agents upgrade --all left alone, and
// why: each reason with a count is one line. A count that fails is left
// out: the upgrade itself is done.
func (e env) printSkipped(ctx context.Context, dep string, stay []string) {
	reasons := []struct{ query, why string }{
		{openAgents + " AND TemporalWorkerDeploymentVersion IS NULL",
			"not versioned (run by workers without --versioning, which pin nothing: starter upgrade ID continues " +
				"one as new, on whichever worker takes it)"},
		{openAgents + " AND TemporalWorkerDeployment IS NOT NULL AND TemporalWorkerDeployment != '" + dep + "'",
			"on another deployment (--deployment-name names it)"},
	}
	if len(stay) > 1 {
		reasons = append(reasons, struct{ query, why string }{
			onVersion(dep, stay[1]),
			"on the ramping version " + stay[1] + " (the ramp picks by agent ID: a next run would start there again)"})
	}
	for _, r := range reasons {
		res, err := e.conn.c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: e.conn.namespace, Query: r.query})
		if err != nil || res.GetCount() == 0 {
			continue
		}
		n := res.GetCount()
		e.printf("%d %s skipped: %s\n", n, map[bool]string{true: "agent", false: "agents"}[n == 1], r.why)
	}
}

// Registered here, beside the commands: commands.go lists the agent's.
func init() {
	commands["deployment"] = deployment
	commands["upgrade"] = upgrade
}
