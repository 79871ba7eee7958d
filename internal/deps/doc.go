// Package deps holds no code: its tests enforce the dependency direction
// of the house style on the import graph (go list), so a forbidden import
// fails CI instead of waiting for a reviewer, and keep out of the binaries
// what the embedded server would link but Tether never runs (the worker
// controller's compute providers: see autoscaledworkers/README.md, a
// module of its own that go.mod puts in place of the upstream one).
package deps
