package mcp_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/mcp"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestAConfigFileResolvesServersFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	data := `{"servers":{
		"files":{"command":"` + serverBin + `","args":["-state","` + dir + `"],"env":{"MODE":"x"},"env_from":{"TOKEN":"FILES_TOKEN"},"dir":"` + dir + `"},
		"search":{"url":"https://search.example/mcp","headers_env":{"Authorization":"SEARCH_AUTH","X-Team":"TEAM"}}}}`
	c, err := mcp.Parse([]byte(data), env(map[string]string{
		"PATH": "/bin", "HOME": "/home/w", "OPENAI_API_KEY": "sk-x", "FILES_TOKEN": "t1", "SEARCH_AUTH": "Bearer s", "TEAM": "core",
	}))
	require.NoError(t, err)
	require.Equal(t, []string{"files", "search"}, c.Names())
	require.Equal(t, []string{"mcp:files", "mcp:search"}, c.Grants())
	require.Equal(t, mcp.Server{
		Name: "files", Command: serverBin, Args: []string{"-state", dir}, Dir: dir,
		Env: []string{"HOME=/home/w", "MODE=x", "PATH=/bin", "TOKEN=t1"},
	}, c.Servers["files"], "only the inherited variables and those named")
	require.Equal(t, mcp.Server{
		Name: "search", URL: "https://search.example/mcp",
		Headers: http.Header{"Authorization": {"Bearer s"}, "X-Team": {"core"}},
	}, c.Servers["search"])
}

func TestAnEmptyConfigFileConfiguresNoServers(t *testing.T) {
	c, err := mcp.Parse([]byte(`{"servers":{}}`), env(nil))
	require.NoError(t, err)
	require.Empty(t, c.Names())
	require.Empty(t, c.Grants())
}

func TestABadConfigFileSaysWhatToChange(t *testing.T) {
	exe := serverBin
	tests := []struct {
		name, data, want string
	}{
		{"not JSON", `{"servers":`, `not a config file (unexpected EOF): want {"servers": {"name": {"command": ...} or {"url": ...}}}`},
		{"unknown field", `{"servers":{"a":{"comand":"x"}}}`, `json: unknown field "comand"`},
		{"bad name", `{"servers":{"a__b":{"url":"http://x/mcp"}}}`, `server "a__b": a server name is 1 to 32 of [a-zA-Z0-9_-] without "__"`},
		{"neither", `{"servers":{"a":{}}}`, `server "a": give exactly one of command (a stdio server) and url (a streamable-HTTP server)`},
		{"both", `{"servers":{"a":{"command":"` + exe + `","url":"http://x/mcp"}}}`, `server "a": give exactly one of command`},
		{"relative URL", `{"servers":{"a":{"url":"/mcp"}}}`, `server "a": url is not an absolute http(s) URL`},
		{"other scheme", `{"servers":{"a":{"url":"ftp://x/mcp"}}}`, `server "a": url is not an absolute http(s) URL`},
		{"credentials in the URL", `{"servers":{"a":{"url":"https://u:hunter2@x/mcp"}}}`, `server "a": url holds credentials: pass them in a header with headers_env`},
		{"unset header variable", `{"servers":{"a":{"url":"http://x/mcp","headers_env":{"Authorization":"A_AUTH"}}}}`,
			`server "a": headers_env "Authorization" takes its value from A_AUTH, which is not set: export it before starting the worker`},
		{"unset env_from variable", `{"servers":{"a":{"command":"` + exe + `","env_from":{"T":"A_TOKEN"}}}}`,
			`server "a": env_from "T" takes its value from A_TOKEN, which is not set`},
		{"bad header name", `{"servers":{"a":{"url":"http://x/mcp","headers_env":{"X Y":"V"}}}}`, `headers_env: "X Y" is not a header name`},
		{"args on a URL", `{"servers":{"a":{"url":"http://x/mcp","args":["-v"]}}}`, `server "a": args, env, env_from and dir are for command servers`},
		{"headers on a command", `{"servers":{"a":{"command":"` + exe + `","headers_env":{"A":"B"}}}}`, `server "a": headers_env is for url servers`},
		{"missing command", `{"servers":{"a":{"command":"tether-no-such-mcp-server"}}}`, `server "a": command "tether-no-such-mcp-server" is not on PATH`},
		{"missing file", `{"servers":{"a":{"command":"/no/such/server"}}}`, `server "a": command "/no/such/server" is not an executable file`},
		{"missing dir", `{"servers":{"a":{"command":"` + exe + `","dir":"/no/such/dir"}}}`, `server "a": dir "/no/such/dir" is not a directory`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mcp.Parse([]byte(tt.data), env(map[string]string{"PATH": os.Getenv("PATH")}))
			require.ErrorContains(t, err, tt.want)
			require.NotContains(t, err.Error(), "hunter2")
		})
	}
}

func TestEveryBadServerIsReportedOnItsOwnLine(t *testing.T) {
	_, err := mcp.Parse([]byte(`{"servers":{"b":{},"a":{"url":"x"}}}`), env(nil))
	require.EqualError(t, err, "server \"a\": url is not an absolute http(s) URL\n"+
		"server \"b\": give exactly one of command (a stdio server) and url (a streamable-HTTP server)")
}

func TestLoadReadsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"servers":{"s":{"url":"http://127.0.0.1:1/mcp"}}}`), 0o600))
	c, err := mcp.Load(path, env(nil))
	require.NoError(t, err)
	require.Equal(t, []string{"s"}, c.Names())
	_, err = mcp.Load(filepath.Join(t.TempDir(), "none.json"), env(nil))
	require.ErrorIs(t, err, os.ErrNotExist)
}
