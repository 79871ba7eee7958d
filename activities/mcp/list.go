package mcp

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/text"
	"github.com/tetherdev/tether/signals"
)

// DefaultListTimeout bounds the listing of one server, connecting
// included, so a dead server never holds a turn for long.
const DefaultListTimeout = 10 * time.Second

// Lister is the ListTools activity (signals.ListToolsActivity).
type Lister struct {
	Sessions *Manager
	// Timeout bounds each server's listing; DefaultListTimeout when zero.
	Timeout time.Duration
	// ServerBytes and MaxBytes bound the encoded tools of one server and
	// the encoded listing; MaxServerListingBytes and MaxListingBytes when
	// zero.
	ServerBytes, MaxBytes int
}

// ListTools lists the tools of in.Servers, concurrently, each bounded by
// the Timeout. It never fails for a server: one that cannot be listed
// gets an entry with Error. A server whose bounded tools still have the
// digest in.Known holds for it answers Unchanged, without tools. Only a
// listing over MaxBytes, which takes many servers, fails, at once
// (ErrListingTooLarge).
func (l *Lister) ListTools(ctx context.Context, in signals.ListToolsInput) (eventlog.ToolsListed, error) {
	out := eventlog.ToolsListed{Servers: make([]eventlog.ServerTools, len(in.Servers))}
	var wg sync.WaitGroup
	for i, server := range in.Servers {
		wg.Go(func() { out.Servers[i] = l.list(ctx, server, in.Known[server]) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return out, err
	}
	if err := tooLarge(out, cmp.Or(l.MaxBytes, MaxListingBytes)); err != nil {
		return eventlog.ToolsListed{}, err
	}
	return out, nil
}

func (l *Lister) list(ctx context.Context, server, known string) eventlog.ServerTools {
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultListTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	st, err := l.fetch(ctx, server, cmp.Or(l.ServerBytes, MaxServerListingBytes))
	if err != nil {
		msg := redact(err.Error())
		l.Sessions.log.Warn("MCP server not listed", "server", server, "error", msg)
		return eventlog.ServerTools{Server: server, Error: msg}
	}
	if st.Digest == known {
		return eventlog.ServerTools{Server: server, Unchanged: true}
	}
	return st
}

// fetch lists server's tools within the bounds. A session that broke
// (an HTTP server that restarted and forgot it) is replaced, at most
// twice: the first replacement's stream can still end with the old
// session's teardown ("request terminated without response", seen about
// 1 listing in 40 on a loaded machine), and a listing is safe to repeat.
func (l *Lister) fetch(ctx context.Context, server string, limit int) (eventlog.ServerTools, error) {
	for attempt := 1; ; attempt++ {
		s, err := l.Sessions.session(ctx, server)
		if err != nil {
			return eventlog.ServerTools{}, listError(ctx, server, err)
		}
		st, err := bounded(ctx, server, s, limit)
		if err == nil {
			return st, nil
		}
		if !broken(ctx, err) || attempt == maxListAttempts {
			return eventlog.ServerTools{}, listError(ctx, server, fmt.Errorf("list tools of MCP server %q: %w", server, err))
		}
		l.Sessions.drop(server, s)
	}
}

// maxListAttempts bounds the sessions one listing tries.
const maxListAttempts = 3

// bounded lists the tools of s within the bounds, limit the bytes of
// their encoding, and digests what it kept; what was left out is said in
// Error.
func bounded(ctx context.Context, server string, s *sdk.ClientSession, limit int) (eventlog.ServerTools, error) {
	st := eventlog.ServerTools{Server: server, Tools: []eventlog.MCPTool{}}
	var notes []string
	offered, kept, total := 0, 1, 1 // the bytes of the tools' JSON array: "[", and a comma or "]" a tool
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return eventlog.ServerTools{}, err
		}
		tool, why := convert(t)
		if why != "" {
			notes = append(notes, fmt.Sprintf("tool %q left out: %s", t.Name, why))
			continue
		}
		if offered == signals.MaxMCPToolsPerServer {
			notes = append(notes, fmt.Sprintf("more than %d tools: only the first %d are offered", offered, offered))
			break
		}
		offered++
		n := toolBytes(tool)
		total += n
		if len(st.Tools) == offered-1 && kept+n <= limit {
			st.Tools, kept = append(st.Tools, tool), kept+n
		}
	}
	if len(st.Tools) < offered {
		notes = append(notes, byteNote(len(st.Tools), offered, total, limit))
	}
	st.Error, st.Digest = truncate(strings.Join(notes, "; "), maxListingError), digest(st.Tools)
	return st, nil
}

// listError says plainly why server could not be listed when it refused
// the worker's credentials, hung up or ran out of time.
func listError(ctx context.Context, server string, err error) error {
	switch r, ok := refused(err); {
	case ok:
		return fmt.Errorf("MCP server %q refused the worker: %v; check the credentials the worker sends it (headers_env)", server, r)
	case ctx.Err() == context.DeadlineExceeded:
		return fmt.Errorf("no answer within the listing timeout: %w", err)
	case errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed):
		return fmt.Errorf("%w (the server closed the connection; what a stdio server wrote to stderr is in the worker's log)", err)
	}
	return err
}

// convert maps an MCP tool to its recorded form, or says why it cannot be
// offered.
func convert(t *sdk.Tool) (eventlog.MCPTool, string) {
	schema, err := json.Marshal(t.InputSchema) // a map: json sorts its keys
	switch {
	case err != nil:
		return eventlog.MCPTool{}, "its input schema is not JSON"
	case len(schema) > signals.MaxMCPInputSchema:
		return eventlog.MCPTool{}, fmt.Sprintf("its input schema has %d bytes, over %d", len(schema), signals.MaxMCPInputSchema)
	}
	out := eventlog.MCPTool{Name: t.Name, Description: truncate(t.Description, signals.MaxMCPDescription), InputSchema: schema}
	if a := t.Annotations; a != nil {
		out.ReadOnly, out.Destructive, out.Idempotent = a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint
	}
	return out, ""
}

// digest is "sha256:" and the hex SHA-256 of the tools' JSON, which is
// canonical: struct fields in order, schema keys sorted.
func digest(tools []eventlog.MCPTool) string {
	b, _ := json.Marshal(tools) // cannot fail: each schema was marshalled from JSON
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// truncate cuts s to at most n bytes on a UTF-8 boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return text.Cut(s, n)
}
