// Package browsertest drives Debian's Chromium, headless, for the tests
// that check what a person sees: the console and the Temporal Web UI. It is
// imported by tests only.
//
// Chromium is found on PATH (or at $TETHER_CHROMIUM). Without it the test
// skips, saying so, only where it could not be installed either (no
// apt-get): .ci/run installs it, so in CI a missing browser is a failure,
// never a silent skip.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// candidates are the names Chromium goes by.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"}

// find returns Chromium's path, or "".
func find() string {
	if p := os.Getenv("TETHER_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// New starts a headless Chromium for t (a fresh profile, no sandbox, no
// background traffic) and returns a chromedp context on its first tab; the
// browser stops when the test ends.
func New(t *testing.T) context.Context {
	t.Helper()
	path := find()
	if path == "" {
		if _, err := exec.LookPath("apt-get"); err != nil {
			t.Skip("browser test skipped: no Chromium on PATH and no apt-get to install it (set TETHER_CHROMIUM to a Chromium binary)")
		}
		t.Fatal("no Chromium on PATH: install it with `apt-get install -y chromium` (.ci/run does), or set TETHER_CHROMIUM")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
		chromedp.WindowSize(1360, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start Chromium at %s: %v", path, err)
	}
	return ctx
}

// Screenshot saves the visible page as a PNG at path.
func Screenshot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("save screenshot: %v", err)
	}
}
