// Package e2e holds Tether's end-to-end tests. They run against a real
// Temporal server embedded in the test process (go.temporal.io/server's
// temporaltest), real workers, the scripted model and real tools; nothing is
// mocked. All server-backed tests live here so the 200 MB test binary is
// linked once.
package e2e
