module go.temporal.io/auto-scaled-workers

go 1.26.4

require (
	github.com/google/uuid v1.6.0
	github.com/pkg/errors v0.9.1
	go.temporal.io/api v1.63.9
	go.temporal.io/sdk v1.50.0
	go.temporal.io/server v1.32.1
	go.uber.org/fx v1.24.0
	google.golang.org/protobuf v1.36.11
)
