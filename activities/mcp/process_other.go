//go:build !linux

package mcp

import "syscall"

// groupAttr starts a server as any command: elsewhere than on Linux there
// is no parent-death signal, and a stopped worker stops its servers only
// by closing their sessions.
func groupAttr() *syscall.SysProcAttr { return nil }

// onStarterThread runs f on the calling goroutine.
func onStarterThread(f func()) error { return run(f) }

// killGroup does nothing: the server is in the worker's group.
func killGroup(int) {}
