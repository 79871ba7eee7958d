package main

import (
	"context"
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

// OrderArgs are order_status's arguments; the model sees their schema.
type OrderArgs struct {
	OrderID string `json:"order_id" jsonschema:"the order's ID, such as A-1001" tool:"pattern=^[A-Z]-[0-9]{4}$"`
}

// OrderStatus is a read-only tool: it only looks up, so a second run of a
// call is harmless (AsIdempotent) and it may run inside the workflow task
// (AsLocal).
func OrderStatus() tools.Tool {
	return tools.New("order_status", "Look up the status of an order by its ID, such as A-1001.",
		func(_ context.Context, args OrderArgs) (string, error) {
			status, ok := orders[args.OrderID]
			if !ok {
				return "", tools.ErrorResult(fmt.Errorf("no order %s", args.OrderID))
			}
			return args.OrderID + ": " + status, nil
		}, tools.AsLocal(), tools.AsIdempotent())
}

// QuoteArgs are shipping_quote's arguments.
type QuoteArgs struct {
	WeightKG float64 `json:"weight_kg" jsonschema:"the parcel's weight in kilograms" tool:"exclusiveMinimum=0,maximum=30"`
	Country  string  `json:"country" jsonschema:"the destination country's ISO code" tool:"enum=DE|FR|US"`
}

// ShippingQuote prices a parcel: a pure computation.
func ShippingQuote() tools.Tool {
	return tools.New("shipping_quote", "Price shipping a parcel of a weight in kilograms to a country (ISO code such as DE).",
		func(_ context.Context, args QuoteArgs) (string, error) {
			base := map[string]float64{"DE": 4.9, "FR": 6.9, "US": 19.9}[args.Country]
			price := base + 1.5*math.Ceil(args.WeightKG)
			return fmt.Sprintf("%.2f EUR to %s for %.1f kg", price, args.Country, args.WeightKG), nil
		}, tools.AsIdempotent())
}
