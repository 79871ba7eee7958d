package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// Help and usage errors are answered before anything is dialed: with no
// server at the address, -h exits 0 with the command's usage and a flag
// typo is the usage error, not "no Temporal server".
func TestStarterCommandHelpAndUsageErrorsNeedNoServer(t *testing.T) {
	addr := closedAddress(t)
	for name := range commands {
		for _, help := range []string{"-h", "--help"} {
			code, out, errOut := runStarter("--address", addr, name, help)
			require.Equal(t, 0, code, "%s %s: %s", name, help, errOut)
			require.Empty(t, errOut, name)
			require.Contains(t, out, "\n  "+name+" ", name)
			require.Contains(t, out, "connection flags", name)
		}
		code, out, errOut := runStarter("--address", addr, name, "--nosuchflag", "a1")
		require.Equal(t, 2, code, name)
		require.Empty(t, out, name)
		require.Equal(t, "starter: "+name+": flag provided but not defined: -nosuchflag (run starter without arguments for usage)\n", errOut, name)
	}
}

func TestStarterMessageCommandHelpShowsTheSharedNotesAndMessageSources(t *testing.T) {
	code, out, _ := runStarter("steer", "-h")
	require.Equal(t, 0, code)
	for _, want := range []string{"  followup ", "  steer ", "  inject ", "--message-id names the message", "--file PATH", "--stdin"} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, "  ls ")
}

// Arguments the starter refuses before dialing: each is one line, exit 2.
func TestStarterRefusesBadArgumentsBeforeDialing(t *testing.T) {
	const deploymentUsage = "deployment takes nothing (list the versions), current BUILD (make BUILD current), ramp BUILD PERCENT or ramp --clear (send PERCENT of new runs to BUILD, or stop), or rollback (make the version current before the current one current again)"
	addr := closedAddress(t)
	cases := map[string]struct {
		args []string
		want string
	}{
		"deny without a reason":    {[]string{"deny", "a1", "c1"}, "deny needs --reason R: the model reads why its call was refused"},
		"deny with a blank reason": {[]string{"deny", "a1", "c1", "--reason", "  "}, "deny needs --reason R: the model reads why its call was refused"},
		"an ID with a space":       {[]string{"start", "--id", "my agent", "hi"}, `start: --id "my agent" holds ' ': an agent ID is ` + AgentIDChars + " only"},
		"an ID with a slash":       {[]string{"start", "--id", "a/b", "hi"}, `start: --id "a/b" holds '/': an agent ID is ` + AgentIDChars + " only"},
		"an ID with a quote":       {[]string{"start", "--id", "a'b", "hi"}, `start: --id "a'b" holds '\'': an agent ID is ` + AgentIDChars + " only"},
		"an ID too long":           {[]string{"start", "--id", strings.Repeat("a", 129), "hi"}, `start: --id "` + strings.Repeat("a", 129) + `" is 129 bytes: at most 128`},
		"ls waiting for nothing":   {[]string{"ls", "--waiting", "foo"}, `ls: --waiting "foo": want approval, answer, wait`},
		"ls an unknown status":     {[]string{"ls", "--status", "sleeping"}, `ls: --status "sleeping": want idle or running`},
		"a message twice":          {[]string{"followup", "--stdin", "a1", "hi"}, "followup: give the message as an argument or with --file/--stdin, not both"},
		"file and stdin":           {[]string{"start", "--stdin", "--file", "x"}, "start: --file and --stdin exclude each other"},
		"a file that is not there": {[]string{"start", "--file", "/nonexistent/m.txt"}, "start: --file: open /nonexistent/m.txt: no such file or directory"},
		"no message":               {[]string{"followup", "a1"}, "followup needs ID MESSAGE"},
		"upgrade nobody":           {[]string{"upgrade"}, "upgrade takes an agent ID or --all"},
		"upgrade one and all":      {[]string{"upgrade", "--all", "a1"}, "upgrade takes an agent ID or --all"},
		"upgrade at no pace":       {[]string{"upgrade", "--all", "--parallel", "0"}, "upgrade --pace must not be negative and --parallel must be at least 1"},
		"deployment what":          {[]string{"deployment", "newest"}, deploymentUsage},
		"deployment current what":  {[]string{"deployment", "current"}, deploymentUsage},
		"rollback to what":         {[]string{"deployment", "rollback", "B"}, deploymentUsage},
		"clear without ramp":       {[]string{"deployment", "--clear"}, "deployment --clear goes with ramp: deployment ramp --clear"},
		"clear a build":            {[]string{"deployment", "ramp", "--clear", "B"}, "deployment ramp --clear takes no BUILD or PERCENT"},
		"ramp no percent":          {[]string{"deployment", "ramp", "B"}, "deployment ramp takes BUILD PERCENT (0 to 100: the share of new runs that go to BUILD), or --clear"},
		"ramp a word":              {[]string{"deployment", "ramp", "B", "half"}, `deployment ramp: PERCENT "half" is not a number (want 0 to 100)`},
		"ramp not a number":        {[]string{"deployment", "ramp", "B", "NaN"}, `deployment ramp: PERCENT "NaN" is not a number (want 0 to 100)`},
		"ramp over 100":            {[]string{"deployment", "ramp", "B", "101"}, "deployment ramp: PERCENT 101 is out of range (want 0 to 100)"},
		"ramp below 0":             {[]string{"deployment", "ramp", "B", "-5%"}, "deployment ramp: PERCENT -5% is out of range (want 0 to 100)"},
		"ramp too much":            {[]string{"deployment", "ramp", "B", "5", "6"}, `deployment takes current|ramp|rollback BUILD PERCENT, not also ["6"]`},
		"an extra argument":        {[]string{"status", "a1", "a2"}, `status takes ID, not also ["a2"]`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runStarter(append([]string{"--address", addr}, tc.args...)...)
			require.Equal(t, 2, code, errOut)
			require.Empty(t, out)
			require.Equal(t, "starter: "+tc.want+" (run starter without arguments for usage)\n", errOut)
		})
	}
}

func TestStarterRefusesAMessageOverTheLimitFromStandardInput(t *testing.T) {
	var out, errOut bytes.Buffer
	in := strings.NewReader(strings.Repeat("x", 256<<10+1))
	code := Starter{Out: &out, Err: &errOut, In: in, Dial: client.DialContext}.
		Run(context.Background(), []string{"--address", closedAddress(t), "followup", "a1", "-"})
	require.Equal(t, 2, code)
	require.Equal(t, "starter: followup: the message in standard input is over the limit of 262144 bytes (256 KiB)"+
		" (run starter without arguments for usage)\n", errOut.String())
}

func TestAgentIDsOfLettersDigitsAndPunctuationAreAccepted(t *testing.T) {
	for _, id := range []string{"a1", "demo-20261201-101010", "team.lead_2", "job:42", "p.child-7"} {
		require.NoError(t, CheckAgentID(id), id)
	}
}
