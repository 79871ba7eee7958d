package mcp

import (
	"runtime"
	"sync"
	"syscall"
)

// groupAttr makes a stdio server the leader of a new process group, so
// its whole group can be killed, and has the kernel SIGKILL it when its
// parent dies: a worker killed with SIGKILL leaves no server running a
// call that the restarted worker runs again.
//
// The kernel sends the parent-death signal when the thread that forked the
// server exits, not the process (see golang.org/issue/27505 and the
// SysProcAttr.Pdeathsig doc). Go ends a thread when a goroutine locked to
// it exits without unlocking, which any library may do, and an unlocked
// thread may run such a goroutine later. So servers are started only on
// the starter thread, locked by a goroutine that never returns: it ends
// only with the process.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// starter is the goroutine, locked to its thread for good, that starts
// every stdio server.
var starter struct {
	once sync.Once
	jobs chan func()
}

// onStarterThread runs f on the starter thread and returns once it has;
// a panic of f is returned as an error, never ending the thread.
func onStarterThread(f func()) error {
	starter.once.Do(func() {
		starter.jobs = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for job := range starter.jobs {
				job()
			}
		}()
	})
	done := make(chan error, 1)
	starter.jobs <- func() { done <- run(f) }
	return <-done
}

// killGroup kills what is left of the process group of the server pid
// led, right after the leader was reaped. The group's ID is the leader's
// PID, which Linux does not reuse while any member holds it as its group;
// once every member is gone the kill finds none (ESRCH), unless in the
// moment since the reaping the PIDs wrapped around to pid and its new
// owner leads a group of its own.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
