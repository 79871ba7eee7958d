package blobstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// DefaultGrace is how long a blob lives at least after it was last stored,
// referenced or not: a claim reaches history after its blob is stored (an
// activity's result, a start's input), and a query's answer never does.
const DefaultGrace = time.Hour

// CollectOptions configure Collect.
type CollectOptions struct {
	// Namespace whose histories are read: every workflow the server still
	// keeps, open or closed within the namespace's retention, and every
	// schedule.
	Namespace string
	// Grace keeps blobs last stored less than this long before the
	// collection began (0: DefaultGrace).
	Grace time.Duration
	// DryRun reports what would be deleted and deletes nothing.
	DryRun bool
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Collected is what a collection found and did.
type Collected struct {
	Workflows, Schedules int // read
	Blobs                int // in the store
	Referenced           int // kept: named by a claim
	Fresh                int // kept: unreferenced but within the grace
	Deleted              int // or, with DryRun, would be
	DeletedBytes         int64
}

// Collect deletes the blobs of s that no workflow history (nor pending
// activity, nor schedule) of the namespace names and that were last stored
// before the grace. It reads every history first and deletes nothing if
// any read fails but for a history deleted meanwhile: a blob is deleted
// only on a complete reading. A claim written after its workflow was read
// names a blob stored (or stored again: Store moves a blob's time forward)
// after the collection began, which the grace keeps.
func Collect(ctx context.Context, svc workflowservice.WorkflowServiceClient, s Store, o CollectOptions) (Collected, error) {
	now, grace := time.Now, o.Grace
	if o.Now != nil {
		now = o.Now
	}
	if grace <= 0 {
		grace = DefaultGrace
	}
	cutoff := now().Add(-grace)
	var c Collected
	refs := map[string]bool{}
	if err := readWorkflows(ctx, svc, o.Namespace, refs, &c); err != nil {
		return Collected{}, fmt.Errorf("%w (nothing deleted)", err)
	}
	if err := readSchedules(ctx, svc, o.Namespace, refs, &c); err != nil {
		return Collected{}, fmt.Errorf("%w (nothing deleted)", err)
	}
	err := s.Blobs(ctx, func(b Blob) error {
		c.Blobs++
		switch {
		case refs[b.SHA256]:
			c.Referenced++
			return nil
		case !b.StoredAt.Before(cutoff):
			c.Fresh++
			return nil
		case o.DryRun:
			c.Deleted++
			c.DeletedBytes += b.Size
			return nil
		}
		deleted, err := s.Delete(ctx, b.SHA256, cutoff)
		if deleted {
			c.Deleted++
			c.DeletedBytes += b.Size
		} else if err == nil {
			c.Fresh++ // stored again since it was listed
		}
		return err
	})
	return c, err
}

// readWorkflows adds the claims of every workflow of the namespace.
func readWorkflows(ctx context.Context, svc workflowservice.WorkflowServiceClient, ns string, refs map[string]bool, c *Collected) error {
	var token []byte
	for {
		page, err := svc.ListWorkflowExecutions(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: ns, PageSize: 1000, NextPageToken: token,
		})
		if err != nil {
			return fmt.Errorf("list workflows of namespace %s: %w", ns, err)
		}
		for _, wf := range page.GetExecutions() {
			open := wf.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
			if err := readHistory(ctx, svc, ns, wf.GetExecution(), open, refs); err != nil {
				return err
			}
			c.Workflows++
		}
		if token = page.GetNextPageToken(); len(token) == 0 {
			return nil
		}
	}
}

// readHistory adds the claims of one run's history and, while it runs, of
// its pending work (an activity's heartbeat details are not in history).
func readHistory(ctx context.Context, svc workflowservice.WorkflowServiceClient, ns string, ex *commonpb.WorkflowExecution, open bool, refs map[string]bool) error {
	var token []byte
	for {
		page, err := svc.GetWorkflowExecutionHistory(ctx, &workflowservice.GetWorkflowExecutionHistoryRequest{
			Namespace: ns, Execution: ex, NextPageToken: token,
		})
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return nil // deleted meanwhile: its retention ended
		}
		if err != nil {
			return fmt.Errorf("read history of workflow %s run %s: %w", ex.GetWorkflowId(), ex.GetRunId(), err)
		}
		addClaims(page.GetHistory(), refs)
		if token = page.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	if !open {
		return nil
	}
	desc, err := svc.DescribeWorkflowExecution(ctx, &workflowservice.DescribeWorkflowExecutionRequest{Namespace: ns, Execution: ex})
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("describe workflow %s run %s: %w", ex.GetWorkflowId(), ex.GetRunId(), err)
	}
	addClaims(desc, refs)
	return nil
}

// readSchedules adds the claims of every schedule's action (its workflow's
// input is in no history until it fires).
func readSchedules(ctx context.Context, svc workflowservice.WorkflowServiceClient, ns string, refs map[string]bool, c *Collected) error {
	var token []byte
	for {
		page, err := svc.ListSchedules(ctx, &workflowservice.ListSchedulesRequest{Namespace: ns, MaximumPageSize: 1000, NextPageToken: token})
		if err != nil {
			return fmt.Errorf("list schedules of namespace %s: %w", ns, err)
		}
		for _, s := range page.GetSchedules() {
			desc, err := svc.DescribeSchedule(ctx, &workflowservice.DescribeScheduleRequest{Namespace: ns, ScheduleId: s.GetScheduleId()})
			var nf *serviceerror.NotFound
			if errors.As(err, &nf) {
				continue
			}
			if err != nil {
				return fmt.Errorf("describe schedule %s: %w", s.GetScheduleId(), err)
			}
			addClaims(desc, refs)
			c.Schedules++
		}
		if token = page.GetNextPageToken(); len(token) == 0 {
			return nil
		}
	}
}

var payloadName = (*commonpb.Payload)(nil).ProtoReflect().Descriptor().FullName()

// addClaims adds the SHA-256 of each claim among the payloads anywhere in
// m, whatever field holds them: a walk of the message, not a list of the
// event types that carry payloads, so a new one is not missed.
func addClaims(m proto.Message, refs map[string]bool) {
	walkPayloads(m.ProtoReflect(), func(p *commonpb.Payload) {
		if !IsReference(p) {
			return
		}
		if ref, err := ReferenceOf(p); err == nil {
			if sum := ref.GetClaimData()[ClaimSHA256]; sum != "" {
				refs[sum] = true
			}
		}
	})
}

func walkPayloads(m protoreflect.Message, fn func(*commonpb.Payload)) {
	if m.Descriptor().FullName() == payloadName {
		if p, ok := m.Interface().(*commonpb.Payload); ok {
			fn(p)
		}
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkPayloads(l.Get(i).Message(), fn)
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				walkPayloads(mv.Message(), fn)
				return true
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			walkPayloads(v.Message(), fn)
		}
		return true
	})
}
