package a2aserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/tetherdev/tether/eventlog"
)

// task reads task t as tasks/get does.
func (h *handler) task(ctx context.Context, t a2a.TaskID) (*a2a.Task, error) {
	hd, msg, err := h.attach(ctx, t)
	if err != nil {
		return nil, err
	}
	snap, err := h.read(ctx, hd, msg)
	return snap.task, err
}

// checkSendPush refuses a message/send whose pushNotificationConfig could
// not be kept, before the message is delivered.
func (h *handler) checkSendPush(ctx context.Context, p *a2a.MessageSendParams) error {
	if p == nil || p.Config == nil || p.Config.PushConfig == nil {
		return nil
	}
	return h.push.guard.check(ctx, p.Config.PushConfig)
}

// setSendPush keeps message/send's pushNotificationConfig for the task the
// message is.
func (h *handler) setSendPush(ctx context.Context, p *a2a.MessageSendParams, id string, msg eventlog.MessageID) error {
	if p == nil || p.Config == nil || p.Config.PushConfig == nil {
		return nil
	}
	_, err := h.push.set(ctx, taskID(id, msg), *p.Config.PushConfig)
	return err
}

func (h *handler) OnSetTaskPushConfig(ctx context.Context, p *a2a.TaskPushConfig) (*a2a.TaskPushConfig, error) {
	if p.TaskID == "" {
		return nil, invalid("taskId is required")
	}
	c, err := h.push.set(ctx, p.TaskID, p.Config)
	if err != nil {
		return nil, err
	}
	return &a2a.TaskPushConfig{TaskID: p.TaskID, Config: *c}, nil
}

// OnGetTaskPushConfig answers the config named, or without a
// pushNotificationConfigId the task's first.
func (h *handler) OnGetTaskPushConfig(ctx context.Context, p *a2a.GetTaskPushConfigParams) (*a2a.TaskPushConfig, error) {
	if _, err := h.task(ctx, p.TaskID); err != nil {
		return nil, err
	}
	for _, c := range h.push.configs(p.TaskID) {
		if p.ConfigID == "" || c.ID == p.ConfigID {
			return &a2a.TaskPushConfig{TaskID: p.TaskID, Config: c}, nil
		}
	}
	return nil, noPushConfig(p.TaskID, p.ConfigID)
}

func (h *handler) OnListTaskPushConfig(ctx context.Context, p *a2a.ListTaskPushConfigParams) ([]*a2a.TaskPushConfig, error) {
	if _, err := h.task(ctx, p.TaskID); err != nil {
		return nil, err
	}
	out := []*a2a.TaskPushConfig{}
	for _, c := range h.push.configs(p.TaskID) {
		out = append(out, &a2a.TaskPushConfig{TaskID: p.TaskID, Config: c})
	}
	return out, nil
}

func (h *handler) OnDeleteTaskPushConfig(ctx context.Context, p *a2a.DeleteTaskPushConfigParams) error {
	if p.ConfigID == "" {
		return invalid("pushNotificationConfigId is required")
	}
	if _, err := h.task(ctx, p.TaskID); err != nil {
		return err
	}
	if !h.push.remove(p.TaskID, p.ConfigID) {
		return noPushConfig(p.TaskID, p.ConfigID)
	}
	return nil
}

func noPushConfig(t a2a.TaskID, id string) error {
	if id == "" {
		return invalid("task %s has no push config (this server keeps them in memory until the task ends)", t)
	}
	return invalid("task %s has no push config %q (this server keeps them in memory until the task ends)", t, id)
}

// nullResult answers a successful tasks/pushNotificationConfig/delete with
// the A2A spec's `"result": null`: a2a-go v0.3.3's handler writes no body
// for a method whose result is nil, which its own client (and any other)
// fails to decode.
func nullResult(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequest))
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the request is too large"}}` + "\n"))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		if json.Unmarshal(body, &req) != nil || req.Method != "tasks/pushNotificationConfig/delete" {
			next.ServeHTTP(w, r)
			return
		}
		cw := &countingWriter{ResponseWriter: w}
		next.ServeHTTP(cw, r)
		if cw.n == 0 {
			id := req.ID
			if len(id) == 0 {
				id = json.RawMessage("null")
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":null}` + "\n"))
		}
	})
}

// maxRequest bounds a JSON-RPC request's body.
const maxRequest = 4 << 20

type countingWriter struct {
	http.ResponseWriter
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	return c.ResponseWriter.Write(p)
}
