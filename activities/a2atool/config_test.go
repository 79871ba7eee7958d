package a2atool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAConfigFileNamesRemoteAgentsWithTheirURLTokenAndTimeout(t *testing.T) {
	env := map[string]string{"HELPER_TOKEN": "s3cret"}
	c, err := Parse([]byte(`{"agents":{
		"helper":{"url":"http://127.0.0.1:8290/","token_env":"HELPER_TOKEN","timeout":"90s"},
		"other":{"url":"https://agents.example/a","card":"https://agents.example/cards/a.json"}}}`),
		func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Equal(t, []string{"helper", "other"}, c.Names())
	require.Equal(t, []string{"a2a:helper", "a2a:other"}, c.Grants())
	require.Equal(t, Agent{Name: "helper", URL: "http://127.0.0.1:8290/", Token: "s3cret", Timeout: 90 * time.Second}, c.Agents["helper"])
	require.Equal(t, DefaultTimeout, c.Agents["other"].Timeout)
	require.Equal(t, "https://agents.example/cards/a.json", NewRemote(c.Agents["other"], nil).cardURL())
	require.Equal(t, "http://127.0.0.1:8290/.well-known/agent-card.json", NewRemote(c.Agents["helper"], nil).cardURL())
}

func TestABadConfigFileIsRefusedNamingEveryBadAgent(t *testing.T) {
	for data, want := range map[string]string{
		`[]`:                                     "not an A2A config file",
		`{"agents":{"a":{"url":"x","extra":1}}}`: "not an A2A config file",
		`{"agents":{"a__b":{"url":"http://h/"}}}`:                 `agent "a__b": a remote agent's name is 1 to 32`,
		`{"agents":{"a":{}}}`:                                     `agent "a": url is required`,
		`{"agents":{"a":{"url":"ftp://h/"}}}`:                     `agent "a": url "ftp://h/": want an http:// or https:// URL`,
		`{"agents":{"a":{"url":"http://u:p@h/"}}}`:                `agent "a": url: a URL with a user or password is refused`,
		`{"agents":{"a":{"url":"http://h/","token_env":"NOPE"}}}`: `agent "a": token_env takes the token from NOPE, which is not set`,
		`{"agents":{"a":{"url":"http://h/","timeout":"0s"}}}`:     `agent "a": timeout "0s": want a duration from 1s to 24h0m0s`,
		`{"agents":{"a":{"url":"http://h/","timeout":"soon"}}}`:   `agent "a": timeout "soon"`,
	} {
		_, err := Parse([]byte(data), func(string) string { return "" })
		require.ErrorContains(t, err, want, data)
	}
	_, err := Parse([]byte(`{"agents":{"a":{},"b":{"url":"ftp://h"}}}`), func(string) string { return "" })
	require.ErrorContains(t, err, `agent "a"`)
	require.ErrorContains(t, err, `agent "b"`, "every bad agent is named, not only the first")
}

func TestDerivedIDsAreTheSameForOneCallAndDifferForAnother(t *testing.T) {
	require.Equal(t, messageID("a/1/1/c1"), messageID("a/1/1/c1"))
	require.NotEqual(t, messageID("a/1/1/c1"), messageID("a/1/1/c2"))
	require.NotEqual(t, messageID("a/1/1/c1"), contextID("a/1/1/c1"))
	require.Regexp(t, `^tether-[0-9a-f]{32}$`, messageID("a/1/1/c1"))
}
