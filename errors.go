package tether

import "errors"

// ErrRan is Run's error when the Worker has already run.
var ErrRan = errors.New("tether: a Worker runs only once: make another with NewWorker")

// unknownProvider is WithDefaultProvider naming no provider.
type unknownProvider struct{ name string }

func (e *unknownProvider) Error() string {
	return "the default provider " + e.name + " is not one of the worker's: add it with tether.WithProvider"
}
