package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// walkthroughMarker precedes the README's block of scripted-model commands.
const walkthroughMarker = "<!-- scripted-walkthrough:"

// step is one README command: the starter's arguments and the texts its
// comment says it prints (after →, each in backticks).
type step struct {
	line string
	args []string
	want []string
}

// The README's scripted walkthrough, exactly as written, against the real
// worker --dev and starter binaries: every command exits 0 and prints what
// its comment says.
func TestTheREADMEsScriptedWalkthroughRunsAsWritten(t *testing.T) {
	steps := readmeWalkthrough(t, "../../README.md")
	dir := t.TempDir()
	starter, worker := filepath.Join(dir, "starter"), filepath.Join(dir, "worker")
	for bin, pkg := range map[string]string{starter: ".", worker: "../worker"} {
		out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
		require.NoError(t, err, string(out))
	}
	port := freePort(t)
	var wlog bytes.Buffer
	w := exec.Command(worker, "--dev", "--data-dir", filepath.Join(dir, "data"), "--port", strconv.Itoa(port), "--ui-port", "0", "--console-addr", "")
	w.Stdout, w.Stderr = &wlog, &wlog
	require.NoError(t, w.Start())
	t.Cleanup(func() { _ = w.Process.Signal(os.Interrupt); _ = w.Wait() })
	env := append(os.Environ(), "TEMPORAL_ADDRESS=127.0.0.1:"+strconv.Itoa(port))
	require.Eventually(t, func() bool {
		_, err := runStarter(starter, env, 10*time.Second, "ls")
		return err == nil
	}, time.Minute, 200*time.Millisecond, "worker --dev never answered:\n%s", &wlog)
	for _, s := range steps {
		out, err := runStarter(starter, env, time.Minute, s.args...)
		require.NoError(t, err, "%s\n%s", s.line, out)
		for _, want := range s.want {
			require.Contains(t, out, want, s.line)
		}
	}
}

// runStarter runs the starter binary with args and returns what it printed.
func runStarter(bin string, env []string, timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

var backticked = regexp.MustCompile("`([^`]+)`")

// readmeWalkthrough parses the shell block after the marker: each line is
// `go run ./cmd/starter ARGS`, with an optional comment.
func readmeWalkthrough(t *testing.T, path string) []step {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(raw), walkthroughMarker)
	require.True(t, ok, "README has no scripted walkthrough")
	_, after, ok = strings.Cut(after, "```sh\n")
	require.True(t, ok)
	block, _, ok := strings.Cut(after, "```")
	require.True(t, ok)
	var steps []step
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		words, comment := shellWords(t, line)
		require.Greater(t, len(words), 3, line)
		require.Equal(t, []string{"go", "run", "./cmd/starter"}, words[:3], line)
		s := step{line: line, args: words[3:]}
		if _, expect, ok := strings.Cut(comment, "→"); ok {
			for _, m := range backticked.FindAllStringSubmatch(expect, -1) {
				s.want = append(s.want, m[1])
			}
		}
		steps = append(steps, s)
	}
	require.NotEmpty(t, steps)
	return steps
}

// shellWords splits line as sh would (single and double quotes, backslash
// escapes) and returns the words and the comment after an unquoted #.
func shellWords(t *testing.T, line string) ([]string, string) {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			require.GreaterOrEqual(t, j, 0, "unclosed quote: %s", line)
			cur.WriteString(line[i+1 : i+1+j])
			i, inWord = i+1+j, true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(line[i])
			}
			require.Less(t, i, len(line), "unclosed quote: %s", line)
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		case c == '#' && !inWord:
			return words, line[i+1:]
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, ""
}
