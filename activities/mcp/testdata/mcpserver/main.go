// Command mcpserver is an MCP server for Tether's tests, written with the
// official Go SDK. It serves stdio by default, or streamable HTTP with
// -http ADDR (printing "url <URL>" once it listens). -state names a
// directory where its tools leave what tests check: notes, the
// idempotency keys calls carried, the marker of a crash. -crash-on-list
// makes it exit when asked for its tools; -big N adds N tools whose input
// schemas are just within Tether's bound. -idle makes it no server but a
// process that only waits, as the child the spawn tool starts.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// keyMeta is the _meta field Tether puts a call's idempotency key in.
const keyMeta = "tether/idempotency_key"

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	state := flag.String("state", os.TempDir(), "directory of the files tools write")
	header := flag.String("require-header", "", `"Name: value" every HTTP request must carry`)
	many := flag.Int("many", 0, "add this many extra read-only tools")
	crashOnList := flag.Bool("crash-on-list", false, "exit when asked for the tools, as a server that breaks at listing")
	big := flag.Int("big", 0, "add this many extra tools with schemas just within the bound")
	idle := flag.Bool("idle", false, "only wait, an hour at most: the child spawn starts")
	flag.Parse()
	if *idle {
		time.Sleep(time.Hour)
		return
	}
	s := newServer(*state, *many)
	for i := range *big {
		add(s, fmt.Sprintf("big%03d", i), "A tool with a big schema.", &mcp.ToolAnnotations{ReadOnlyHint: true}, bigSchema(), echoNothing)
	}
	if *crashOnList {
		s.AddReceivingMiddleware(exitOn("tools/list"))
	}
	if *addr == "" {
		err := s.Run(context.Background(), &mcp.StdioTransport{})
		working.Wait() // as a server that finishes its calls before it exits
		if err != nil {
			log.Fatal(err)
		}
		return
	}
	serveHTTP(s, *addr, *header)
}

func serveHTTP(s *mcp.Server, addr, header string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	if name, value, ok := strings.Cut(header, ":"); ok {
		h = requireHeader(h, strings.TrimSpace(name), strings.TrimSpace(value))
	}
	fmt.Printf("url http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, h))
}

func requireHeader(next http.Handler, name, value string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(name) != value {
			http.Error(w, "missing or wrong "+name, http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// exitOn exits the process when a request of method arrives.
func exitOn(method string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, m string, req mcp.Request) (mcp.Result, error) {
			if m == method {
				os.Exit(4)
			}
			return next(ctx, m, req)
		}
	}
}

type server struct {
	*mcp.Server
	state string
}

func newServer(state string, many int) *mcp.Server {
	s := &server{Server: mcp.NewServer(&mcp.Implementation{Name: "tether-test", Version: "1"}, nil), state: state}
	no := false
	s.add("echo", "Echo text back.", &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}, textSchema, s.echo)
	s.add("append_note", "Append a note.", &mcp.ToolAnnotations{DestructiveHint: &no}, textSchema, s.appendNote)
	s.add("delete_notes", "Delete every note.", nil, objectSchema, s.deleteNotes)
	s.add("fail", "Fail as a tool does: an isError result.", nil, objectSchema, fail)
	s.add("rpc_error", "Answer with a JSON-RPC error.", nil, objectSchema, rpcError)
	s.add("crash", "Exit the server, unless it crashed here before.", nil, objectSchema, s.crash)
	s.add("sleep", "Sleep for ms milliseconds.", &mcp.ToolAnnotations{ReadOnlyHint: true}, sleepSchema, sleep)
	s.add("work", "Work for ms milliseconds, to the end even if the client is gone.", &mcp.ToolAnnotations{ReadOnlyHint: true}, sleepSchema, work)
	s.add("record_key", "Record the idempotency key of the call.", nil, objectSchema, s.recordKey)
	s.add("getenv", "The value of the environment variable text.", &mcp.ToolAnnotations{ReadOnlyHint: true}, textSchema, getenv)
	s.add("pid", "The server's process ID.", &mcp.ToolAnnotations{ReadOnlyHint: true}, objectSchema, pid)
	s.add("cwd", "The server's working directory.", &mcp.ToolAnnotations{ReadOnlyHint: true}, objectSchema, cwd)
	s.add("picture", "A picture and a caption.", &mcp.ToolAnnotations{ReadOnlyHint: true}, objectSchema, picture)
	s.add("structured", "Only structured content.", &mcp.ToolAnnotations{ReadOnlyHint: true}, objectSchema, structured)
	s.add("huge_description", strings.Repeat("d", 5000), &mcp.ToolAnnotations{ReadOnlyHint: true}, objectSchema, echoNothing)
	s.add("huge_schema", "A schema over the bound.", &mcp.ToolAnnotations{ReadOnlyHint: true}, hugeSchema(), echoNothing)
	s.add("grow", "Add the tool extra to the list.", nil, objectSchema, s.grow)
	s.add("progress", "Report progress once, then wait for the file go-on in the state directory.", &mcp.ToolAnnotations{ReadOnlyHint: true}, objectSchema, s.progress)
	s.add("steps", "Report progress 1 of 3 with the message text, and the next step each time the state directory has the file step-<i>; then answer.", &mcp.ToolAnnotations{ReadOnlyHint: true}, textSchema, s.steps)
	s.add("crash_always", "Exit the server, every time.", nil, objectSchema, crashAlways)
	s.add("spawn", "Start a child process and answer its process ID.", nil, objectSchema, spawn)
	s.add("media", "An image, and the same as structured content, as a file server reads media.", &mcp.ToolAnnotations{ReadOnlyHint: true}, objectSchema, media)
	for i := range many {
		s.add(fmt.Sprintf("t%03d", i), "An extra tool.", &mcp.ToolAnnotations{ReadOnlyHint: true}, objectSchema, echoNothing)
	}
	return s.Server
}

var (
	objectSchema = json.RawMessage(`{"type":"object"}`)
	textSchema   = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	sleepSchema  = json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}}}`)
)

func hugeSchema() json.RawMessage {
	props := map[string]any{}
	for i := range 400 {
		props[fmt.Sprintf("field_%03d", i)] = map[string]any{"type": "string", "description": "a field of a schema too big to list"}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	return b
}

// bigSchema is an input schema of just under 16 KiB, Tether's bound.
func bigSchema() json.RawMessage {
	b, _ := json.Marshal(map[string]any{"type": "object", "description": strings.Repeat("s", 16<<10-64)})
	return b
}

func (s *server) add(name, desc string, ann *mcp.ToolAnnotations, schema json.RawMessage, h mcp.ToolHandler) {
	add(s.Server, name, desc, ann, schema, h)
}

func add(s *mcp.Server, name, desc string, ann *mcp.ToolAnnotations, schema json.RawMessage, h mcp.ToolHandler) {
	s.AddTool(&mcp.Tool{Name: name, Description: desc, Annotations: ann, InputSchema: schema}, h)
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func args(req *mcp.CallToolRequest) (a struct {
	Text string `json:"text"`
	MS   int    `json:"ms"`
}) {
	_ = json.Unmarshal(req.Params.Arguments, &a)
	return a
}

func (s *server) echo(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return text(args(req).Text), nil
}

func echoNothing(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return text("nothing"), nil
}

func (s *server) appendNote(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := s.appendLine("notes", args(req).Text); err != nil {
		return nil, err
	}
	return text("noted"), nil
}

func (s *server) deleteNotes(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	_ = os.Remove(filepath.Join(s.state, "notes"))
	return text("deleted"), nil
}

func fail(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	r := text("the disk is full")
	r.IsError = true
	return r, nil
}

func rpcError(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, &jsonrpc.Error{Code: -32000, Message: "backend refused the request"}
}

// crash records the call's key, then exits the process the first time it
// runs with this state directory and answers "recovered" after.
func (s *server) crash(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := s.appendLine("crash-keys", key(req)); err != nil {
		return nil, err
	}
	marker := filepath.Join(s.state, "crashed")
	if _, err := os.Stat(marker); err == nil {
		return text("recovered"), nil
	}
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		return nil, err
	}
	os.Exit(3)
	return nil, nil
}

// progress answers "no token" to a call without a progress token; else it
// reports progress 1 of 2, "halfway", and waits, ten seconds at most, for
// the file go-on, which the test writes once it heard the progress.
func (s *server) progress(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return text("no token"), nil
	}
	p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 2, Message: "halfway"}
	if err := req.Session.NotifyProgress(ctx, p); err != nil {
		return nil, err
	}
	for range 1000 {
		if _, err := os.Stat(filepath.Join(s.state, "go-on")); err == nil {
			return text("progressed"), nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return text("no go-on"), nil
}

func crashAlways(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	os.Exit(5)
	return nil, nil
}

// spawn starts this program again with -idle, as a server that runs
// helpers of its own, and answers the child's process ID.
func spawn(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	child := exec.Command(self, "-idle")
	if err := child.Start(); err != nil {
		return nil, err
	}
	go func() { _ = child.Wait() }()
	return text(fmt.Sprint(child.Process.Pid)), nil
}

// media answers as the filesystem server's read_media_file does: image
// content, and the same as structured content.
func media(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	png := make([]byte, 200<<10)
	img := &mcp.ImageContent{Data: png, MIMEType: "image/png"}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{img},
		StructuredContent: map[string]any{"content": []any{map[string]any{"type": "image", "data": png, "mimeType": "image/png"}}},
	}, nil
}

// working counts the calls of work still running: the server exits only
// once they are done.
var working sync.WaitGroup

func work(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	working.Add(1)
	defer working.Done()
	time.Sleep(time.Duration(args(req).MS) * time.Millisecond)
	return text("worked"), nil
}

func sleep(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	select {
	case <-time.After(time.Duration(args(req).MS) * time.Millisecond):
		return text("slept"), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *server) recordKey(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	k := key(req)
	if err := s.appendLine("keys", k); err != nil {
		return nil, err
	}
	return text(k), nil
}

func key(req *mcp.CallToolRequest) string {
	k, _ := req.Params.Meta[keyMeta].(string)
	return k
}

func getenv(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return text(os.Getenv(args(req).Text)), nil
}

func pid(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return text(fmt.Sprint(os.Getpid())), nil
}

func cwd(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return text(dir), nil
}

func picture(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	png := make([]byte, 12<<10)
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "a red square"},
		&mcp.ImageContent{Data: png, MIMEType: "image/png"},
	}}, nil
}

func structured(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"temperature": 21, "unit": "C"}}, nil
}

func (s *server) grow(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.add("extra", "A tool grow added.", &mcp.ToolAnnotations{ReadOnlyHint: true}, objectSchema, echoNothing)
	return text("grown"), nil
}

func (s *server) appendLine(file, line string) error {
	f, err := os.OpenFile(filepath.Join(s.state, file), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = fmt.Fprintln(f, line)
	return err
}
