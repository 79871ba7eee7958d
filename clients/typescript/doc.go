// Package typescript holds no Go code of its own: it is the home of the
// TypeScript client (package.json, src/, test/) and of the Go test that runs
// that client's tests against a live embedded Tether, so `make test` runs
// them. The npm package is built and tested in a copy under the test's
// temporary directory, never in place: node_modules never enters the Go
// module's tree.
package typescript
