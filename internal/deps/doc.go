// Package deps holds no code: its test enforces the dependency direction
// of the house style on the import graph (go list), so a forbidden import
// fails CI instead of waiting for a reviewer.
package deps
