package tools

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

type forecastArgs struct {
	City  string   `json:"city" jsonschema:"the city, e.g. Berlin" tool:"minLength=1,maxLength=64"`
	Units string   `json:"units,omitempty" jsonschema:"temperature units" tool:"enum=celsius|fahrenheit"`
	Days  int      `json:"days,omitempty" tool:"minimum=1,maximum=7"`
	Hours []int    `json:"hours,omitempty" tool:"maxItems=3,minimum=0,maximum=23"`
	Code  string   `json:"code,omitempty" tool:"pattern=^[A-Z]{2,3}$"`
	Exact *float64 `json:"exact,omitempty" tool:"enum=0.5|1"`
}

type forecast struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

func forecastTool(fn func(context.Context, forecastArgs) (forecast, error)) Tool {
	if fn == nil {
		fn = func(_ context.Context, a forecastArgs) (forecast, error) { return forecast{a.City, a.Days}, nil }
	}
	return New("forecast", "Tell the weather.", fn)
}

func TestNewInfersTheSchemaWithDescriptionsEnumsBoundsAndRequired(t *testing.T) {
	tool := forecastTool(nil)
	require.JSONEq(t, `{
	  "type": "object",
	  "properties": {
	    "city":  {"type": "string", "description": "the city, e.g. Berlin", "minLength": 1, "maxLength": 64},
	    "units": {"type": "string", "description": "temperature units", "enum": ["celsius", "fahrenheit"]},
	    "days":  {"type": "integer", "minimum": 1, "maximum": 7},
	    "hours": {"type": ["null", "array"], "maxItems": 3, "items": {"type": "integer", "minimum": 0, "maximum": 23}},
	    "code":  {"type": "string", "pattern": "^[A-Z]{2,3}$"},
	    "exact": {"type": ["null", "number"], "enum": [0.5, 1]}
	  },
	  "required": ["city"],
	  "additionalProperties": false
	}`, string(tool.Parameters))
	r, err := NewRegistry(tool)
	require.NoError(t, err)
	specs, err := r.Specs([]string{"forecast"})
	require.NoError(t, err)
	require.Equal(t, "Tell the weather.", specs[0].Description)
	require.JSONEq(t, string(tool.Parameters), string(specs[0].Parameters))
}

func TestNewRunsTheFunctionOnDecodedArgumentsAndEncodesItsResult(t *testing.T) {
	r, err := NewRegistry(forecastTool(nil),
		New("greet", "Greet.", func(_ context.Context, a struct {
			Name string `json:"name"`
		}) (string, error) {
			return "hello " + a.Name, nil
		}),
		New("finish", "Finish.", func(context.Context, struct{}) (Result, error) {
			return Result{Content: "bye", ConcludesTurn: true}, nil
		}))
	require.NoError(t, err)
	tests := []struct {
		name, tool, args string
		want             Result
	}{
		{"struct result as JSON", "forecast", `{"city":"Oslo","days":3}`, Result{Content: `{"city":"Oslo","days":3}`}},
		{"string result as is", "greet", `{"name":"Ada"}`, Result{Content: "hello Ada"}},
		{"Result passed through", "finish", ``, Result{Content: "bye", ConcludesTurn: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Execute(context.Background(), Call{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestNewValidationFailuresReachTheModelNamingTheField(t *testing.T) {
	ran := false
	r, err := NewRegistry(forecastTool(func(context.Context, forecastArgs) (forecast, error) {
		ran = true
		return forecast{}, nil
	}))
	require.NoError(t, err)
	tests := []struct{ name, args, want string }{
		{"missing required", `{}`, `missing required field "city"`},
		{"not in enum", `{"city":"Oslo","units":"kelvin"}`, `field "units": must be one of "celsius", "fahrenheit", got string "kelvin"`},
		{"below minimum", `{"city":"Oslo","days":0}`, `field "days": must be >= 1, got 0`},
		{"above maximum", `{"city":"Oslo","days":8}`, `field "days": must be <= 7, got 8`},
		{"item out of bounds", `{"city":"Oslo","hours":[1,24]}`, `field "hours[1]": must be <= 23, got 24`},
		{"unknown field", `{"city":"Oslo","zip":"0150"}`, `unknown field "zip" (allowed: city, code, days, exact, hours, units)`},
		{"wrong type", `{"city":7}`, `field "city": expected string, got integer 7`},
		{"integer in exponent form", `{"city":"Oslo","days":1e3}`, `days`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Execute(context.Background(), Call{Name: "forecast", Arguments: json.RawMessage(tt.args)})
			require.NoError(t, err, "a validation failure is an error result, never a fault")
			require.True(t, got.IsError)
			require.Contains(t, got.Content, `invalid arguments for tool "forecast": `)
			require.Contains(t, got.Content, tt.want)
			require.False(t, ran, "the function never runs on arguments the schema refuses")
		})
	}
}

func TestNewFunctionReadsTheCallFromItsContext(t *testing.T) {
	var got Call
	var turn, step int
	var ok bool
	tool := New("record", "Record the call.", func(ctx context.Context, _ struct{}) (string, error) {
		got, _ = CallOf(ctx)
		turn, step, ok = got.TurnStep()
		ReportProgress(ctx, Progress{Progress: 1, Total: 2, Message: "half"})
		return "ok", nil
	}, AsIdempotent(), AsLocal(), WithMode(Sequential))
	require.True(t, tool.Local && tool.Idempotent)
	require.Equal(t, Sequential, tool.Mode)
	r, err := NewRegistry(tool)
	require.NoError(t, err)
	var heard []Progress
	ctx := WithProgress(context.Background(), func(p Progress) { heard = append(heard, p) })
	call := Call{AgentID: "support/42", CallID: "call_7", Name: "record", IdempotencyKey: "support/42/3/2/call_7"}
	_, err = r.Execute(ctx, call)
	require.NoError(t, err)

	call.Arguments = json.RawMessage(`{}`)
	require.Equal(t, call, got)
	require.True(t, ok)
	require.Equal(t, []int{3, 2}, []int{turn, step})
	require.Equal(t, []Progress{{Progress: 1, Total: 2, Message: "half"}}, heard)
	_, ok = CallOf(context.Background())
	require.False(t, ok)
}

func TestCallTurnStepNeedsAKeyOfTheCallsOwnAgentAndCallID(t *testing.T) {
	for _, c := range []Call{
		{AgentID: "a", CallID: "c", IdempotencyKey: "b/1/2/c"},
		{AgentID: "a", CallID: "c", IdempotencyKey: "a/1/2/d"},
		{AgentID: "a", CallID: "c", IdempotencyKey: "a/x/2/c"},
		{AgentID: "a", CallID: "c", IdempotencyKey: "a/1/c"},
		{AgentID: "", CallID: "c", IdempotencyKey: "/1/2/c"},
	} {
		_, _, ok := c.TurnStep()
		require.False(t, ok, c.IdempotencyKey)
	}
}

func TestNewFunctionSeesTheCallCanceled(t *testing.T) {
	started := make(chan struct{})
	r, err := NewRegistry(New("block", "Block until canceled.", func(ctx context.Context, _ struct{}) (string, error) {
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	}))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	_, err = r.Execute(ctx, Call{Name: "block"})
	require.ErrorIs(t, err, context.Canceled)
}

func TestNewFunctionErrorsAreHandledAsAnyTools(t *testing.T) {
	r, err := NewRegistry(
		New("missing", "Model-visible.", func(context.Context, struct{}) (string, error) {
			return "", ErrorResult(errors.New("no such order"))
		}),
		New("flaky", "Retryable.", func(context.Context, struct{}) (string, error) { return "", errBackend }),
		New("odd", "Unencodable.", func(context.Context, struct{}) (func(), error) { return func() {}, nil }))
	require.NoError(t, err)
	got, err := r.Execute(context.Background(), Call{Name: "missing"})
	require.NoError(t, err)
	require.Equal(t, Result{Content: "no such order", IsError: true}, got)
	_, err = r.Execute(context.Background(), Call{Name: "flaky"})
	require.ErrorIs(t, err, errBackend)
	got, err = r.Execute(context.Background(), Call{Name: "odd"})
	require.NoError(t, err)
	require.True(t, got.IsError)
	require.Contains(t, got.Content, "tool odd: cannot encode its result")
}

func TestNewRegistryRefusesATypedToolWhoseSchemaCannotBeInferred(t *testing.T) {
	tests := []struct {
		name string
		tool Tool
		err  string
	}{
		{"channel field", New("c", "d", func(context.Context, struct{ C chan int }) (string, error) { return "", nil }),
			"unsupported by jsonschema"},
		{"unknown tag setting", New("c", "d", func(context.Context, struct {
			N int `tool:"max=3"`
		}) (string, error) {
			return "", nil
		}), `unknown setting "max"`},
		{"enum of wrong type", New("c", "d", func(context.Context, struct {
			N int `tool:"enum=a|b"`
		}) (string, error) {
			return "", nil
		}), `enum value "a"`},
		{"not an object", New("c", "d", func(context.Context, string) (string, error) { return "", nil }),
			`schema must have "type":"object"`},
		{"nil function", New[struct{}, string]("c", "d", nil), "nil Run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRegistry(tt.tool)
			require.ErrorContains(t, err, tt.err)
			if tt.name != "nil function" {
				require.ErrorIs(t, err, ErrInvalidSchema)
			}
		})
	}
}

func TestNewAppliesOptionsLastSoAnyFieldCanBeSet(t *testing.T) {
	custom := func(t *Tool) {
		t.Parameters = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	}
	tool := New("n", "Take n.", func(context.Context, struct {
		N int `json:"n"`
	}) (string, error) {
		return "ok", nil
	}, custom, nil)
	require.JSONEq(t, `{"type":"object","properties":{"n":{"type":"integer"}}}`, string(tool.Parameters))
	r, err := NewRegistry(tool)
	require.NoError(t, err)
	got, err := r.Execute(context.Background(), Call{Name: "n"})
	require.NoError(t, err)
	require.Equal(t, Result{Content: "ok"}, got, "the schema the option set, with no required n, is the one enforced")
}
