package scripted

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

var (
	// isoDate is a calendar date, with a time of day and a zone or not:
	// 2026-12-01, 2026-12-01T10:00:00Z, 2026-12-01 10:00.
	isoDate = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b`)
	// slashDate is a date the scripted model does not read (12/01/2026 is
	// December in one country and January in another), yet no division.
	slashDate = regexp.MustCompile(`\b(?:\d{4}/\d{1,2}/\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}\.\d{1,2}\.\d{4})\b`)
)

// splitDates returns the ISO dates of prompt, in order, and prompt with
// every date blanked, so no rule reads 2026-12-01 as a subtraction.
func splitDates(prompt string) ([]time.Time, string) {
	var dates []time.Time
	for _, m := range isoDate.FindAllStringSubmatch(prompt, -1) {
		if d, err := time.Parse(time.DateOnly, m[1]+"-"+m[2]+"-"+m[3]); err == nil {
			dates = append(dates, d)
		}
	}
	rest := isoDate.ReplaceAllString(prompt, " ")
	return dates, slashDate.ReplaceAllString(rest, " ")
}

// dateFacts is what the scripted model knows of the prompt's dates: each
// one's weekday, and the days between each and the next.
func dateFacts(prompt string) string {
	dates, _ := splitDates(prompt)
	var b strings.Builder
	for i, d := range dates {
		fmt.Fprintf(&b, "\n%s is a %s.", d.Format(time.DateOnly), d.Weekday())
		if i > 0 {
			prev := dates[i-1]
			fmt.Fprintf(&b, " From %s to %s is %d day(s).", prev.Format(time.DateOnly), d.Format(time.DateOnly), int(d.Sub(prev).Hours()/24))
		}
	}
	return b.String()
}
