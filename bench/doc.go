// Package bench holds Tether's benchmarks against a real embedded Temporal
// server. Results are written into bench/README.md by hand from `make bench`.
package bench
