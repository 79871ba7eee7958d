package configfx

import (
	"bytes"
	"errors"
	"flag"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func noEnv(string) string { return "" }

// worker -h groups every flag, says each default once and names the
// variable a default comes from.
func TestHelpGroupsEveryFlagWithItsDefaultOnceAndItsVariable(t *testing.T) {
	var out bytes.Buffer
	_, err := Load([]string{"-h"}, noEnv, &out)
	require.True(t, errors.Is(err, flag.ErrHelp))
	help := out.String()
	require.NotContains(t, help, "\nother:", "a flag without a group")
	var last int
	for _, g := range helpGroups {
		at := strings.Index(help, "\n"+g.title+":\n")
		require.Greater(t, at, last, "group %q in order", g.title)
		last = at
	}
	fs, _ := flags(&Config{}, noEnv)
	fs.VisitAll(func(f *flag.Flag) {
		n := 0
		for _, line := range strings.Split(help, "\n") {
			if name, _, _ := strings.Cut(strings.TrimLeft(line, " -"), " "); name == f.Name && strings.HasPrefix(line, "  -") {
				n++
			}
		}
		require.Equal(t, 1, n, f.Name)
	})
	for _, line := range strings.Split(help, "\n") {
		require.LessOrEqual(t, strings.Count(line, "(default")+strings.Count(line, "[default"), 1, line)
	}
	require.Regexp(t, regexp.MustCompile(`--openai-model string\n .*\[default gpt-4o-mini; \$OPENAI_MODEL\]\n`), help)
	require.Regexp(t, regexp.MustCompile(`--otlp-endpoint string\n .*\[\$OTEL_EXPORTER_OTLP_ENDPOINT\]\n`), help)
	for _, v := range []string{"$OPENAI_API_KEY", "$ANTHROPIC_API_KEY", "$TETHER_CONSOLE_TOKEN", "$TETHER_CODEC_KEYS", "$TEMPORAL_API_KEY"} {
		require.Contains(t, help, v)
	}
}

func TestHelpPlacesEachFlagInOneGroup(t *testing.T) {
	fs, _ := flags(&Config{}, noEnv)
	seen := map[string]string{}
	for _, g := range helpGroups {
		for _, name := range g.flags {
			require.NotNil(t, fs.Lookup(name), "group %q names no flag %q", g.title, name)
			require.Empty(t, seen[name], "%q is in %q and %q", name, seen[name], g.title)
			seen[name] = g.title
		}
	}
}

func TestDemoPromptMustNotBeEmptyNorGoWithoutDemo(t *testing.T) {
	_, err := Load([]string{"--demo", "--prompt", " "}, noEnv, &bytes.Buffer{})
	require.EqualError(t, err, "--prompt must not be empty with --demo: leave it out for the default prompt")
	_, err = Load([]string{"--prompt", "hi"}, noEnv, &bytes.Buffer{})
	require.EqualError(t, err, "--prompt is the demo agent's prompt: add --demo, or send agents messages with starter")
	c, err := Load([]string{"--demo", "--prompt", "hi"}, noEnv, &bytes.Buffer{})
	require.NoError(t, err)
	require.Equal(t, "hi", c.Demo)
}
