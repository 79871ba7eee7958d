// Command tools is a Tether worker with two tools of its own beside the
// built-in ones: order_status looks an order up, shipping_quote prices a
// parcel. It is the README's "Build your own worker": package tether's
// Main with the flags of cmd/worker, so
//
//	go run ./examples/tools --dev
//
// runs it on an embedded server, and
//
//	go run ./cmd/starter start --tools order_status,shipping_quote --wait '/tool order_status {"order_id":"A-1001"}'
//
// asks an agent to call one (the scripted model obeys /tool lines; with
// OPENAI_API_KEY or ANTHROPIC_API_KEY set, ask in plain words).
package main

import (
	"os"

	"github.com/tetherdev/tether"
)

func main() {
	os.Exit(tether.Main("tools", tether.FromFlags(os.Args[1:]), tether.WithTools(OrderStatus(), ShippingQuote())))
}
