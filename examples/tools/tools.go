package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/tetherdev/tether/activities/tools"
)

// orders is the example's order book: a real worker would ask its own
// service.
var orders = map[string]string{
	"A-1001": "shipped on 2026-11-30, arriving 2026-12-03",
	"A-1002": "packed, ships tomorrow",
}

// OrderStatus is a read-only tool: it only looks up, so a second run of a
// call is harmless (Idempotent) and it may run inside the workflow task
// (Local).
func OrderStatus() tools.Tool {
	return tools.Tool{
		Name:        "order_status",
		Description: "Look up the status of an order by its ID, such as A-1001.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
			"order_id":{"type":"string","description":"the order's ID, such as A-1001","pattern":"^[A-Z]-[0-9]{4}$"}},
			"required":["order_id"],"additionalProperties":false}`),
		Local: true, Idempotent: true,
		Run: func(_ context.Context, call tools.Call) (tools.Result, error) {
			var args struct {
				OrderID string `json:"order_id"`
			}
			if err := json.Unmarshal(call.Arguments, &args); err != nil {
				return tools.Result{}, tools.ErrorResult(err)
			}
			status, ok := orders[args.OrderID]
			if !ok {
				return tools.Result{}, tools.ErrorResult(fmt.Errorf("no order %s", args.OrderID))
			}
			return tools.Result{Content: args.OrderID + ": " + status}, nil
		},
	}
}

// ShippingQuote prices a parcel: a pure computation.
func ShippingQuote() tools.Tool {
	return tools.Tool{
		Name:        "shipping_quote",
		Description: "Price shipping a parcel of a weight in kilograms to a country (ISO code such as DE).",
		Parameters: json.RawMessage(`{"type":"object","properties":{
			"weight_kg":{"type":"number","exclusiveMinimum":0,"maximum":30},
			"country":{"type":"string","enum":["DE","FR","US"]}},
			"required":["weight_kg","country"],"additionalProperties":false}`),
		Idempotent: true,
		Run: func(_ context.Context, call tools.Call) (tools.Result, error) {
			var args struct {
				WeightKG float64 `json:"weight_kg"`
				Country  string  `json:"country"`
			}
			if err := json.Unmarshal(call.Arguments, &args); err != nil {
				return tools.Result{}, tools.ErrorResult(err)
			}
			base := map[string]float64{"DE": 4.9, "FR": 6.9, "US": 19.9}[args.Country]
			price := base + 1.5*math.Ceil(args.WeightKG)
			return tools.Result{Content: fmt.Sprintf("%.2f EUR to %s for %.1f kg", price, args.Country, args.WeightKG)}, nil
		},
	}
}
