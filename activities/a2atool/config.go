package a2atool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"time"

	"github.com/tetherdev/tether/signals"
)

// Config is the remote A2A agents a worker offers as tools, resolved from
// its config file and environment. It holds their tokens, which are
// secrets: it is never logged.
type Config struct {
	Agents map[string]Agent
}

// Agent is one configured remote agent.
type Agent struct {
	Name string
	// URL is where the agent lives: its card is at
	// URL/.well-known/agent-card.json (A2A's discovery) unless Card names
	// the card itself. Calls go to the JSON-RPC endpoint the card names.
	URL  string
	Card string
	// Token, when set, is sent as "Authorization: Bearer TOKEN" on every
	// JSON-RPC call (not on the card's fetch: cards are public).
	Token string
	// Timeout bounds how long one call waits for the remote task to
	// settle; past it the model reads that the task still works, with its
	// ID to check on it later.
	Timeout time.Duration
}

// DefaultTimeout is an Agent's Timeout when the file gives none.
const DefaultTimeout = 10 * time.Minute

// MaxTimeout bounds an Agent's Timeout; a call is also bounded by the
// worker's --tool-timeout.
const MaxTimeout = 24 * time.Hour

type file struct {
	Agents map[string]fileAgent `json:"agents"`
}

type fileAgent struct {
	URL  string `json:"url"`
	Card string `json:"card"`
	// TokenEnv names the variable of the worker's environment that holds
	// the bearer token; a token never comes from the file.
	TokenEnv string `json:"token_env"`
	Timeout  string `json:"timeout"`
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
// line per agent, each saying what to change.
func Parse(data []byte, env func(string) string) (Config, error) {
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Config{}, fmt.Errorf("not an A2A config file (%v): want {\"agents\": {\"name\": {\"url\": \"http://host:port/\"}}}", err)
	}
	c := Config{Agents: map[string]Agent{}}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(f.Agents)) {
		a, err := f.Agents[name].resolve(name, env)
		if err != nil {
			errs = append(errs, fmt.Errorf("agent %q: %w", name, err))
			continue
		}
		c.Agents[name] = a
	}
	return c, errors.Join(errs...)
}

// Names are the configured agents' names, sorted.
func (c Config) Names() []string { return slices.Sorted(maps.Keys(c.Agents)) }

// Grants are the tool entries that enable each agent, "a2a:<name>",
// sorted: a worker offers them to agents beside its own tools.
func (c Config) Grants() []string {
	var out []string
	for _, name := range c.Names() {
		out = append(out, signals.A2APrefix+name)
	}
	return out
}

func (f fileAgent) resolve(name string, env func(string) string) (Agent, error) {
	a := Agent{Name: name, URL: f.URL, Card: f.Card, Timeout: DefaultTimeout}
	if !signals.ValidA2AName(name) {
		return a, fmt.Errorf("a remote agent's name is 1 to %d of [a-zA-Z0-9_-] without \"__\"", signals.MaxA2AName)
	}
	if f.URL == "" {
		return a, errors.New("url is required: where the agent's card is (URL/.well-known/agent-card.json)")
	}
	if err := checkURL("url", f.URL); err != nil {
		return a, err
	}
	if f.Card != "" {
		if err := checkURL("card", f.Card); err != nil {
			return a, err
		}
	}
	if f.TokenEnv != "" {
		if a.Token = env(f.TokenEnv); a.Token == "" {
			return a, fmt.Errorf("token_env takes the token from %s, which is not set", f.TokenEnv)
		}
	}
	if f.Timeout != "" {
		d, err := time.ParseDuration(f.Timeout)
		if err != nil || d < time.Second || d > MaxTimeout {
			return a, fmt.Errorf("timeout %q: want a duration from 1s to %s, such as \"10m\"", f.Timeout, MaxTimeout)
		}
		a.Timeout = d
	}
	return a, nil
}

func checkURL(field, raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("%s %q: %v", field, raw, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return fmt.Errorf("%s %q: want an http:// or https:// URL", field, raw)
	case u.User != nil:
		return fmt.Errorf("%s: a URL with a user or password is refused; give the token with token_env", field)
	}
	return nil
}
