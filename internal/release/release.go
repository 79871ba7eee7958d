// Package release finds Tether's last release in the repository's history,
// for the tests that hold HEAD to it: the release replay (its recorded
// histories replayed by HEAD's workflow) and the rolling deploy (its
// worker built and run beside HEAD's).
//
// The last release is the newest api/vX.Y.Z directory (the API baseline
// make check holds the public packages to, taken at the release commit),
// at its tag when the clone has it, else at the last commit that wrote
// that baseline: a clone without tags finds the same commit. It needs git
// and the history (not a shallow clone), and says so when either is
// missing. It never writes to the repository.
package release

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Release is a version and the commit it was made at.
type Release struct {
	Version string // v0.1.0
	Commit  string // 40 hex digits
}

// Last finds the last release of the repository whose root is root.
func Last(root string) (Release, error) {
	dirs, err := filepath.Glob(filepath.Join(root, "api", "v*"))
	if err != nil {
		return Release{}, err
	}
	var versions []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && semver(filepath.Base(d)) != nil {
			versions = append(versions, filepath.Base(d))
		}
	}
	if len(versions) == 0 {
		return Release{}, fmt.Errorf("no release: no api/vX.Y.Z baseline under %s", root)
	}
	slices.SortFunc(versions, func(a, b string) int { return slices.Compare(semver(a), semver(b)) })
	v := versions[len(versions)-1]
	if c, err := Git(root, "rev-parse", "-q", "--verify", "refs/tags/"+v+"^{commit}"); err == nil && c != "" {
		return Release{Version: v, Commit: c}, nil
	}
	c, err := Git(root, "log", "-1", "--format=%H", "--", "api/"+v)
	switch {
	case err != nil:
		return Release{}, fmt.Errorf("release %s: %w", v, err)
	case c == "":
		return Release{}, fmt.Errorf("release %s: no commit wrote api/%s (a shallow clone? fetch the history)", v, v)
	}
	return Release{Version: v, Commit: c}, nil
}

// semver reads vX.Y.Z, nil for anything else.
func semver(v string) []int {
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if !strings.HasPrefix(v, "v") || len(parts) != 3 {
		return nil
	}
	out := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil
		}
		out[i] = n
	}
	return out
}

// Git runs git in dir and returns its trimmed output; an error carries
// git's own message.
func Git(dir string, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// Files writes the files under path at commit into dir (the same relative
// paths) and returns what it wrote, sorted.
func Files(root, commit, path, dir string) ([]string, error) {
	list, err := Git(root, "ls-tree", "-r", "--name-only", commit, "--", path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range strings.Fields(list) {
		b, err := exec.Command("git", "-C", root, "show", commit+":"+name).Output()
		if err != nil {
			return nil, fmt.Errorf("git show %s:%s: %w", commit, name, err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return nil, err
		}
		out = append(out, dst)
	}
	slices.Sort(out)
	return out, nil
}
