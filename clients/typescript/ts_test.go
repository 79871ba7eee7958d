package typescript_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/signals"
)

// packageFiles are what `npm ci && npm test` needs of clients/typescript.
var packageFiles = []string{"package.json", "package-lock.json", "tsconfig.json", "src", "test", "scripts"}

// TestTypeScriptClientAgainstALiveTether runs the TypeScript client's own
// tests (npm test) against an embedded Temporal server and a Tether worker
// on the scripted model, and fails with npm's output when they fail; then
// it installs the packed package into an empty project.
func TestTypeScriptClientAgainstALiveTether(t *testing.T) {
	npm := requireNode(t)
	dir := copyPackage(t)
	address, namespace := startTether(t)
	schema, err := filepath.Abs(filepath.Join("..", "..", "schema", "tether.schema.json"))
	require.NoError(t, err)
	env := append(os.Environ(), "TETHER_ADDRESS="+address, "TETHER_NAMESPACE="+namespace,
		"TETHER_TASK_QUEUE="+signals.TaskQueue, "TETHER_SCHEMA="+schema, "NO_COLOR=1")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	runNpm(ctx, t, npm, dir, env, "ci", "--no-audit", "--no-fund")
	runNpm(ctx, t, npm, dir, env, "test")
	requireInstallable(ctx, t, npm, dir, env)
}

// requireInstallable packs the built package and installs the tarball into
// an empty project, which then loads it.
func requireInstallable(ctx context.Context, t *testing.T, npm, dir string, env []string) {
	t.Helper()
	runNpm(ctx, t, npm, dir, env, "pack", "--pack-destination", dir)
	tarballs, err := filepath.Glob(filepath.Join(dir, "*.tgz"))
	require.NoError(t, err)
	require.Len(t, tarballs, 1)
	project := t.TempDir()
	runNpm(ctx, t, npm, project, env, "init", "-y")
	runNpm(ctx, t, npm, project, env, "install", "--no-audit", "--no-fund", tarballs[0])
	load := exec.CommandContext(ctx, "node", "-e",
		`const t = require("@tetherdev/tether-client"); if (t.AGENT_WORKFLOW !== "tether.Agent" || typeof t.TetherClient !== "function") process.exit(1)`)
	load.Dir = project
	out, err := load.CombinedOutput()
	require.NoError(t, err, "the installed package does not load:\n%s", out)
}

// requireNode returns npm's path, skipping the test when node is missing.
func requireNode(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the TypeScript client's tests need Node.js 18 or later and npm (.ci/run installs them)")
	}
	npm, err := exec.LookPath("npm")
	require.NoError(t, err, "node is installed but npm is not")
	return npm
}

func runNpm(ctx context.Context, t *testing.T, npm, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 5 * time.Second // a child left holding the output must not hang the test
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	t.Logf("npm %s:\n%s", strings.Join(args, " "), out.String())
}

// copyPackage copies the npm package into a temporary directory.
func copyPackage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range packageFiles {
		info, err := os.Stat(name)
		require.NoError(t, err)
		if info.IsDir() {
			require.NoError(t, os.CopyFS(filepath.Join(dir, name), os.DirFS(name)), "copy %s", name)
			continue
		}
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	return dir
}
