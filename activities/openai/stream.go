package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

var (
	doneMarker = []byte("[DONE]")
	// errStreamCut stands for a stream the server closed cleanly but early.
	errStreamCut = errors.New("connection closed before the response finished")
)

// Stream makes the same call as Complete with stream=true and
// stream_options.include_usage=true. It calls emit, on the calling
// goroutine and in order, with every text, reasoning and tool call delta;
// emit must not block for long, as the connection waits on it. emit may be
// nil. The result is the message Complete would return for the same
// content. Every error is an *llm.Error; chunks already emitted for a failed
// call are not retracted.
func (p *Provider) Stream(ctx context.Context, req llm.Request, emit func(llm.Chunk)) (eventlog.AssistantMessage, error) {
	params, err := p.params(req)
	if err != nil {
		return eventlog.AssistantMessage{}, err
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)}
	events, err := p.open(ctx, params)
	if err != nil {
		return eventlog.AssistantMessage{}, err
	}
	defer func() { _ = events.Close() }()
	if emit == nil {
		emit = func(llm.Chunk) {}
	}
	emit, flush := p.scrubber.Stream(emit) // no chunk spells the key, even split
	defer flush()
	var a assembly
	if err := p.read(ctx, events, &a, emit); err != nil {
		return eventlog.AssistantMessage{}, err
	}
	return p.scrubber.Reply(toAssistant(a.completion()))
}

// open sends the request and returns the event stream of a 2xx reply. It
// issues the request as ChatCompletionService.NewStreaming does (a
// *http.Response destination leaves the body unread and hands it the
// request timeout) but keeps the decoder: the SDK's Stream ends the same way
// on [DONE] and on a connection closed early, which must be told apart.
func (p *Provider) open(ctx context.Context, params openai.ChatCompletionNewParams) (ssestream.Decoder, error) {
	var raw *http.Response
	_, err := p.chat.New(ctx, params, option.WithJSONSet("stream", true), option.WithResponseBodyInto(&raw))
	if err != nil {
		return nil, p.failure(ctx, err, raw)
	}
	events := ssestream.NewDecoder(raw)
	if events == nil {
		return nil, llm.Fail(eventlog.FailureServer, 0, 0, "stream response has no body", nil)
	}
	return events, nil
}

// read consumes events until [DONE], an error or the end of the body.
func (p *Provider) read(ctx context.Context, events ssestream.Decoder, a *assembly, emit func(llm.Chunk)) error {
	for events.Next() {
		if err := ctx.Err(); err != nil {
			return p.streamCut(ctx, err) // events may be buffered past a cancel
		}
		data := bytes.TrimSpace(events.Event().Data)
		if bytes.Equal(data, doneMarker) {
			return nil
		}
		if err := p.errorEvent(data); err != nil {
			return err
		}
		var chunk openai.ChatCompletionChunk
		if err := json.Unmarshal(data, &chunk); err != nil {
			return llm.Fail(eventlog.FailureServer, 0, 0, "unreadable stream event", p.scrubber.Err(err))
		}
		for _, c := range a.add(&chunk) {
			emit(c)
		}
	}
	if err := events.Err(); err != nil {
		return p.streamCut(ctx, err)
	}
	if !a.finished() {
		// Some servers end without [DONE]; a finish reason is enough. The
		// usage chunk, which follows it, may then be missing.
		return p.streamCut(ctx, errStreamCut)
	}
	return nil
}

// streamCut classifies a stream that stopped without finishing: canceled or
// timed out if the context or a deadline says so, otherwise a network
// failure (a reply was under way, so an unreadable body is not the server's
// answer but a lost connection).
func (p *Provider) streamCut(ctx context.Context, err error) error {
	return llm.StreamCutFailure(ctx, err, p.scrubber)
}
