package agent

import (
	"errors"
	"fmt"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Errors a Handle returns, all of this package's in this file: the
// sentinels, then the typed errors that match them. Validation errors are
// signals' sentinels (signals.ErrEmptyMessage, signals.ErrDisposed, ...).
var (
	ErrAlreadyExists = errors.New("agent already exists")
	ErrNotFound      = errors.New("agent not found")
	ErrClosed        = errors.New("agent is closed")
	ErrRejected      = errors.New("message rejected")
)

// ErrBadFilter marks a ListOptions value List cannot search by.
var ErrBadFilter = errors.New("bad agent filter")

// ErrChildUnknown: a spawn was delivered, but its answer, the child's ID,
// was lost on the way (a retried attempt found it taken).
var ErrChildUnknown = errors.New("child ID unknown")

// ErrStreamInterrupted: the response ended before a terminal event.
// Reconnect with from set past the last event received.
var ErrStreamInterrupted = errors.New("stream ended before done or error")

// ErrMalformedStream: the response is not the stream of events a worker
// sends (an event that does not decode, a line over 4 MiB).
var ErrMalformedStream = errors.New("malformed stream")

// ErrDeliveryUnknown marks an acknowledged send whose outcome the client
// could not learn before the caller's deadline: the message may or may not
// be in the agent's inbox. Sending it again with the same message ID
// (WithMessageID, DeliveryUnknownError.MessageID) is safe.
var ErrDeliveryUnknown = errors.New("delivery unknown")

// DeliveryUnknownError is an acknowledged send, or a request (a decision,
// a spawn, a maintenance run), that met only transient failures (a failed
// workflow task, a run continuing as new, an overloaded or unreachable
// server, an attempt that timed out, no worker on the agent's task queue)
// until the caller's deadline ended. It matches ErrDeliveryUnknown and
// unwraps to the last attempt's error (a *NoWorkerError when no worker
// polled the queue).
type DeliveryUnknownError struct {
	MessageID eventlog.MessageID // the message's ID, or the request's
	Attempts  int
	Err       error
	// Request names a request that is not a message (approve, deny,
	// answer, spawn, maintain); "" for a message.
	Request string
}

func (e *DeliveryUnknownError) Error() string {
	if e.Request != "" {
		return fmt.Sprintf("%s: %s %s after %d attempts (it may or may not have reached the agent: read its status or log before asking again): %v",
			ErrDeliveryUnknown, e.Request, e.MessageID, e.Attempts, e.Err)
	}
	return fmt.Sprintf("%s: message %s after %d attempts (send it again with this message ID: it is delivered at most once): %v",
		ErrDeliveryUnknown, e.MessageID, e.Attempts, e.Err)
}

func (e *DeliveryUnknownError) Unwrap() error { return e.Err }

// Is matches ErrDeliveryUnknown.
func (e *DeliveryUnknownError) Is(target error) bool { return target == ErrDeliveryUnknown }

// ErrNoWorker marks a call that waited for a worker of the agent's task
// queue while no worker polled it.
var ErrNoWorker = errors.New("no worker polls the agent's task queue")

// NoWorkerError is a call that needs a worker (a query, an update, the
// end of a dispose) on an agent whose task queue no worker has polled in
// the last minute, as Temporal's DescribeTaskQueue says: the worker is
// down, or it polls another queue or namespace than the one the agent was
// started on (a typo in --task-queue). It matches ErrNoWorker.
//
// Log and Status return what they read from the agent's history instead
// beside it, FromHistory set: the log as the workflow tasks completed so
// far wrote it, the status as the agent's search attributes last held it.
type NoWorkerError struct {
	Agent, TaskQueue string
	FromHistory      bool
}

func (e *NoWorkerError) Error() string {
	s := fmt.Sprintf("no worker has polled task queue %q of agent %s in the last minute: check that a worker runs, "+
		"reaches this server and namespace and polls %q (worker --task-queue), and that the agent was started on the queue its worker polls",
		e.TaskQueue, e.Agent, e.TaskQueue)
	if e.FromHistory {
		s += " (read from the agent's history instead)"
	}
	return s
}

// Is matches ErrNoWorker.
func (e *NoWorkerError) Is(target error) bool { return target == ErrNoWorker }

// ErrTaskFailing marks a read the server refused because the agent's
// latest workflow task is failing.
var ErrTaskFailing = errors.New("the agent's workflow task is failing")

// TaskFailingError is a query the server refused, after the client asked
// again for queryNotReadyWait, because the agent's workflow task is
// failing: a worker takes it and fails it, as a build does with a run
// under loop rules it does not know (after a rollback to an older build;
// its workflow tasks say "unknown loop rules"), until a build that knows
// the run takes it. Log returns the log read from the agent's history
// beside it, FromHistory set: the log as the workflow tasks completed so
// far wrote it. It matches ErrTaskFailing.
type TaskFailingError struct {
	Agent       string
	FromHistory bool
}

func (e *TaskFailingError) Error() string {
	s := "the workflow task of agent " + e.Agent + " is failing: a worker refuses or cannot run it (the worker's log and the " +
		"agent's history say why: a build older than the agent's loop rules refuses it until a build that knows them takes it)"
	if e.FromHistory {
		s += " (read from the agent's history instead)"
	}
	return s
}

// Is matches ErrTaskFailing.
func (e *TaskFailingError) Is(target error) bool { return target == ErrTaskFailing }

// ErrAlreadyDelivered answers an acknowledged message sent again under a
// message ID the agent already accepted with the same content: it was
// delivered once, by the first send, and is not delivered again. It is not
// a failure: the caller's message is in the agent's log.
var ErrAlreadyDelivered = errors.New("already delivered")

// AlreadyDeliveredError is the answer to an acknowledged message the
// caller sent again (WithMessageID) after the agent accepted it: Ack is
// the first delivery's, Seq -1 when it is not known (the first copy came
// as a signal, or in an earlier run of the agent). It matches
// ErrAlreadyDelivered and signals.ErrDuplicateID, which callers already
// treat as success. The same ID with other content is refused instead,
// with signals.ErrReusedID.
type AlreadyDeliveredError struct {
	Ack signals.Ack
}

func (e *AlreadyDeliveredError) Error() string {
	return fmt.Sprintf("%s: message %s was accepted before; not delivered again", ErrAlreadyDelivered, e.Ack.MessageID)
}

// Is matches ErrAlreadyDelivered and signals.ErrDuplicateID.
func (e *AlreadyDeliveredError) Is(target error) bool {
	return target == ErrAlreadyDelivered || target == signals.ErrDuplicateID
}

// ClosedError is a call on an agent whose workflow has ended: how, and why
// when its history says. It matches ErrClosed.
type ClosedError struct {
	Agent string
	// How it ended, as Summary.Status names it: completed (disposed),
	// failed, canceled, terminated, timed_out, or continued_as_new for a
	// run of the chain that is not the last.
	How string
	// Reason is why, when history says: a failure's message, the reason a
	// termination gave, the run a continued one went on in.
	Reason string
	status enumspb.WorkflowExecutionStatus
}

// Error says how the agent ended in the views' words (signals.Ended:
// disposed, failed, terminated, canceled, timed-out), and why.
func (e *ClosedError) Error() string {
	s := fmt.Sprintf("%s: %s is %s", ErrClosed, e.Agent, endedWord(e.How))
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// Is matches ErrClosed.
func (e *ClosedError) Is(target error) bool { return target == ErrClosed }

// disposed reports an agent that ended the way agents end: by Dispose.
func (e *ClosedError) disposed() bool { return e.status == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED }

// fromRejection maps a workflow validator's rejection to its sentinel. The
// validator's message already names the sentinel's text when it wraps it
// (loop.Check's "%w: call %s"), so it is the error's text as it is: the
// text is never said twice.
func fromRejection(err error) error {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return err
	}
	sentinel := signals.RejectionError(app.Type())
	if sentinel == nil {
		sentinel = ErrRejected
	}
	return &rejection{sentinel: sentinel, msg: app.Message(), typ: app.Type()}
}

// rejection is a workflow's refusal: its sentinel, and the validator's
// message with the sentinel's text at its head once; typ is its rejection
// type, for callers whose type has no sentinel of its own.
type rejection struct {
	sentinel error
	msg      string
	typ      string
}

func (r *rejection) Error() string {
	if head := r.sentinel.Error(); r.msg != head && !strings.HasPrefix(r.msg, head+": ") {
		return head + ": " + r.msg
	}
	return r.msg
}

func (r *rejection) Unwrap() error { return r.sentinel }

func isNotFound(err error) bool {
	var nf *serviceerror.NotFound
	return errors.As(err, &nf)
}

// ErrForkOutOfRange marks a fork position outside the log an agent's
// history holds.
var ErrForkOutOfRange = errors.New("fork position out of range")

// ForkRangeError refuses a fork position outside the positions the
// agent's history holds, First to Last (Last < First: none yet): before a
// fork's own log begins (its fork point and what came before it are its
// source's, which Fork of the source reads), or past the last event its
// history holds (an open agent's newest events reach its history as its
// workflow tasks complete, all of them once it is idle). It matches
// ErrForkOutOfRange; nothing is started.
type ForkRangeError struct {
	Agent           string
	At, First, Last int64
}

func (e *ForkRangeError) Error() string {
	if e.Last < e.First {
		return fmt.Sprintf("%s: cannot fork %s at %d: its history holds no position of its log yet", ErrForkOutOfRange, e.Agent, e.At)
	}
	return fmt.Sprintf("%s: cannot fork %s at %d: its history holds positions %d to %d", ErrForkOutOfRange, e.Agent, e.At, e.First, e.Last)
}

// Is matches ErrForkOutOfRange.
func (e *ForkRangeError) Is(target error) bool { return target == ErrForkOutOfRange }
