package temporalfx

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc/status"

	"github.com/tetherdev/tether/internal/startup"
	"github.com/tetherdev/tether/signals"
)

// EnsureSearchAttributes registers Tether's search attributes on namespace
// when they are missing. Without them every agent's status upsert would fail
// its workflow task, so a worker that cannot register them refuses to start
// and says how to fix it (or to run with --no-search-attributes).
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return unlisted(namespace, err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	var names []string
	for name, kind := range signals.SearchAttributeKinds {
		if _, ok := have.GetCustomAttributes()[name]; !ok {
			missing[name] = IndexedType(kind)
			names = append(names, "--name "+name+" --type "+kind)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: missing,
	})
	if err != nil {
		return unregistered(namespace, names, err)
	}
	return nil
}

// unregistered explains search attributes the worker may not add, with the
// command that adds them (names are "--name N --type T" pairs).
func unregistered(namespace string, names []string, err error) error {
	slices.Sort(names)
	return &startup.Error{
		Problem: fmt.Sprintf("namespace %s lacks Tether's search attributes and this worker could not add them (%s)", namespace, cause(err)),
		Fix: fmt.Sprintf("register them with `temporal operator search-attribute create --namespace %s %s`, "+
			"or run with --no-search-attributes", namespace, strings.Join(names, " ")),
		Err: err,
	}
}

// unlisted explains a namespace whose search attributes cannot be read.
func unlisted(namespace string, err error) error {
	var missing *serviceerror.NamespaceNotFound
	if errors.As(err, &missing) {
		return &startup.Error{Problem: "namespace " + namespace + " does not exist",
			Fix: "create it (temporal operator namespace create " + namespace + ") or pass --namespace", Err: err}
	}
	return &startup.Error{Problem: "cannot read the search attributes of namespace " + namespace + " (" + cause(err) + ")",
		Fix: "check the namespace and this client's permissions, or run with --no-search-attributes", Err: err}
}

// cause is a service error's message without its gRPC wrapping.
func cause(err error) string {
	if s, ok := status.FromError(err); ok {
		return s.Message()
	}
	return err.Error()
}

// IndexedType maps a kind name of signals.SearchAttributeKinds to Temporal's enum.
func IndexedType(kind string) enumspb.IndexedValueType {
	return enumspb.IndexedValueType(enumspb.IndexedValueType_value["INDEXED_VALUE_TYPE_"+strings.ToUpper(kind)])
}
