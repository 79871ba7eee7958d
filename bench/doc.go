// Package bench holds Tether's benchmarks against a real embedded Temporal
// server, or against any server given by address (TETHER_BENCH_ADDRESS,
// address_test.go). Results are written into bench/README.md by hand from
// `make bench`. bench/peers is the TypeScript worker of the peer subject
// (Temporal's own OpenAI Agents integration) that BenchmarkPeers runs beside
// Tether and the bare floor; it is built in the user's cache directory, never
// in this tree, so that the go tool meets no node_modules.
package bench
