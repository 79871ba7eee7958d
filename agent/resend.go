package agent

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// resendCheckWait bounds the look for a first delivery of a message sent
// under the caller's ID.
const resendCheckWait = 5 * time.Second

// deliverMessage sends message id with content as update u. A message
// under an ID the caller chose may be a resend: Temporal would answer its
// update ID with the first delivery's Ack, as for a first send, so the
// agent's latest run is asked first whether it completed that update
// (same ID, same content); a refusal as a duplicate (an earlier run, or a
// signal, took it) is a resend as well. Both are an *AlreadyDeliveredError
// beside the Ack. The update ID carries a digest of the content, so the
// same ID with other content reaches the agent, which refuses it
// (signals.ErrReusedID), instead of being answered with the first
// message's Ack. A fresh ID (not the caller's) is never sent with other
// content, so its update ID is the message ID alone: 17 bytes fewer in
// each of the four places history writes it.
func deliverMessage[In any](ctx context.Context, h *Handle, u signals.Update[In, signals.Ack], id eventlog.MessageID, content string, chosen bool, in In) (signals.Ack, error) {
	r := request[In, ackAnswer]{u: signals.Update[In, ackAnswer](u), id: string(id), in: in, message: id}
	if chosen {
		r.id = signals.MessageUpdateID(id, content)
		if ack, ok := h.completed(ctx, r.id); ok {
			return ack.of(id), &AlreadyDeliveredError{Ack: ack.of(id)}
		}
	}
	ack, err := deliver(ctx, h, r)
	switch {
	case err == nil:
		return ack.of(id), nil
	case errors.Is(err, signals.ErrDuplicateID):
		return ackAnswer{}.of(id), &AlreadyDeliveredError{Ack: ackAnswer{}.of(id)}
	}
	return signals.Ack{}, err
}

// ackAnswer is a message update's answer as it comes: the workflow
// answers the Seq alone (workflows' ackWire), workers from before it the
// message ID too; no Seq is the zero result of a retry's duplicate, whose
// earlier attempt delivered the message and lost its answer.
type ackAnswer struct {
	Seq *int64 `json:"seq"`
}

// of is the Ack of message id: Seq -1 when it is not known.
func (a ackAnswer) of(id eventlog.MessageID) signals.Ack {
	if a.Seq == nil {
		return signals.Ack{MessageID: id, Seq: -1}
	}
	return signals.Ack{MessageID: id, Seq: *a.Seq}
}

// completed reads the answer of update id, when the agent's latest run
// accepted it: a message already delivered. Any other answer (no such
// update, a refusal, no answer within resendCheckWait) is false.
func (h *Handle) completed(ctx context.Context, id string) (ackAnswer, bool) {
	wctx, stop := h.needsWorker(ctx)
	defer stop()
	pctx, cancel := context.WithTimeout(wctx, resendCheckWait)
	defer cancel()
	var ack ackAnswer
	err := h.c.GetWorkflowUpdateHandle(client.GetWorkflowUpdateHandleOptions{WorkflowID: h.ID, UpdateID: id}).Get(pctx, &ack)
	return ack, err == nil && ack.Seq != nil
}
