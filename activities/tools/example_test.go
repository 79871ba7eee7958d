package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/tetherdev/tether/activities/tools"
)

type forecastArgs struct {
	City  string `json:"city" jsonschema:"the city, e.g. Berlin"`
	Units string `json:"units,omitempty" tool:"enum=celsius|fahrenheit"`
	Days  int    `json:"days,omitempty" tool:"minimum=1,maximum=7"`
}

type forecast struct {
	City  string `json:"city"`
	Highs []int  `json:"highs"`
}

func ExampleNew() {
	tool := tools.New("forecast", "Tell the weather in a city.",
		func(_ context.Context, a forecastArgs) (forecast, error) {
			return forecast{City: a.City, Highs: make([]int, max(a.Days, 1))}, nil
		})
	r, err := tools.NewRegistry(tool)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(tool.Parameters))
	for _, args := range []string{`{"city":"Oslo","days":2}`, `{"city":"Oslo","units":"kelvin"}`} {
		res, _ := r.Execute(context.Background(), tools.Call{Name: "forecast", Arguments: json.RawMessage(args)})
		fmt.Println(res.IsError, res.Content)
	}
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"the city, e.g. Berlin"},"units":{"type":"string","enum":["celsius","fahrenheit"]},"days":{"type":"integer","minimum":1,"maximum":7}},"required":["city"],"additionalProperties":false}
	// false {"city":"Oslo","highs":[0,0]}
	// true invalid arguments for tool "forecast": field "units": must be one of "celsius", "fahrenheit", got string "kelvin"
}

// ledger stands for the system that makes the effect: it makes one refund
// per idempotency key and answers a repeat with the first one.
type ledger struct {
	mu      sync.Mutex
	refunds map[string]string
}

func (l *ledger) refund(order string, cents int, key string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if id, ok := l.refunds[key]; ok {
		return id
	}
	id := fmt.Sprintf("rf-%d", len(l.refunds)+1)
	l.refunds[key] = id
	return id
}

type refundArgs struct {
	Order string `json:"order"`
	Cents int    `json:"cents" tool:"minimum=1"`
}

// A side-effecting tool dedupes on the call's idempotency key: a call run
// twice (its worker died after the refund) refunds once.
func ExampleCallOf() {
	payments := &ledger{refunds: map[string]string{}}
	refund := tools.New("refund", "Refund an order.",
		func(ctx context.Context, a refundArgs) (string, error) {
			call, _ := tools.CallOf(ctx)
			return "refunded as " + payments.refund(a.Order, a.Cents, call.IdempotencyKey), nil
		}, tools.AsIdempotent())
	r, err := tools.NewRegistry(refund)
	if err != nil {
		panic(err)
	}
	call := tools.Call{AgentID: "shop-1", CallID: "c1", Name: "refund",
		Arguments: json.RawMessage(`{"order":"A-7","cents":500}`), IdempotencyKey: "shop-1/3/1/c1"}
	for range 2 {
		res, _ := r.Execute(context.Background(), call)
		fmt.Println(res.Content)
	}
	turn, step, _ := call.TurnStep()
	fmt.Println(len(payments.refunds), "refund, asked in turn", turn, "step", step)
	// Output:
	// refunded as rf-1
	// refunded as rf-1
	// 1 refund, asked in turn 3 step 1
}
