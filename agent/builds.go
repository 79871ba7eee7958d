package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
)

// describeParallel bounds the DescribeWorkflowExecution calls that read
// the builds of one listing.
const describeParallel = 8

// Builds of the agents: which worker build drives each one's current run,
// read from what the server keeps of the run (DescribeWorkflowExecution),
// since visibility lists no build. A versioned run (Worker Deployment
// Versioning) is on the deployment version it is pinned to or moved to;
// an unversioned one on the build that completed its last workflow task
// (the worker's build ID, workerfx.BuildID). A run no worker has
// completed a task of reads "". A build's failed tasks change nothing: an
// older build that refuses a newer run (unknown loop rules) leaves it on
// the newer build.

// buildTerm narrows a query to the runs a build has completed a workflow
// task of, as the server's BuildIds attribute lists them (unversioned:ID,
// versioned:ID); the listing then keeps those whose latest it is.
func buildTerm(id string) string {
	return "BuildIds IN (" + quote("unversioned:"+id) + ", " + quote("versioned:"+id) + ")"
}

// checkBuild refuses a build filter no build ID can be: build IDs are
// what the worker hashes (hex) or the user sets, never a quote or space.
func checkBuild(id string) error {
	if id == "" {
		return nil
	}
	if len(id) > 255 || strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return fmt.Errorf("%w: build %q: want a build ID (at most 255 characters, no spaces)", ErrBadFilter, id)
	}
	return nil
}

// withBuilds fills each summary's build from the server, a few at a time.
// An agent the server cannot describe (gone meanwhile) keeps "".
func (r *Client) withBuilds(ctx context.Context, agents []Summary) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, describeParallel)
	for i := range agents {
		wg.Add(1)
		sem <- struct{}{}
		go func(a *Summary) {
			defer func() { <-sem; wg.Done() }()
			resp, err := r.c.DescribeWorkflowExecution(ctx, a.ID, a.RunID)
			if err != nil {
				return
			}
			readBuild(a, resp)
		}(&agents[i])
	}
	wg.Wait()
}

// readBuild reads the run's build: the deployment version versioning put
// it on, else the build that completed its last workflow task.
func readBuild(a *Summary, resp *workflowservice.DescribeWorkflowExecutionResponse) {
	info := resp.GetWorkflowExecutionInfo()
	v := info.GetVersioningInfo()
	// The deprecated stamp is where the server keeps an unversioned
	// worker's build (workerfx sets the deprecated BuildID for the same
	// reason): the versioning info is empty for it.
	//lint:ignore SA1019 see above
	a.Build = cmp.Or(v.GetDeploymentVersion().GetBuildId(), info.GetMostRecentWorkerVersionStamp().GetBuildId())
	a.Deployment = cmp.Or(v.GetDeploymentVersion().GetDeploymentName(), info.GetWorkerDeploymentName())
	switch v.GetBehavior() {
	case enumspb.VERSIONING_BEHAVIOR_PINNED:
		a.Versioning = VersioningPinned
	case enumspb.VERSIONING_BEHAVIOR_AUTO_UPGRADE:
		a.Versioning = VersioningAutoUpgrade
	}
}

// Summary.Versioning words.
const (
	VersioningPinned      = "pinned"
	VersioningAutoUpgrade = "auto-upgrade"
)

// keepBuild keeps the agents on build id ("" keeps all).
func keepBuild(agents []Summary, id string) []Summary {
	if id == "" {
		return agents
	}
	return slices.DeleteFunc(agents, func(a Summary) bool { return a.Build != id })
}

// BuildCount is how many agents one build drives.
type BuildCount struct {
	Build      string // "" for agents no worker has completed a task of
	Deployment string // the Worker Deployment, "" unversioned
	Agents     int
	// Current is whether new work goes to this build: an unversioned
	// worker of it polls the agents' task queue now, or it is the
	// deployment's current or ramping version. During a plain rolling
	// deploy both builds poll and both are current.
	Current bool
}

// Builds counts the agents o matches by build, the most agents first (those
// no worker has run last among equals; o.Limit is
// not read: every match is counted, at one DescribeWorkflowExecution an
// agent).
func (r *Client) Builds(ctx context.Context, o ListOptions) ([]BuildCount, error) {
	o.WithBuild = true
	counts := map[[2]string]*BuildCount{}
	queues := map[string]bool{}
	var token []byte
	for {
		page, next, err := r.ListPage(ctx, o, 1000, token)
		if err != nil {
			return nil, err
		}
		for _, a := range page {
			k := [2]string{a.Build, a.Deployment}
			if counts[k] == nil {
				counts[k] = &BuildCount{Build: a.Build, Deployment: a.Deployment}
			}
			counts[k].Agents++
			queues[a.TaskQueue] = true
		}
		if token = next; len(token) == 0 {
			break
		}
	}
	polling := map[string]bool{}
	for q := range queues {
		r.pollingBuilds(ctx, q, polling)
	}
	out := make([]BuildCount, 0, len(counts))
	for _, c := range counts {
		c.Current = c.Build != "" && polling[c.Build]
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b BuildCount) int {
		return cmp.Or(b.Agents-a.Agents, noBuild(a)-noBuild(b),
			strings.Compare(a.Build, b.Build), strings.Compare(a.Deployment, b.Deployment))
	})
	return out, nil
}

// pollingBuilds adds the builds of the workers polling queue now, and the
// current and ramping versions of its deployment.
func (r *Client) pollingBuilds(ctx context.Context, queue string, into map[string]bool) {
	if queue == "" {
		return
	}
	resp, err := r.c.DescribeTaskQueue(ctx, queue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
	if err != nil {
		return
	}
	for _, p := range resp.GetPollers() {
		versioned := p.GetDeploymentOptions().GetWorkerVersioningMode() == enumspb.WORKER_VERSIONING_MODE_VERSIONED
		if time.Since(p.GetLastAccessTime().AsTime()) < pollerFresh && !versioned {
			//lint:ignore SA1019 an unversioned poller's build is only there
			into[cmp.Or(p.GetDeploymentOptions().GetBuildId(), p.GetWorkerVersionCapabilities().GetBuildId())] = true
		}
	}
	v := resp.GetVersioningInfo()
	for _, dv := range []string{v.GetCurrentDeploymentVersion().GetBuildId(), v.GetRampingDeploymentVersion().GetBuildId()} {
		if dv != "" {
			into[dv] = true
		}
	}
	delete(into, "")
}

// noBuild is 1 for the count of agents no worker has run, which sorts last.
func noBuild(c BuildCount) int {
	if c.Build == "" {
		return 1
	}
	return 0
}
