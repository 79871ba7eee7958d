package temporalfx

import (
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
)

// Instrumentation is what observability adds to the client, and through it
// to every worker of the client (package telemetryfx provides it).
type Instrumentation struct {
	// Interceptors are appended to the client's; those that also intercept
	// workers (interceptor.Interceptor) intercept the client's workers too.
	Interceptors []interceptor.ClientInterceptor
	// MetricsHandler receives the SDK's client and worker metrics; nil
	// leaves the SDK's default (none).
	MetricsHandler client.MetricsHandler
}

func (i Instrumentation) apply(opts *client.Options) {
	opts.Interceptors = append(opts.Interceptors, i.Interceptors...)
	if i.MetricsHandler != nil {
		opts.MetricsHandler = i.MetricsHandler
	}
}
