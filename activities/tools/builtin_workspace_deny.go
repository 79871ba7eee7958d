package tools

import (
	"fmt"
	"path/filepath"
	"strings"
)

// DefaultDeny returns the name patterns the file tools withhold unless
// WorkspaceOptions.Deny says otherwise: dotfiles and dot-directories (.env,
// .git, .ssh, .netrc, ...), private keys and certificates. A workspace is
// often a checkout, and these are where a checkout keeps its secrets.
func DefaultDeny() []string {
	return []string{".*", "*.pem", "*.key", "id_rsa*", ".env*"}
}

// denyList matches path elements against name patterns, case-insensitively:
// on a case-insensitive file system ".ENV" opens ".env".
type denyList struct {
	patterns []string // lower case, valid filepath.Match patterns
}

// newDenyList validates patterns: each is a filepath.Match pattern for one
// name, never a path, since it applies to every element of a path.
func newDenyList(patterns []string) (denyList, error) {
	d := denyList{patterns: make([]string, 0, len(patterns))}
	for _, p := range patterns {
		if p == "" || strings.ContainsAny(p, `/\`) {
			return denyList{}, fmt.Errorf("deny pattern %q: want a file name pattern such as *.pem, not a path", p)
		}
		if _, err := filepath.Match(p, ""); err != nil {
			return denyList{}, fmt.Errorf("deny pattern %q: %w", p, err)
		}
		d.patterns = append(d.patterns, strings.ToLower(p))
	}
	return d, nil
}

// match returns the pattern that denies a path relative to the root, if
// any: a denied directory withholds everything under it.
func (d denyList) match(rel string) (string, bool) {
	for _, name := range strings.Split(filepath.ToSlash(rel), "/") {
		if name == "" || name == "." {
			continue // the root itself; a local path has no ".."
		}
		if p, ok := d.matchName(name); ok {
			return p, true
		}
	}
	return "", false
}

// matchName returns the pattern that denies one name, if any.
func (d denyList) matchName(name string) (string, bool) {
	lower := strings.ToLower(name)
	for _, p := range d.patterns {
		if ok, _ := filepath.Match(p, lower); ok {
			return p, true
		}
	}
	return "", false
}

// check refuses a denied path with an error the model can read. It says the
// same whether or not the path exists.
func (d denyList) check(p, rel string) error {
	if pattern, ok := d.match(rel); ok {
		return modelErrorf("path %q is withheld: the workspace denies names matching %q", p, pattern)
	}
	return nil
}
