package devserver

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
)

const pollInterval = 50 * time.Millisecond

// ready waits for the frontend to serve the namespace, then registers the
// search attributes it lacks (an existing database made with fewer).
func (s *Server) ready(ctx context.Context, want map[string]enumspb.IndexedValueType) error {
	c, err := dialReady(ctx, s.hostPort, s.namespace, s.tls)
	if err != nil {
		return err
	}
	defer c.Close()
	return ensureSearchAttributes(ctx, c.OperatorService(), s.namespace, want, s.dc)
}

func dialReady(ctx context.Context, hostPort, namespace string, tlsConf *tls.Config) (client.Client, error) {
	opts := client.Options{
		HostPort:          hostPort,
		Namespace:         namespace,
		Logger:            sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)),
		ConnectionOptions: client.ConnectionOptions{TLS: tlsConf},
	}
	var last error
	for {
		c, err := client.DialContext(ctx, opts)
		if err == nil {
			_, err = c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
			if err == nil {
				return c, nil
			}
			c.Close()
		}
		last = err
		if err := pause(ctx); err != nil {
			return nil, fmt.Errorf("frontend %s not serving namespace %s: %w (last: %v)", hostPort, namespace, err, last)
		}
	}
}

func ensureSearchAttributes(ctx context.Context, op operatorservice.OperatorServiceClient, namespace string,
	want map[string]enumspb.IndexedValueType, dc *dynamicClient) error {
	missing, err := missingSearchAttributes(ctx, op, namespace, want)
	if err != nil || len(missing) == 0 {
		return err
	}
	dc.force.Store(true) // before the caches could take the old attributes
	if _, err := op.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace:        namespace,
		SearchAttributes: missing,
	}); err != nil {
		return fmt.Errorf("add search attributes %v to %s: %w", slices.Sorted(maps.Keys(missing)), namespace, err)
	}
	// No wait for namespace caches: system.forceSearchAttributesCacheRefreshOnRead
	// makes every service read aliases from the database.
	if missing, err = missingSearchAttributes(ctx, op, namespace, want); err == nil && len(missing) > 0 {
		err = fmt.Errorf("search attributes %v still missing on %s after adding them", slices.Sorted(maps.Keys(missing)), namespace)
	}
	return err
}

// missingSearchAttributes is the subset of want not registered on the
// namespace; one registered with another type is an error.
func missingSearchAttributes(ctx context.Context, op operatorservice.OperatorServiceClient, namespace string, want map[string]enumspb.IndexedValueType) (map[string]enumspb.IndexedValueType, error) {
	if len(want) == 0 {
		return nil, nil
	}
	resp, err := op.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return nil, fmt.Errorf("list search attributes of %s: %w", namespace, err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for name, t := range want {
		if _, ok := resp.GetSystemAttributes()[name]; ok {
			return nil, fmt.Errorf("search attribute %s is a Temporal system attribute", name)
		}
		have, ok := resp.GetCustomAttributes()[name]
		switch {
		case !ok:
			missing[name] = t
		case have != t:
			return nil, fmt.Errorf("search attribute %s is %s on namespace %s, want %s", name, have, namespace, t)
		}
	}
	return missing, nil
}

func pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(pollInterval):
		return nil
	}
}
