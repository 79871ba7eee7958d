package temporalfx

import (
	"context"
	"fmt"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/signals"
)

// EnsureSearchAttributes registers Tether's search attributes on namespace
// when they are missing. Without them every agent's status upsert would fail
// its workflow task, so a worker that cannot register them refuses to start
// and says how to fix it (or to run with --no-search-attributes).
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("list search attributes of %s: %w (or run with --no-search-attributes)", namespace, err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	var names []string
	for name, kind := range signals.SearchAttributeKinds {
		if _, ok := have.GetCustomAttributes()[name]; !ok {
			missing[name] = IndexedType(kind)
			names = append(names, name+"="+kind)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: missing,
	})
	if err != nil {
		return fmt.Errorf("register search attributes %s on %s: %w; register them with "+
			"`temporal operator search-attribute create`, or run with --no-search-attributes",
			strings.Join(names, ", "), namespace, err)
	}
	return nil
}

// IndexedType maps a kind name of signals.SearchAttributeKinds to Temporal's enum.
func IndexedType(kind string) enumspb.IndexedValueType {
	return enumspb.IndexedValueType(enumspb.IndexedValueType_value["INDEXED_VALUE_TYPE_"+strings.ToUpper(kind)])
}
