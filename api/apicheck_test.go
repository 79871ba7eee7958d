package api

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fixture is a module of two public packages (its root and p) and one that
// is not listed (q), at its first release.
var fixture = map[string]string{
	"go.mod":       "module example.com/fix\n\ngo 1.26\n",
	"fix.go":       "package fix\n\n// T is public.\ntype T struct{ A int }\n",
	"p/p.go":       "package p\n\n// F is public.\nfunc F(n int) string { return \"\" }\n",
	"q/q.go":       "package q\n\n// G is not public: q is not listed.\nfunc G() {}\n",
	"api/packages": "# public\n.\np\n",
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
}

// apicheck runs the script in dir and returns its output and whether it
// succeeded.
func apicheck(t *testing.T, dir string, args ...string) (string, bool) {
	t.Helper()
	script, err := filepath.Abs("apicheck")
	require.NoError(t, err)
	cmd := exec.Command(script, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, string(out))
	}
	return string(out), err == nil
}

func TestCheckRefusesAnIncompatibleChangeAndPassesACompatibleOne(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, fixture)
	out, ok := apicheck(t, dir, "baseline", "v1.0.0")
	require.True(t, ok, out)
	for _, name := range []string{"fix.export.gz", "p.export.gz"} {
		require.FileExists(t, filepath.Join(dir, "api/v1.0.0", name))
	}
	require.NoFileExists(t, filepath.Join(dir, "api/v1.0.0/q.export.gz"), "q is not listed")

	out, ok = apicheck(t, dir, "check")
	require.True(t, ok, out)
	require.Contains(t, out, "2 public packages are compatible with v1.0.0")

	// Additions, and any change to an unlisted package, pass.
	write(t, dir, map[string]string{
		"fix.go": fixture["fix.go"] + "\n// U is new.\ntype U struct{}\n",
		"p/p.go": fixture["p/p.go"] + "\n// H is new.\nfunc H() {}\n",
		"q/q.go": "package q\n\n// G changed.\nfunc G(int) {}\n",
	})
	out, ok = apicheck(t, dir, "check")
	require.True(t, ok, out)

	// A changed signature fails with apidiff's report.
	write(t, dir, map[string]string{"p/p.go": "package p\n\n// F changed.\nfunc F(s string) string { return s }\n"})
	out, ok = apicheck(t, dir, "check")
	require.False(t, ok, out)
	require.Contains(t, out, "Incompatible changes to example.com/fix/p since v1.0.0:\n- F: changed from func(int) string to func(string) string")
	require.NotContains(t, out, "example.com/fix since", "the root package is still compatible")

	// A removed field of the root package fails too.
	write(t, dir, map[string]string{"p/p.go": fixture["p/p.go"], "fix.go": "package fix\n\n// T lost A.\ntype T struct{}\n"})
	out, ok = apicheck(t, dir, "check")
	require.False(t, ok, out)
	require.Contains(t, out, "Incompatible changes to example.com/fix since v1.0.0:\n- T.A: removed")
}

func TestCheckRefusesAPublicPackageDroppedFromTheList(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, fixture)
	out, ok := apicheck(t, dir, "baseline", "v1.0.0")
	require.True(t, ok, out)

	write(t, dir, map[string]string{"api/packages": ".\n"})
	out, ok = apicheck(t, dir, "check")
	require.False(t, ok, out)
	require.Contains(t, out, "the public package p (api/v1.0.0/p.export.gz) is no longer in api/packages")

	// A newly listed package has nothing to be compatible with.
	write(t, dir, map[string]string{"api/packages": ".\np\nq\n"})
	out, ok = apicheck(t, dir, "check")
	require.True(t, ok, out)
	require.Contains(t, out, "example.com/fix/q is new since v1.0.0")
}

// A new baseline replaces the old one: the check compares with one release.
func TestBaselineReplacesThePreviousRelease(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, fixture)
	out, ok := apicheck(t, dir, "baseline", "v1.0.0")
	require.True(t, ok, out)
	write(t, dir, map[string]string{"p/p.go": "package p\n\n// F changed in v2.\nfunc F(s string) string { return s }\n"})
	out, ok = apicheck(t, dir, "baseline", "v2.0.0")
	require.True(t, ok, out)
	require.NoDirExists(t, filepath.Join(dir, "api/v1.0.0"))
	out, ok = apicheck(t, dir, "check")
	require.True(t, ok, out)
	require.Contains(t, out, "compatible with v2.0.0")

	out, ok = apicheck(t, dir, "baseline", "2.0")
	require.False(t, ok, out)
	require.Contains(t, out, "version 2.0 is not a semantic version such as v0.1.0")
}

// The repository's own baseline covers exactly the listed packages, each
// of which exists.
func TestTheBaselineHoldsEveryListedPublicPackage(t *testing.T) {
	text, err := os.ReadFile("packages")
	require.NoError(t, err)
	dirs, err := filepath.Glob("v*")
	require.NoError(t, err)
	require.Len(t, dirs, 1, "one baseline directory")
	var want []string
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		require.DirExists(t, filepath.Join("..", line))
		name := strings.ReplaceAll(line, "/", "_")
		if line == "." {
			name = "tether"
		}
		want = append(want, name+".export.gz")
	}
	files, err := filepath.Glob(filepath.Join(dirs[0], "*.export.gz"))
	require.NoError(t, err)
	var got []string
	for _, f := range files {
		got = append(got, filepath.Base(f))
	}
	require.ElementsMatch(t, want, got)
}
