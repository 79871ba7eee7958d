package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

const checkedIn = "../../schema/tether.schema.json"

// The checked-in contract is what the Go types say: a change to a wire
// type, a name or an event without regenerating fails here.
func TestTheCheckedInSchemaIsWhatTheGoTypesSay(t *testing.T) {
	want, err := Generate()
	require.NoError(t, err)
	have, err := os.ReadFile(checkedIn)
	require.NoError(t, err)
	require.Equal(t, string(want), string(have),
		"schema/tether.schema.json is stale: run go generate ./internal/schemagen")
}

// Every signal, update and query signals declares, and every rejection
// type, is in the contract under its durable name: the descriptor list
// in gen.go cannot fall behind signals/.
func TestEveryDescriptorAndRejectionOfSignalsIsInTheContract(t *testing.T) {
	declared := map[string][]string{}
	fset := token.NewFileSet()
	files, err := filepath.Glob("../../signals/*.go")
	require.NoError(t, err)
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if kind := descriptorKind(n.Type); kind != "" {
					declared[kind] = append(declared[kind], literalField(t, n, "Name"))
				}
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if strings.HasPrefix(name.Name, "Reject") && i < len(n.Values) {
						if lit, ok := n.Values[i].(*ast.BasicLit); ok {
							declared["Reject"] = append(declared["Reject"], unquote(t, lit))
						}
					}
				}
			}
			return true
		})
	}
	c, err := describe()
	require.NoError(t, err)
	for kind, names := range map[string][]string{
		"Signal": keys(c.names.Signals), "Update": keys(c.names.Updates),
		"Query": keys(c.names.Queries), "Reject": keys(c.names.Rejections),
	} {
		slices.Sort(declared[kind])
		require.NotEmpty(t, names)
		require.Equal(t, declared[kind], names, "the %s descriptors of signals/ and of the contract", kind)
	}
	require.Len(t, c.names.Events, len(eventlog.Types), "every event type")
}

func descriptorKind(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.IndexExpr:
		return descriptorKind(x.X)
	case *ast.IndexListExpr:
		return descriptorKind(x.X)
	case *ast.Ident:
		if x.Name == "Signal" || x.Name == "Update" || x.Name == "Query" {
			return x.Name
		}
	}
	return ""
}

func literalField(t *testing.T, lit *ast.CompositeLit, field string) string {
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok && kv.Key.(*ast.Ident).Name == field {
			return unquote(t, kv.Value.(*ast.BasicLit))
		}
	}
	t.Fatalf("a descriptor without a %s", field)
	return ""
}

func unquote(t *testing.T, lit *ast.BasicLit) string {
	s, err := strconv.Unquote(lit.Value)
	require.NoError(t, err)
	return s
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// validator checks JSON against one $def of the contract.
func validator(t *testing.T, def string) func(string) error {
	t.Helper()
	b, err := Generate()
	require.NoError(t, err)
	var root jsonschema.Schema
	require.NoError(t, json.Unmarshal(b, &root))
	root.Ref = def
	rs, err := root.Resolve(nil)
	require.NoError(t, err)
	return func(doc string) error {
		var v any
		require.NoError(t, json.Unmarshal([]byte(doc), &v))
		return rs.Validate(v)
	}
}

func marshal(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// What Tether's Go types write is valid by the contract: a start input
// with every policy, a status, and every golden session event; a client's
// duration string is valid, a malformed one is not.
func TestTheContractAcceptsWhatTetherWritesAndDurationStrings(t *testing.T) {
	start := validator(t, "#/$defs/signals.AgentInput")
	in := signals.AgentInput{Options: signals.AgentOptions{Tools: []string{"echo"},
		Retry:    &signals.RetryPolicy{Initial: 2 * time.Second, Kinds: []eventlog.FailureKind{eventlog.FailureOverloaded}},
		Approval: &signals.ApprovalPolicy{Tools: []string{"echo"}, Timeout: time.Minute, When: []signals.ApprovalRule{{Tool: "echo", Path: "$.to", Equals: json.RawMessage(`"x"`)}}},
		Wait:     &signals.WaitPolicy{Max: time.Hour}, Budget: &signals.Budget{MaxTokens: 10},
		Prompt: &signals.Prompt{Sections: []signals.Section{{Name: "a", Text: "b"}}}},
		First: &signals.Message{ID: "m1", Content: "hi"}}
	require.NoError(t, start(marshal(t, in)))
	require.NoError(t, start(`{"options":{"hooks":null,"retry":{"initial":"2s","max":"1h30m"}},"first":{"id":"m1","content":"hi"}}`))
	require.Error(t, start(`{"options":{"hooks":null,"retry":{"initial":"2 parsecs"}}}`))
	require.Error(t, start(`{"options":{"hooks":null,"retry":{"initial":1.5}}}`))

	require.NoError(t, validator(t, "#/$defs/signals.StatusView")(marshal(t, signals.StatusView{
		Status: eventlog.StatusIdle, NextTurn: []eventlog.Pending{}, NextStep: []eventlog.Pending{}})))
	require.Error(t, validator(t, "#/$defs/signals.Message")(`{"content":"no id"}`), "a message names its ID")

	envelope := validator(t, "#/$defs/eventlog.Envelope")
	c, err := describe()
	require.NoError(t, err)
	golden, err := filepath.Glob("../../eventlog/testdata/events/*.json")
	require.NoError(t, err)
	require.Len(t, golden, len(eventlog.Types))
	for _, path := range golden {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, envelope(string(b)), path)
		var env eventlog.Envelope
		require.NoError(t, json.Unmarshal(b, &env))
		require.NoError(t, validator(t, c.names.Events[env.Type])(string(env.Data)), path)
	}
}
