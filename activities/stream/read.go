package stream

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
)

// maxEventBytes bounds one SSE line, and so one event, that Read accepts.
const maxEventBytes = 4 << 20

// ErrInterrupted: the response ended before a terminal event. Reconnect
// with from set past the last event received.
var ErrInterrupted = errors.New("stream ended before done or error")

// Read reads the stream at streamURL (a Handler's Key.Path on its worker)
// with its token from Seq from on. It is an iterator rather than a pair of
// channels: it runs in the caller's goroutine, so there is nothing to drain
// and nothing to leak, and breaking out of the loop closes the connection.
//
// Each range over it makes one request and yields events in order with a nil
// error, ending after the terminal event. Otherwise it ends by yielding one
// error: ErrNoStream (404: gone, or the token is not the stream's),
// ErrStreamBusy (429), ErrHubBusy (503), ctx's error, ErrInterrupted or a
// transport error; for the last two, reconnect with from = last Seq + 1.
// The token travels in a header and appears in no error. client nil means
// http.DefaultClient; its Timeout must be zero or it cuts streams off.
func Read(ctx context.Context, client *http.Client, streamURL, token string, from int64) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		body, err := connect(ctx, client, streamURL, token, from)
		if err != nil {
			yield(Event{}, err)
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
				yield(Event{}, fmt.Errorf("read stream %s: %w", streamURL, err))
				return
			}
			if !yield(ev, nil) || ev.Terminal() {
				return
			}
		}
	}
}

func connect(ctx context.Context, client *http.Client, streamURL, token string, from int64) (io.ReadCloser, error) {
	u, err := url.Parse(streamURL)
	if err != nil {
		return nil, fmt.Errorf("stream url: %w", err)
	}
	q := u.Query()
	q.Set("from", strconv.FormatInt(max(from, 0), 10))
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("stream request: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	authorize(req, token)
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
		return ErrNoStream
	case resp.StatusCode == http.StatusTooManyRequests:
		return ErrStreamBusy
	case resp.StatusCode == http.StatusServiceUnavailable:
		return ErrHubBusy
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("status %s", resp.Status)
	}
	ct, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || ct != "text/event-stream" {
		return fmt.Errorf("content type %q is not text/event-stream", resp.Header.Get("Content-Type"))
	}
	return nil
}

// nextEvent reads one SSE message and decodes its data as an Event. The hub
// sends nothing but data fields and comments; other fields are ignored.
func nextEvent(sc *bufio.Scanner) (Event, error) {
	var data []byte
	hasData := false
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if !hasData {
				continue
			}
			var ev Event
			if err := json.Unmarshal(data, &ev); err != nil {
				return Event{}, fmt.Errorf("decode event: %w", err)
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
	if err := sc.Err(); err != nil {
		return Event{}, err
	}
	return Event{}, ErrInterrupted
}
