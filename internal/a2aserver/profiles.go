package a2aserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tetherdev/tether/signals"
)

// MaxProfilesFileBytes bounds a profiles file: far more than any set of
// cards needs, little enough to read whole.
const MaxProfilesFileBytes = 1 << 20

// profileFile is a profiles file: {"agents": [ ... ]}, each entry one
// card and the options a new context's agent starts with.
type profileFile struct {
	Agents []profileEntry `json:"agents"`
}

type profileEntry struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Provider    string   `json:"provider"`
	Model       string   `json:"model"`
	System      string   `json:"system"`
	Tools       []string `json:"tools"`
	Approve     []string `json:"approve"`
}

// DefaultProfile is the one profile served without a profiles file:
// "tether", with current_time and calculate.
func DefaultProfile() Profile {
	return Profile{Name: "tether", Options: signals.AgentOptions{Tools: []string{"current_time", "calculate"}}}
}

// LoadProfiles reads a profiles file (see ParseProfiles).
func LoadProfiles(path string) ([]Profile, error) { return LoadProfilesFor(path, nil, nil) }

// LoadProfilesFor reads a profiles file against the tools and providers a
// worker offers (nil: not checked).
func LoadProfilesFor(path string, known, providers []string) ([]Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("profiles %s: %w", path, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxProfilesFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("profiles %s: %w", path, err)
	}
	ps, err := ParseProfiles(raw, known, providers)
	if err != nil {
		return nil, fmt.Errorf("profiles %s: %w", path, err)
	}
	return ps, nil
}

// ParseProfiles reads profiles from JSON:
//
//	{"agents": [{"name": "assistant", "description": "...", "provider": "openai",
//	  "model": "gpt-5-mini", "system": "...", "tools": ["calculate"], "approve": ["calculate"]}]}
//
// Every name is set, unique and fits a URL path segment; fields not listed
// are refused, so a misspelt one is not silently ignored; each profile's
// options pass signals.ValidateOptions (with known tools and providers
// when those are not nil). "tools" left out is the worker's default set,
// [] none; "model" may be "provider/model". The first profile is also
// served at the root.
func ParseProfiles(raw []byte, known, providers []string) ([]Profile, error) {
	if len(raw) > MaxProfilesFileBytes {
		return nil, fmt.Errorf("over %d bytes", MaxProfilesFileBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f profileFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf(`not a profiles file ({"agents": [{"name": ..., "description": ..., "model": ..., "tools": [...]}]}): %w`, err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	if len(f.Agents) == 0 {
		return nil, errors.New(`no profiles: "agents" lists none`)
	}
	var out []Profile
	seen := map[string]int{}
	for i, e := range f.Agents {
		where := fmt.Sprintf("agents[%d]", i)
		if e.Name != "" {
			where += fmt.Sprintf(" (%q)", e.Name)
		}
		if err := checkProfileName(e.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if j, dup := seen[e.Name]; dup {
			return nil, fmt.Errorf("%s: the name is agents[%d]'s too; each card needs its own", where, j)
		}
		seen[e.Name] = i
		o := signals.AgentOptions{Provider: e.Provider, Model: e.Model, SystemPrompt: e.System, Tools: e.Tools}
		if p, m, ok := strings.Cut(e.Model, "/"); ok && e.Provider == "" {
			o.Provider, o.Model = p, m
		}
		if len(e.Approve) > 0 {
			o.Approval = &signals.ApprovalPolicy{Tools: e.Approve}
		}
		if err := signals.ValidateOptions(o, known, providers); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		out = append(out, Profile{Name: e.Name, Description: e.Description, Options: o})
	}
	return out, nil
}

// checkProfileName holds a name to what its card's path can carry.
func checkProfileName(name string) error {
	if name == "" {
		return errors.New(`"name" is required`)
	}
	if len(name) > signals.MaxNameBytes {
		return fmt.Errorf("the name is %d bytes: at most %d", len(name), signals.MaxNameBytes)
	}
	if name == "." || name == ".." {
		return fmt.Errorf("the name %q is no path segment", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("the name %q holds %q: a profile name (its card is at /agents/NAME/) is letters, digits, '.', '_' and '-'", name, r)
		}
	}
	return nil
}
