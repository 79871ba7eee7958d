package tools

import (
	"context"
	"fmt"
	"time"

	// Embedded zone data: worker images often lack /usr/share/zoneinfo.
	_ "time/tzdata"
)

// currentTimeArgs are the "current_time" tool's arguments.
type currentTimeArgs struct {
	Timezone string `json:"timezone,omitempty" tool:"maxLength=64" jsonschema:"IANA time zone name such as \"Europe/Berlin\" or \"America/New_York\". Defaults to UTC."`
}

// CurrentTime returns the "current_time" tool: the time now (from now, or
// time.Now when nil) in RFC 3339 with its weekday, in an IANA zone.
func CurrentTime(now func() time.Time) Tool {
	if now == nil {
		now = time.Now
	}
	return New("current_time",
		"Get the current date and time (RFC 3339) and weekday, optionally in an IANA time zone (default UTC).",
		func(_ context.Context, args currentTimeArgs) (string, error) {
			loc, err := loadZone(args.Timezone)
			if err != nil {
				return "", err
			}
			t := now().In(loc)
			return fmt.Sprintf("%s (%s, %s)", t.Format(time.RFC3339), t.Weekday(), loc), nil
		},
		AsLocal(), AsIdempotent()) // reads the clock only
}

// loadZone resolves an IANA name. "Local" is refused: the worker's own zone
// is an accident of deployment, not something the model asked for.
func loadZone(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	if name == "Local" {
		return nil, modelErrorf("unknown time zone %q: use an IANA name such as \"Europe/Berlin\"", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, modelErrorf("unknown time zone %q: use an IANA name such as \"Europe/Berlin\"", name)
	}
	return loc, nil
}
