// Package cli implements cmd/starter: a thin command line over the agent
// client package. It parses arguments, calls one agent operation and prints
// the outcome; every error it prints is typed by the agent package.
package cli
