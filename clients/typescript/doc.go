// Package typescript holds no Go code of its own: it is the home of the
// TypeScript client (package.json, src/, test/) and of the Go test that runs
// that client's tests against a live embedded Tether, so `make test` runs
// them. The test starts two workers (one streaming its model calls to a
// live feed, one with codec keys), checks the TypeScript codec against the
// Go codec both ways, and, with the workers stopped, requires the log the
// client folds from each agent's history to be the Go projection's. It
// builds and tests the npm package in a copy under its temporary
// directory, so it never writes node_modules or dist/ into the repository
// (both are ignored, for those who run npm here).
package typescript
