package chaos

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// execution is one line of the tool journal: an execution of a journaled
// tool starting or finishing.
type execution struct {
	at   time.Time
	pid  int
	verb string // "start" or "done"
	tool string
	key  string
}

// readJournal reads dir/journal.log. A line that does not parse is an
// error: each is written whole, in one append.
func readJournal(dir string) ([]execution, error) {
	b, err := os.ReadFile(dir + "/journal.log")
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []execution
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 5 {
			return nil, fmt.Errorf("journal line %d is malformed: %q", i+1, line)
		}
		ns, err1 := strconv.ParseInt(f[0], 10, 64)
		pid, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("journal line %d is malformed: %q", i+1, line)
		}
		out = append(out, execution{at: time.Unix(0, ns), pid: pid, verb: f[2], tool: f[3], key: f[4]})
	}
	return out, nil
}

// byKey groups the journal by idempotency key.
func byKey(j []execution) map[string][]execution {
	out := map[string][]execution{}
	for _, e := range j {
		out[e.key] = append(out[e.key], e)
	}
	return out
}
