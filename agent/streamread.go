package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tetherdev/tether/signals"
)

// maxEventBytes bounds one SSE line, and so one event, that ReadStream
// accepts.
const maxEventBytes = 4 << 20

// ReadStream reads the live token stream at streamURL (a worker's stream
// endpoint, as a model activity's signals.StreamLocator names it) with its
// token, from Seq from on. It is an iterator rather than a pair of
// channels: it runs in the caller's goroutine, so there is nothing to drain
// and nothing to leak, and breaking out of the loop closes the connection.
//
// Each range over it makes one request and yields events in order with a nil
// error, ending after the terminal event. Otherwise it ends by yielding one
// error: signals.ErrNoStream (404: gone, or the token is not the stream's),
// signals.ErrStreamBusy (429), signals.ErrHubBusy (503), ctx's error,
// ErrMalformedStream, ErrStreamInterrupted or a transport error; for the
// last two, reconnect with from = last Seq + 1.
// The token travels in a header and appears in no error. client nil means
// http.DefaultClient; its Timeout must be zero or it cuts streams off.
func ReadStream(ctx context.Context, client *http.Client, streamURL, token string, from int64) iter.Seq2[signals.StreamEvent, error] {
	return readEvents(ctx, client, streamURL, token, url.Values{"from": {strconv.FormatInt(max(from, 0), 10)}})
}

// readEvents is ReadStream with the request's query parameters given: a
// call's stream takes from, an agent's feed from or turn. Its terminal
// events are those signals.StreamEvent.Terminal names.
func readEvents(ctx context.Context, client *http.Client, streamURL, token string, params url.Values) iter.Seq2[signals.StreamEvent, error] {
	return func(yield func(signals.StreamEvent, error) bool) {
		body, err := connect(ctx, client, streamURL, token, params)
		if err != nil {
			yield(signals.StreamEvent{}, err)
			return
		}
		defer body.Close()
		sc := bufio.NewScanner(body)
		sc.Buffer(nil, maxEventBytes)
		for {
			ev, err := nextEvent(sc)
			if err != nil {
				if ctx.Err() != nil {
					err = ctx.Err()
				}
				yield(signals.StreamEvent{}, fmt.Errorf("read stream %s: %w", streamURL, err))
				return
			}
			if !yield(ev, nil) || ev.Terminal() {
				return
			}
		}
	}
}

func connect(ctx context.Context, client *http.Client, streamURL, token string, params url.Values) (io.ReadCloser, error) {
	u, err := url.Parse(streamURL)
	if err != nil {
		return nil, fmt.Errorf("stream url: %w", err)
	}
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("stream request: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token) // never in the URL, which errors and logs show
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("connect stream %s: %w", streamURL, err)
	}
	if err := checkResponse(resp); err != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		return nil, fmt.Errorf("connect stream %s: %w", streamURL, err)
	}
	return resp.Body, nil
}

func checkResponse(resp *http.Response) error {
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return signals.ErrNoStream
	case resp.StatusCode == http.StatusTooManyRequests:
		return signals.ErrStreamBusy
	case resp.StatusCode == http.StatusServiceUnavailable:
		return signals.ErrHubBusy
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("status %s", resp.Status)
	}
	ct, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || ct != "text/event-stream" {
		return fmt.Errorf("content type %q is not text/event-stream", resp.Header.Get("Content-Type"))
	}
	return nil
}

// nextEvent reads one SSE message and decodes its data as a StreamEvent. The hub
// sends nothing but data fields and comments; other fields are ignored.
func nextEvent(sc *bufio.Scanner) (signals.StreamEvent, error) {
	var data []byte
	hasData := false
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if !hasData {
				continue
			}
			var ev signals.StreamEvent
			if err := json.Unmarshal(data, &ev); err != nil {
				return signals.StreamEvent{}, fmt.Errorf("%w: decode event: %w", ErrMalformedStream, err)
			}
			return ev, nil
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue // a comment (": ping") or a field we do not use
		}
		if hasData {
			data = append(data, '\n')
		}
		data = append(data, bytes.TrimPrefix(value, []byte(" "))...)
		hasData = true
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return signals.StreamEvent{}, fmt.Errorf("%w: %w", ErrMalformedStream, err)
	case err != nil:
		return signals.StreamEvent{}, err
	}
	return signals.StreamEvent{}, ErrStreamInterrupted
}
