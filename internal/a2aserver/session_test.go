package a2aserver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sessionStep is one curl line of testdata/session.sh and the texts its
// "# →" comment says the answer holds (each in backticks).
type sessionStep struct {
	line string
	want []string
}

// readSession splits the session into its setup (variable assignments,
// the server's address replaced by base) and its curl steps.
func readSession(t *testing.T, path, base string) (setup string, steps []sessionStep) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	quoted := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		switch {
		case strings.HasPrefix(line, "A2A="):
			setup += "A2A=" + base + "\n"
		case strings.HasPrefix(line, "curl "):
			steps = append(steps, sessionStep{line: line})
		case strings.HasPrefix(line, "# →"):
			require.NotEmpty(t, steps, "a comment before any curl")
			for _, m := range quoted.FindAllStringSubmatch(line, -1) {
				steps[len(steps)-1].want = append(steps[len(steps)-1].want, m[1])
			}
		default:
			setup += line + "\n"
		}
	}
	return setup, steps
}

// The copy-paste session proposed for the README ("Agents over A2A"), as
// written but for the server's address, with curl against a live server
// serving testdata/profiles.json: every answer holds what its comment says.
func TestTheCurlSessionRunsAsWritten(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	profiles, err := LoadProfiles(filepath.Join("testdata", "profiles.json"))
	require.NoError(t, err)
	f := newFixtureWith(t, profiles)
	setup, steps := readSession(t, filepath.Join("testdata", "session.sh"), f.url)
	require.GreaterOrEqual(t, len(steps), 10)
	for _, s := range steps {
		require.NotEmpty(t, s.want, "%s: says nothing of its answer", s.line)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		cmd := exec.CommandContext(ctx, "bash", "-c", setup+s.line)
		cmd.Env = append(os.Environ(), "TETHER_A2A_TOKEN="+token)
		out, err := cmd.CombinedOutput()
		cancel()
		require.NoError(t, err, "%s\n%s", s.line, out)
		for _, w := range s.want {
			require.Contains(t, string(out), w, "%s\nanswered:\n%s", s.line, out)
		}
	}
}
