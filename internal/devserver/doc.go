// Package devserver runs a real Temporal server inside the current process:
// frontend, history, matching and worker services over SQLite, plus the
// Temporal Web UI, in pure Go with no binary to download.
//
// It is for local development (`cmd/worker --dev`, the one-command demo) and
// for end-to-end tests. Production uses a real Temporal cluster; nothing
// outside development and tests may depend on this package. internal/cluster,
// the PostgreSQL-backed server of scripts/cluster/run, borrows its Web UI
// and port picking (shared.go).
//
// Storage: with Options.DataDir set, state lives in DataDir/temporal.db and
// visibility in DataDir/visibility.db (WAL journals) next to a version stamp
// naming the server release that created them, so open workflows survive a
// restart; a data dir made before visibility.db keeps visibility in
// temporal.db. With DataDir empty, each Start gets fresh, uniquely named
// in-memory databases. Visibility has a database of its own because the
// SQLite plugin gives each database a single connection that all services
// share: search attribute upserts would otherwise queue workflow tasks. The data directory holds
// every agent's conversation, so it is private to the user: created 0700,
// the database (with its WAL files), stamp and lock 0600. An existing
// directory that is more open is tightened when it holds nothing but the
// server's files, and refused (ErrDataDirNotPrivate, saying how to fix it)
// when it holds anything else, which a mistaken --data-dir must not lock
// others out of.
//
// The private data dir does not close the ports: by default any local user
// can dial the frontend (and the internode ports) and read every history.
// Options.MutualTLS closes them: every service requires a client
// certificate signed by a CA made for the data dir (DataDir/tls, 0600; the
// CA's key is never written), and ClientTLS loads the one client
// certificate, so only who can read the data dir can reach the server.
// The set is made anew at start when it is missing, broken, within
// certMargin of its end or names another address than Options.IP. The Web
// UI then dials with the client certificate, so it needs Options.UIToken:
// it answers nothing (its API, assets and health check included) without
// a login with that token, a session cookie or a bearer header.
//
// It must never:
//   - delete, migrate or "repair" an existing data directory: the SQLite
//     schema has no automatic upgrades, so a stamp from another server
//     release is refused and the user is told to move the directory away;
//   - listen on anything but Options.IP, or use ringpop membership (all
//     services are static hosts on loopback-chosen ports);
//   - run two servers on one DataDir at the same time;
//   - be used as, or tuned into, a production deployment.
//
// Tuning: besides sizing for a laptop, its dynamic config is set for
// latency (config.go): eager activity dispatch, eager workflow start and
// one partition per task queue, so a turn costs the workflow tasks and
// activities it needs and no further hop.
//
// Starts of agents: Node.NewServer puts StartPolicy on the frontend, here
// and on internal/cluster's server, so every start of tether.Agent, from any
// client over gRPC or HTTP (start, signal-with-start, update-with-start),
// runs with the reuse policy REJECT_DUPLICATE, and one that would open a
// second session under an agent's ID (another reuse policy,
// TERMINATE_EXISTING, a cron schedule, a retrying workflow) is refused with
// InvalidArgument naming the rule (startpolicy.go). Other workflow types
// keep Temporal's defaults.
//
// Invariants: Start returns only once the frontend answers DescribeNamespace
// for Options.Namespace with every requested search attribute registered;
// Stop is idempotent and stops the UI as well as the server.
//
// Process-wide caveats of the embedded server (v1.32.1): a port that cannot
// be bound makes the server or UI call os.Exit, so Start checks every port
// first; the SQLite plugin keeps each database connection open until the
// process exits, so an in-memory database's memory is not freed by Stop.
package devserver
