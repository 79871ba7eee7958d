package deps

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/tetherdev/tether"

// rules: for each package, the module packages it may depend on (directly
// or not), the outside prefixes it must never reach, and those it must not
// import itself (the SDK it uses may).
var rules = []struct {
	pkg       string
	module    []string // allowed packages of this module, besides itself
	never     []string
	notDirect []string
}{
	{"eventlog", nil, []string{"go.temporal.io", "go.uber.org", "net"}, nil},
	{"signals", []string{"eventlog"}, []string{"go.temporal.io", "go.uber.org", "net"}, nil},
	{"loop", []string{"eventlog", "signals"}, []string{"go.temporal.io", "go.uber.org", "net"}, nil},
	{"hook", []string{"eventlog", "signals", "loop"}, []string{"go.uber.org"}, []string{"net/http"}},
	{"workflows", []string{"eventlog", "signals", "loop", "hook"}, []string{"go.uber.org", "go.temporal.io/server"}, []string{"net/http"}},
	// agent reads a log from history through projection when no worker
	// answers, the one way history becomes a log, and forks with the loop's
	// pure fold of a prefix (loop.ForkSeed), so a fork's seed is what a run
	// would hold.
	{"agent", []string{"eventlog", "signals", "projection", "loop"}, []string{"go.uber.org", "go.temporal.io/server"}, nil},
	// telemetry observes the workflow and its activities; it reaches no
	// activity code, provider or exporter (telemetryfx picks those).
	{"telemetry", []string{"eventlog", "signals", "loop", "hook", "workflows"}, []string{"go.uber.org", "go.temporal.io/server"}, []string{"net/http"}},
	{"console", []string{"eventlog", "signals", "agent", "projection", "loop", "console/transcript", "internal/httpguard", "internal/forwarded", "internal/login"}, []string{"go.uber.org", "go.temporal.io/server"}, nil},
	// internal/a2aserver speaks A2A over Tether's client, as the console
	// does: no worker, no server, no composition.
	{"internal/a2aserver", []string{"eventlog", "signals", "agent", "projection", "loop"}, []string{"go.uber.org", "go.temporal.io/server"}, nil},
	{"internal/httpguard", nil, []string{"go.temporal.io", "go.uber.org"}, nil},
	{"internal/forwarded", nil, []string{"go.temporal.io", "go.uber.org"}, nil},
	{"internal/login", nil, []string{"go.temporal.io", "go.uber.org"}, nil},
	{"console/transcript", []string{"eventlog", "signals"}, []string{"go.temporal.io", "go.uber.org", "net/http"}, nil},
	{"internal/text", nil, []string{"go.temporal.io", "go.uber.org", "net"}, nil},
}

// anywhere are the module's leaf packages every package may use: they
// depend on no other package of the module and on no SDK (their own rules
// above say so), and do no I/O.
var anywhere = []string{"internal/text"}

func TestTheImportGraphKeepsTheHouseDirection(t *testing.T) {
	for _, r := range rules {
		t.Run(r.pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+"/"+r.pkg).CombinedOutput()
			require.NoError(t, err, string(out))
			direct, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, module+"/"+r.pkg).CombinedOutput()
			require.NoError(t, err, string(direct))
			for _, imp := range strings.Fields(string(direct)) {
				for _, f := range r.notDirect {
					require.NotEqual(t, f, imp, "%s must not import %s", r.pkg, f)
				}
			}
			allowed := map[string]bool{module + "/" + r.pkg: true}
			for _, m := range append(r.module, anywhere...) {
				allowed[module+"/"+m] = true
			}
			for _, dep := range strings.Fields(string(out)) {
				if strings.HasPrefix(dep, module+"/") {
					require.True(t, allowed[dep], "%s must not depend on %s", r.pkg, dep)
				}
				for _, f := range r.never {
					require.False(t, dep == f || strings.HasPrefix(dep, f+"/") || strings.HasPrefix(dep, f+"."),
						"%s must not depend on %s (via %s)", r.pkg, f, dep)
				}
			}
		})
	}
}

// Nothing under internal/ depends on fx/ or bench/: internal packages are
// the parts that the composition (fx/, cmd/) and the benchmark build on,
// never the other way, so a main that needs both lives under cmd/. Tests
// may (internal/cli's run a worker that workerfx builds).
func TestInternalPackagesDependOnNoCompositionOrBenchmark(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, module+"/internal/...").CombinedOutput()
	require.NoError(t, err, string(out))
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Contains(t, strings.Join(lines, "\n"), module+"/internal/cluster ", "the listing holds the internal packages")
	for _, line := range lines {
		fields := strings.Fields(line)
		for _, dep := range fields[1:] {
			for _, up := range []string{module + "/fx", module + "/bench"} {
				require.False(t, dep == up || strings.HasPrefix(dep, up+"/"), "%s must not depend on %s", fields[0], dep)
			}
		}
	}
}
