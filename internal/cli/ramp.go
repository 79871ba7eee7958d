package cli

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	deploymentpb "go.temporal.io/api/deployment/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// Ramping and rollback (`starter deployment ramp`, `deployment rollback`):
// Temporal's own routing of a Worker Deployment, which decides where new
// agents and the next run of an agent continuing as new (AutoUpgrade) go.
// A run pinned to a version stays on it whatever the routing says.

// rampAction parses `deployment ramp BUILD PERCENT` and `ramp --clear`.
func rampAction(args []string, clear bool, dep func(env) string) (action, error) {
	if clear {
		if len(args) > 0 {
			return nil, fmt.Errorf("%w: deployment ramp --clear takes no BUILD or PERCENT", ErrUsage)
		}
		return func(ctx context.Context, e env) error { return ramp(ctx, e, dep(e), "", 0) }, nil
	}
	if len(args) != 2 {
		return nil, fmt.Errorf("%w: deployment ramp takes BUILD PERCENT (0 to 100: the share of new runs that go to BUILD), "+
			"or --clear", ErrUsage)
	}
	pct, err := parsePercent(args[1])
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, e env) error { return ramp(ctx, e, dep(e), args[0], pct) }, nil
}

// negativePercent refuses a negative PERCENT of deployment ramp by its
// range, before the flag parser takes it for an unknown flag.
func negativePercent(args []string) error {
	if !slices.Contains(args, "ramp") {
		return nil
	}
	for _, a := range args {
		if _, err := strconv.ParseFloat(strings.TrimSuffix(a, "%"), 64); err == nil && strings.HasPrefix(a, "-") {
			_, err := parsePercent(a)
			return err
		}
	}
	return nil
}

// parsePercent reads a ramp percentage, 0 to 100, "%" allowed.
func parsePercent(s string) (float32, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 32)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%w: deployment ramp: PERCENT %q is not a number (want 0 to 100)", ErrUsage, s)
	}
	if f < 0 || f > 100 {
		return 0, fmt.Errorf("%w: deployment ramp: PERCENT %s is out of range (want 0 to 100)", ErrUsage, s)
	}
	return float32(f), nil
}

// ramp sends pct percent of dep's new runs to build ("" with 0: no ramp).
func ramp(ctx context.Context, e env, dep, build string, pct float32) error {
	h := e.conn.c.WorkerDeploymentClient().GetHandle(dep)
	d, err := h.Describe(ctx, client.WorkerDeploymentDescribeOptions{})
	if err != nil {
		return fmt.Errorf("describe deployment %s (workers with --versioning create it): %w", dep, err)
	}
	rc := d.Info.RoutingConfig
	if build == "" && rc.RampingVersion == nil {
		e.printf("deployment %s ramps no version\n", dep)
		return nil
	}
	_, err = h.SetRampingVersion(ctx, client.WorkerDeploymentSetRampingVersionOptions{
		BuildID: build, Percentage: pct, ConflictToken: d.ConflictToken})
	switch {
	case err != nil && build == "":
		return fmt.Errorf("stop ramping in deployment %s: %w", dep, err)
	case err != nil:
		return fmt.Errorf("ramp %s in deployment %s (a version exists once one of its workers polled: "+
			"is a worker of build %s running with --versioning?): %w", build, dep, build, err)
	case build == "":
		e.printf("deployment %s ramps no version (was %s at %s): new agents start on the current version %s\n",
			dep, rc.RampingVersion.BuildID, rampShown(rc.RampingVersionPercentage), currentOf(rc))
		return nil
	}
	e.printf("%s ramps at %s in deployment %s (current %s): %s\n", build, rampShown(pct), dep, currentOf(rc), rampMeaning(pct))
	return nil
}

// rampShown words a ramp percentage.
func rampShown(pct float32) string {
	s := strconv.FormatFloat(float64(pct), 'f', -1, 32) + "%"
	if pct == 0 {
		s += " (paused: no new run goes to it)"
	}
	return s
}

func rampMeaning(pct float32) string {
	if pct == 0 {
		return "no new run goes to it; deployment ramp --clear stops the ramp"
	}
	return "that share of new agents, and of agents continuing as new, start on it (chosen by agent ID); " +
		"pinned runs stay where they are"
}

func currentOf(rc client.WorkerDeploymentRoutingConfig) string {
	if rc.CurrentVersion == nil {
		return "none (unversioned workers)"
	}
	return rc.CurrentVersion.BuildID
}

// rollback makes current again the version that was current before the
// current one: the one not current now that became current last, as the
// deployment's version summaries tell (the SDK's summaries leave that
// time out, so the service is asked directly).
func rollback(ctx context.Context, e env, dep string) error {
	resp, err := e.conn.c.WorkflowService().DescribeWorkerDeployment(ctx, &workflowservice.DescribeWorkerDeploymentRequest{
		Namespace: e.conn.namespace, DeploymentName: dep})
	if err != nil {
		return fmt.Errorf("describe deployment %s (workers with --versioning create it): %w", dep, err)
	}
	info := resp.GetWorkerDeploymentInfo()
	cur := info.GetRoutingConfig().GetCurrentDeploymentVersion().GetBuildId()
	if cur == "" {
		return fmt.Errorf("deployment %s has no current version to roll back from: starter deployment current BUILD", dep)
	}
	prev := previousCurrent(info.GetVersionSummaries(), cur)
	if prev == "" {
		return fmt.Errorf("deployment %s has no version to roll back to: %s is current and no other version of it has been current "+
			"(or that version is gone: Temporal forgets a drained version once its workers stop)", dep, cur)
	}
	h := e.conn.c.WorkerDeploymentClient().GetHandle(dep)
	_, err = h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: prev, ConflictToken: resp.GetConflictToken()})
	if err != nil {
		return fmt.Errorf("roll deployment %s back to %s: %w", dep, prev, err)
	}
	e.printf("%s is current again in deployment %s (was %s): new agents start on it; agents pinned to %s stay there until "+
		"they continue as new (starter upgrade --all asks them to now); its workers must still run\n", prev, dep, cur, cur)
	if r := info.GetRoutingConfig().GetRampingDeploymentVersion().GetBuildId(); r != "" && r != prev {
		e.printf("%s still ramps at %s (starter deployment ramp --clear stops it)\n", r,
			rampShown(info.GetRoutingConfig().GetRampingVersionPercentage()))
	}
	return nil
}

// previousCurrent is the version other than cur that became current last
// ("" when none has been).
func previousCurrent(versions []*deploymentpb.WorkerDeploymentInfo_WorkerDeploymentVersionSummary, cur string) string {
	var best *deploymentpb.WorkerDeploymentInfo_WorkerDeploymentVersionSummary
	for _, v := range versions {
		if v.GetDeploymentVersion().GetBuildId() == cur || v.GetLastCurrentTime() == nil {
			continue
		}
		if best == nil || v.GetLastCurrentTime().AsTime().After(best.GetLastCurrentTime().AsTime()) {
			best = v
		}
	}
	return best.GetDeploymentVersion().GetBuildId()
}
