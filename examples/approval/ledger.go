package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"syscall"
	"time"

	"github.com/tetherdev/tether/activities/tools"
)

// Ledger is an append-only file of payments, one JSON line each, shared by
// every worker on the machine (flock serializes them).
type Ledger struct {
	Path string
	// ConfirmDelay is how long the payment system takes to confirm.
	ConfirmDelay time.Duration
}

// Payment is one line of the ledger. Key is the tool call's
// IdempotencyKey: the same for every run of one call.
type Payment struct {
	Key         string `json:"key"`
	To          string `json:"to"`
	AmountCents int64  `json:"amount_cents"`
}

// PaymentArgs are send_payment's arguments.
type PaymentArgs struct {
	To          string `json:"to" jsonschema:"who is paid" tool:"minLength=1,maxLength=64"`
	AmountCents int64  `json:"amount_cents" jsonschema:"the amount in euro cents" tool:"minimum=1,maximum=1000000"`
}

// SendPayment is the send_payment tool. It is idempotent because it
// dedupes on the key, and Sequential so two payments of one step are
// never in flight at once.
func (l *Ledger) SendPayment() tools.Tool {
	return tools.New("send_payment", "Pay an amount in euro cents to a recipient. The payment cannot be undone.",
		l.pay, tools.WithMode(tools.Sequential), tools.AsIdempotent())
}

func (l *Ledger) pay(ctx context.Context, args PaymentArgs) (string, error) {
	call, ok := tools.CallOf(ctx)
	if !ok || call.IdempotencyKey == "" {
		return "", errors.New("send_payment runs only as a tool call, which has an idempotency key")
	}
	p := Payment{Key: call.IdempotencyKey, To: args.To, AmountCents: args.AmountCents}
	recorded, err := l.record(p)
	if err != nil {
		return "", err // retryable: the ledger was not written
	}
	if !recorded {
		slog.Info("Payment already in the ledger under this call's key; not paying again", "key", p.Key)
		return paid(p), nil
	}
	select { // the payment is made; its confirmation takes a while
	case <-time.After(l.ConfirmDelay):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return paid(p), nil
}

func paid(p Payment) string {
	return fmt.Sprintf("paid %d.%02d EUR to %s (payment %s)", p.AmountCents/100, p.AmountCents%100, p.To, p.Key)
}

// record appends p unless a payment with its key is in the ledger already,
// and reports whether it appended. The check and the append happen under
// one exclusive lock, and the line is synced before record returns.
func (l *Ledger) record(p Payment) (bool, error) {
	f, err := os.OpenFile(l.Path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return false, err
	}
	found, err := hasKey(f, p.Key)
	if err != nil || found {
		return false, err
	}
	line, err := json.Marshal(p)
	if err != nil {
		return false, err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return false, err
	}
	return true, f.Sync()
}

// hasKey reports whether the ledger holds a payment under key.
func hasKey(f *os.File, key string) (bool, error) {
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p Payment
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return false, errors.New("ledger: a line is not a payment: " + err.Error())
		}
		if p.Key == key {
			return true, nil
		}
	}
	return false, sc.Err()
}
