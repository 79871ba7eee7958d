// Package cluster runs a Temporal server the way a production node runs one,
// for `scripts/cluster/run`: all four services (frontend, history, matching,
// worker) over PostgreSQL, with SQL visibility in a database of its own, the
// schemas installed and upgraded by Temporal's own schema tool
// (go.temporal.io/server/tools/sql), the namespace and Tether's search
// attributes registered through the API as an operator would, and the
// Temporal Web UI beside it. Workers and clients reach it over gRPC like any
// cluster; nothing in Tether knows it from another. One thing a stock
// cluster lacks: like the embedded server (both are devserver.Node), its
// frontend holds every start of tether.Agent to Tether's rule that an
// agent's ID names one session (devserver.StartPolicy).
//
// It must never:
//   - create, stop or delete the PostgreSQL server: it is given one (the
//     script owns that), and only creates its two databases when missing;
//   - drop or overwrite tables: schema setup is idempotent and upgrades go
//     through the versioned migrations shipped with the server;
//   - listen on anything but Options.IP.
//
// Differences from a multi-node deployment, on purpose: the services share
// one process and find each other as static hosts instead of through
// ringpop membership, as `temporal-server start` with every service does
// on one machine.
//
// Invariants: Start returns only once the frontend serves the namespace and
// accepts visibility queries naming every Tether search attribute; Stop is
// idempotent and stops the UI before the server.
package cluster
