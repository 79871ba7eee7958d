package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/text"
)

// Name is the provider name the scripted model is registered under.
const Name = "scripted"

// Provider is the scripted model. The zero value is ready to use.
type Provider struct {
	// WordDelay paces Stream like a model generating text; zero streams at
	// once (tests).
	WordDelay time.Duration
}

// Complete answers req by the rules in the package doc.
func (Provider) Complete(ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	if err := ctx.Err(); err != nil {
		return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureCanceled, 0, 0, "canceled", err)
	}
	if len(req.Messages) == 2 && strings.HasPrefix(req.Messages[0].Content, "You summarize") {
		return summary(req), nil
	}
	t := readTurn(req.Messages)
	if !t.hasUser {
		return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureInvalidRequest, 400, 0, "conversation has no user message", nil)
	}
	d := parseDirectives(t.prompt)
	if d.fail != "" {
		kind := eventlog.FailureKind(d.fail)
		if !slices.Contains(eventlog.FailureKinds, kind) {
			return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureInvalidRequest, 400, 0, "scripted: unknown failure kind "+d.fail, nil)
		}
		return eventlog.AssistantMessage{}, llm.Fail(kind, 0, 0, "scripted failure "+d.fail, nil)
	}
	msg := reply(d, t, req)
	msg.Model = model(req)
	msg.Usage = usage(req.Messages, msg)
	return msg, nil
}

func model(req llm.Request) string {
	if req.Model != "" {
		return req.Model
	}
	return Provider{}.DefaultModel()
}

// DefaultModel is the model a request naming none gets
// (activities.DefaultModeler).
func (Provider) DefaultModel() string { return "scripted-demo" }

// turn is what the rules read from the conversation: the prompt since the
// last assistant answer and the tool results that followed it.
type turn struct {
	hasUser   bool
	prompt    string // user messages after the last text-only assistant answer
	results   []eventlog.Message
	callSteps int // assistant messages with tool calls since the prompt
	asks      int // assistant messages in the whole conversation
}

func readTurn(msgs []eventlog.Message) turn {
	var t turn
	var prompt []string
	for _, m := range msgs {
		switch m.Role {
		case eventlog.RoleUser:
			prompt = append(prompt, m.Content) // steering mid-turn joins the prompt
			t.hasUser = true
		case eventlog.RoleAssistant:
			t.asks++
			if len(m.ToolCalls) == 0 { // an answer closes the previous exchange
				prompt, t.results, t.callSteps = nil, nil, 0
				continue
			}
			t.callSteps++
		case eventlog.RoleTool:
			t.results = append(t.results, m)
		}
	}
	t.prompt = strings.Join(prompt, "\n")
	t.hasUser = t.hasUser && t.prompt != ""
	return t
}

// directives parsed from the prompt.
type directives struct {
	tools  []call
	repeat int
	say    string
	fail   string
}

type call struct {
	name string
	args json.RawMessage
}

func parseDirectives(prompt string) directives {
	var d directives
	for _, line := range strings.Split(prompt, "\n") {
		line = strings.TrimSpace(line)
		verb, rest, _ := strings.Cut(line, " ")
		switch verb {
		case "/tool":
			d.tools = append(d.tools, parseCall(rest))
		case "/repeat":
			n, rest2, _ := strings.Cut(strings.TrimSpace(rest), " ")
			if v, err := strconv.Atoi(n); err == nil && v > 0 {
				d.repeat = v
				d.tools = []call{parseCall(rest2)}
			}
		case "/say":
			d.say = rest
		case "/fail":
			d.fail = strings.TrimSpace(rest)
		}
	}
	return d
}

func parseCall(s string) call {
	name, args, _ := strings.Cut(strings.TrimSpace(s), " ")
	args = strings.TrimSpace(args)
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		raw, _ := json.Marshal(args) // keep the call valid JSON; the tool rejects it
		args = string(raw)
	}
	return call{name: name, args: json.RawMessage(args)}
}

func reply(d directives, t turn, req llm.Request) eventlog.AssistantMessage {
	switch {
	case d.say != "":
		return answer(d.say)
	case d.repeat > 0 && t.callSteps < d.repeat:
		return calls(t, d.tools)
	case d.repeat == 0 && len(d.tools) > 0 && t.callSteps == 0:
		return calls(t, d.tools)
	case len(d.tools) > 0:
		return answer(summarise(t.results))
	case t.callSteps == 0:
		if picked := pick(t.prompt, req.Tools); len(picked) > 0 {
			return calls(t, picked)
		}
		return answer("Scripted model (no API key configured). You said: " + clip(t.prompt, 200) + dateFacts(t.prompt))
	default:
		return answer(summarise(t.results) + dateFacts(t.prompt))
	}
}

func calls(t turn, cs []call) eventlog.AssistantMessage {
	msg := eventlog.AssistantMessage{FinishReason: eventlog.FinishToolCalls}
	for i, c := range cs {
		msg.ToolCalls = append(msg.ToolCalls, eventlog.ToolCallRequest{
			ID: fmt.Sprintf("call_%d_%d", t.asks+1, i), Name: c.name, Arguments: c.args,
		})
	}
	return msg
}

func answer(text string) eventlog.AssistantMessage {
	return eventlog.AssistantMessage{Text: text, FinishReason: eventlog.FinishStop}
}

func summarise(results []eventlog.Message) string {
	if len(results) == 0 {
		return "Done."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "I used %d tool call(s).", len(results))
	for _, r := range results {
		status := "returned"
		if r.IsError {
			status = "failed with"
		}
		fmt.Fprintf(&b, "\n- %s %s: %s", r.Name, status, clip(r.Content, 300))
	}
	return b.String()
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return text.Cut(s, n) + "…"
}

func usage(msgs []eventlog.Message, out eventlog.AssistantMessage) eventlog.Usage {
	in := 0
	for _, m := range msgs {
		in += len(m.Content)
		for _, c := range m.ToolCalls {
			in += len(c.Arguments)
		}
	}
	o := len(out.Text)
	for _, c := range out.ToolCalls {
		o += len(c.Arguments) + len(c.Name)
	}
	return eventlog.Usage{InputTokens: int64(in/4 + 1), OutputTokens: int64(o/4 + 1)}
}

// summary answers a compaction request deterministically: how much it read
// and how it began.
func summary(req llm.Request) eventlog.AssistantMessage {
	transcript := req.Messages[1].Content
	msg := answer(fmt.Sprintf("Summary of %d lines: %s", strings.Count(transcript, "\n"), clip(transcript, 160)))
	msg.Model = model(req)
	msg.Usage = usage(req.Messages, msg)
	return msg
}
