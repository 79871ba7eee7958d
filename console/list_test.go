package console

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/signals"
)

// rowsOf lists the agent IDs of a list page, in order.
func rowsOf(body string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`<tr data-agent="([^"]+)">`).FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// countOf reads one status count of a list page.
func countOf(body, status string) string {
	m := regexp.MustCompile(`data-status="` + status + `">[^<]*<b>(\d+)</b>`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return m[1]
}

// listed polls the list, whose visibility source is eventually consistent,
// until path shows exactly ids, in any order (Temporal's).
func (e *env) listed(t *testing.T, ctx context.Context, path string, ids ...string) response {
	t.Helper()
	slices.Sort(ids)
	var r response
	require.Eventually(t, func() bool {
		r = e.get(path)
		got := rowsOf(r.Body)
		slices.Sort(got)
		return r.Status == http.StatusOK && slices.Equal(got, ids)
	}, 20*time.Second, 50*time.Millisecond, "list %s: want %v", path, ids)
	return r
}

func TestListFiltersAgentsOnTheServerAndCountsEachStatus(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	e.idle(ctx, "root-a", "/say a", signals.AgentOptions{Provider: "scripted", Model: "m1"})
	e.idle(ctx, "root-b", "/say b", signals.AgentOptions{Provider: "scripted", Model: "m2"})
	e.idle(ctx, "kid", "/say kid", signals.AgentOptions{Provider: "scripted", Model: "m1", Parent: "root-a"})
	gone := e.idle(ctx, "gone", "/say bye", signals.AgentOptions{Provider: "scripted", Model: "m1"})
	require.NoError(t, gone.Dispose(ctx, "done"))
	e.running(ctx, "busy")

	r := e.listed(t, ctx, "/agents?status=idle", "kid", "root-b", "root-a")
	require.Equal(t, "1", countOf(r.Body, "running"))
	require.Equal(t, "3", countOf(r.Body, "idle"))
	require.Equal(t, "1", countOf(r.Body, "closed"))
	require.Contains(t, r.Body, "ExecutionStatus = &#39;Running&#39; AND TetherStatus = &#39;idle&#39;", "the query is shown")

	e.listed(t, ctx, "/agents?status=running", "busy")
	e.listed(t, ctx, "/agents?status=closed", "gone")
	e.listed(t, ctx, "/agents?model=scripted/m1&status=idle", "kid", "root-a")
	e.listed(t, ctx, "/agents?parent=root-a", "kid")
	e.listed(t, ctx, "/agents?parent=-&prefix=root", "root-b", "root-a")
	e.listed(t, ctx, "/agents?turn=%3E%3D1&prefix=k", "kid")
	r = e.listed(t, ctx, "/agents?model=scripted/m1", "gone", "kid", "root-a")
	require.Equal(t, "0", countOf(r.Body, "running"), "counts keep the other filters")
	require.Equal(t, "2", countOf(r.Body, "idle"))
	require.Contains(t, r.Body, `<span class="chip closed disposed">disposed</span>`, "one word for a disposed agent")
}

func TestListPagesThroughAgentsWithTheServersToken(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true})
	ctx := ctxT(t, time.Minute)
	for i := range PageSize + 2 {
		e.create(ctx, "p-"+string(rune('a'+i/26))+string(rune('a'+i%26)), "", signals.AgentOptions{})
	}
	var first response
	require.Eventually(t, func() bool {
		first = e.get("/agents?prefix=p-")
		return len(rowsOf(first.Body)) == PageSize && countOf(first.Body, "idle") == "27"
	}, 20*time.Second, 50*time.Millisecond)
	m := regexp.MustCompile(`<a href="([^"]+)" rel="next"`).FindStringSubmatch(first.Body)
	require.NotNil(t, m, "a next page link")
	next := e.get(strings.ReplaceAll(m[1], "&amp;", "&"))
	require.Equal(t, http.StatusOK, next.Status)
	require.Len(t, rowsOf(next.Body), 2)
	require.Contains(t, next.Body, "« first page")
	require.NotContains(t, next.Body, `rel="next"`)
}

func TestListRefusesAFilterItCannotQuery(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true})
	for _, path := range []string{"/agents?status=asleep", "/agents?turn=many", "/agents?prefix=a%0Ab", "/agents?page=%25%25"} {
		r := e.get(path)
		require.Equal(t, http.StatusBadRequest, r.Status, path)
		require.Contains(t, r.Body, `id="list-error"`, path)
	}
}

// Each row shows the build that drives the agent: the build ID the server
// recorded for the worker that completed its last workflow task (here the
// SDK's default, the binary's checksum).
func TestListShowsTheBuildThatDrivesEachAgent(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "built", "/say hi", signals.AgentOptions{Provider: "scripted"})
	d, err := e.c.DescribeWorkflowExecution(ctx, h.ID, "")
	require.NoError(t, err)
	//lint:ignore SA1019 where the server keeps an unversioned worker's build
	build := d.GetWorkflowExecutionInfo().GetMostRecentWorkerVersionStamp().GetBuildId()
	require.NotEmpty(t, build)
	r := e.listed(t, ctx, "/agents", "built")
	require.Contains(t, r.Body, "<th>Build</th>")
	require.Contains(t, r.Body, `<td class="build">`+build+`</td>`)
}
