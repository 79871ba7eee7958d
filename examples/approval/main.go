// Command approval is a Tether worker with a side-effecting tool:
// send_payment appends a payment to a ledger file, the stand-in for a
// payment system. It shows the pattern every such tool follows, because a
// tool call runs at least once (a worker that dies mid-call runs it again
// elsewhere): the effect is recorded together with the call's
// IdempotencyKey, and a call whose key is already recorded returns the
// recorded payment instead of paying again. Agents are started with the
// tool behind an approval, so no payment is made before a person says yes.
//
//	PAYMENTS_LEDGER=/tmp/payments.ledger go run ./examples/approval --dev
//	go run ./cmd/starter start --id pay-1 --tools send_payment --approve send_payment \
//	    '/tool send_payment {"to":"alice","amount_cents":4200}'
//	go run ./cmd/starter status pay-1          # names the call waiting for approval
//	go run ./cmd/starter approve pay-1 CALL
//
// PAYMENTS_LEDGER names the ledger (default payments.ledger);
// PAYMENTS_CONFIRM_DELAY is how long the payment system takes to confirm a
// payment once it is in the ledger (default 2s): a worker killed then, with
// the payment made and its result not yet recorded, is the case the
// pattern exists for, and the example's test kills it exactly then.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/tetherdev/tether"
)

func main() {
	delay, err := time.ParseDuration(envOr("PAYMENTS_CONFIRM_DELAY", "2s"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "approval: PAYMENTS_CONFIRM_DELAY is not a duration such as 2s")
		os.Exit(2)
	}
	ledger := &Ledger{Path: envOr("PAYMENTS_LEDGER", "payments.ledger"), ConfirmDelay: delay}
	os.Exit(tether.Main("approval", tether.FromFlags(os.Args[1:]), tether.WithTools(ledger.SendPayment())))
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
