package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tetherdev/tether/signals"
)

// Config is the MCP servers a worker connects to, resolved from its config
// file and environment. It holds the header values and environment of the
// servers, which may be secrets: it is never logged.
type Config struct {
	Servers map[string]Server
}

// Server is one configured MCP server: a command speaking stdio, or a
// streamable-HTTP URL.
type Server struct {
	Name string
	// Command and Args run a stdio server in Dir (empty: the worker's
	// directory) with exactly Env as its environment.
	Command string
	Args    []string
	Env     []string
	Dir     string
	// URL is a streamable-HTTP server's endpoint; every request carries
	// Headers.
	URL     string
	Headers http.Header
}

// InheritedEnv lists the variables of the worker's environment a stdio
// server gets; nothing else of it (API keys above all) reaches the server
// unless the config file names it in env_from.
var InheritedEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "LANG", "LC_ALL", "TZ"}

// file is the config file's JSON.
type file struct {
	Servers map[string]fileServer `json:"servers"`
}

type fileServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	// EnvFrom sets a variable of the server from one of the worker's:
	// {"GITHUB_TOKEN": "TETHER_GITHUB_TOKEN"}.
	EnvFrom map[string]string `json:"env_from"`
	Dir     string            `json:"dir"`
	URL     string            `json:"url"`
	// HeadersEnv takes each header's value from a variable of the worker's
	// environment: {"Authorization": "SEARCH_AUTH"}. Values never come
	// from the file.
	HeadersEnv map[string]string `json:"headers_env"`
}

// Load reads the config file at path; env reads the worker's environment.
func Load(path string, env func(string) string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	return Parse(data, env)
}

// Parse reads a config file's content. Every problem is reported, one
// line per server, each saying what to change.
func Parse(data []byte, env func(string) string) (Config, error) {
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Config{}, fmt.Errorf("not a config file (%v): want {\"servers\": {\"name\": {\"command\": ...} or {\"url\": ...}}}", err)
	}
	c := Config{Servers: map[string]Server{}}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(f.Servers)) {
		s, err := f.Servers[name].resolve(name, env)
		if err != nil {
			errs = append(errs, fmt.Errorf("server %q: %w", name, err))
			continue
		}
		c.Servers[name] = s
	}
	return c, errors.Join(errs...)
}

// Names are the configured servers' names, sorted.
func (c Config) Names() []string { return slices.Sorted(maps.Keys(c.Servers)) }

// Grants are the tool entries that enable each server's tools,
// "mcp:<server>", sorted: a worker offers them to agents beside its own
// tools (workflows.Config.Tools).
func (c Config) Grants() []string {
	var out []string
	for _, name := range c.Names() {
		out = append(out, signals.MCPGrant{Server: name}.String())
	}
	return out
}

func (f fileServer) resolve(name string, env func(string) string) (Server, error) {
	s := Server{Name: name, Command: f.Command, Args: f.Args, Dir: f.Dir, URL: f.URL}
	switch {
	case !signals.ValidMCPServerName(name):
		return s, fmt.Errorf("a server name is 1 to %d of [a-zA-Z0-9_-] without \"__\"", signals.MaxMCPServerName)
	case (f.Command == "") == (f.URL == ""):
		return s, errors.New("give exactly one of command (a stdio server) and url (a streamable-HTTP server)")
	case f.URL != "":
		return s, f.resolveHTTP(&s, env)
	}
	return s, f.resolveStdio(&s, env)
}

func (f fileServer) resolveHTTP(s *Server, env func(string) string) error {
	if f.Args != nil || f.Env != nil || f.EnvFrom != nil || f.Dir != "" {
		return errors.New("args, env, env_from and dir are for command servers, not url ones")
	}
	u, err := url.Parse(f.URL)
	switch { // the URL is not echoed: it may hold a secret
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return errors.New("url is not an absolute http(s) URL")
	case u.User != nil:
		return errors.New("url holds credentials: pass them in a header with headers_env, whose values come from the environment")
	}
	s.Headers = http.Header{}
	for _, h := range slices.Sorted(maps.Keys(f.HeadersEnv)) {
		if h == "" || strings.ContainsAny(h, " :\r\n\t") {
			return fmt.Errorf("headers_env: %q is not a header name", h)
		}
		v, err := fromEnv(env, "headers_env", h, f.HeadersEnv[h])
		if err != nil {
			return err
		}
		s.Headers.Set(h, v)
	}
	return nil
}

func (f fileServer) resolveStdio(s *Server, env func(string) string) error {
	if f.HeadersEnv != nil {
		return errors.New("headers_env is for url servers, not command ones")
	}
	if err := findCommand(f.Command, f.Dir); err != nil {
		return err
	}
	vars := map[string]string{}
	for _, k := range InheritedEnv {
		if v := env(k); v != "" {
			vars[k] = v
		}
	}
	maps.Copy(vars, f.Env)
	for k, from := range f.EnvFrom {
		v, err := fromEnv(env, "env_from", k, from)
		if err != nil {
			return err
		}
		vars[k] = v
	}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		s.Env = append(s.Env, k+"="+vars[k])
	}
	return nil
}

// fromEnv reads the variable a headers_env or env_from entry names.
func fromEnv(env func(string) string, field, key, variable string) (string, error) {
	if variable == "" {
		return "", fmt.Errorf("%s %q names no environment variable", field, key)
	}
	v := env(variable)
	if v == "" {
		return "", fmt.Errorf("%s %q takes its value from %s, which is not set: export it before starting the worker", field, key, variable)
	}
	return v, nil
}

// findCommand checks that command can be started from dir.
func findCommand(command, dir string) error {
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("dir %q is not a directory", dir)
		}
	}
	if !strings.ContainsRune(command, filepath.Separator) {
		if _, err := exec.LookPath(command); err != nil {
			return fmt.Errorf("command %q is not on PATH", command)
		}
		return nil
	}
	path := command
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if st, err := os.Stat(path); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("command %q is not an executable file", command)
	}
	return nil
}
