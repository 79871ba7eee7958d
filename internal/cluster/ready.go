package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/tetherdev/tether/internal/devserver"
)

const pollInterval = 100 * time.Millisecond

// ready registers the namespace and Tether's search attributes through the
// API, as an operator would on a new cluster, and waits until the frontend
// serves both.
func (s *Server) ready(ctx context.Context, retention time.Duration) error {
	c, err := dial(ctx, s.hostPort, s.namespace)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := poll(ctx, "register namespace "+s.namespace, func() error {
		return registerNamespace(ctx, c, s.namespace, retention)
	}); err != nil {
		return err
	}
	attrs := devserver.DefaultSearchAttributes()
	if err := addSearchAttributes(ctx, c.OperatorService(), s.namespace, attrs); err != nil {
		return err
	}
	// Services learn of namespace changes on their registry's refresh; a
	// visibility query naming each attribute passes once the frontend has.
	return poll(ctx, "search attributes visible on "+s.namespace, func() error {
		_, err := c.WorkflowService().CountWorkflowExecutions(ctx, &workflowservice.CountWorkflowExecutionsRequest{
			Namespace: s.namespace, Query: probeQuery(attrs),
		})
		return err
	})
}

// dial connects once the frontend answers its health check.
func dial(ctx context.Context, hostPort, namespace string) (client.Client, error) {
	opts := client.Options{
		HostPort: hostPort, Namespace: namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)),
	}
	var c client.Client
	err := poll(ctx, "connect to frontend "+hostPort, func() error {
		var err error
		c, err = client.DialContext(ctx, opts)
		return err
	})
	return c, err
}

func registerNamespace(ctx context.Context, c client.Client, namespace string, retention time.Duration) error {
	_, err := c.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace:                        namespace,
		Description:                      "Tether agents",
		WorkflowExecutionRetentionPeriod: durationpb.New(retention),
	})
	var exists *serviceerror.NamespaceAlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return err
	}
	_, err = c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
	return err
}

// addSearchAttributes registers those of want the namespace lacks; one
// registered with another type is an error.
func addSearchAttributes(ctx context.Context, op operatorservice.OperatorServiceClient, namespace string, want map[string]enumspb.IndexedValueType) error {
	have, err := op.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("list search attributes of %s: %w", namespace, err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for name, t := range want {
		got, ok := have.GetCustomAttributes()[name]
		switch {
		case !ok:
			missing[name] = t
		case got != t:
			return fmt.Errorf("search attribute %s is %s on namespace %s, want %s", name, got, namespace, t)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if _, err := op.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: missing,
	}); err != nil {
		return fmt.Errorf("add search attributes %v to %s: %w", slices.Sorted(maps.Keys(missing)), namespace, err)
	}
	return nil
}

// probeQuery names every attribute in a condition valid for its type.
func probeQuery(attrs map[string]enumspb.IndexedValueType) string {
	var terms []string
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		value := "''"
		switch attrs[name] {
		case enumspb.INDEXED_VALUE_TYPE_INT, enumspb.INDEXED_VALUE_TYPE_DOUBLE:
			value = "0"
		case enumspb.INDEXED_VALUE_TYPE_BOOL:
			value = "false"
		case enumspb.INDEXED_VALUE_TYPE_DATETIME:
			value = "'2000-01-01T00:00:00Z'"
		}
		terms = append(terms, name+" = "+value)
	}
	return strings.Join(terms, " AND ")
}

// poll calls f until it succeeds or ctx ends.
func poll(ctx context.Context, what string, f func() error) error {
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last: %v)", what, ctx.Err(), err)
		case <-time.After(pollInterval):
		}
	}
}
