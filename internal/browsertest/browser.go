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
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// Page is a test's tab: each action fails the test on error, and the
// waits survive the navigations the page makes itself (a form's redirect,
// a reload).
//
// Click and Set act through the page's own script (querySelector, then
// click() or value) in one evaluation, never through a DOM node ID the
// browser handed out earlier: a page that replaced its document since
// (a JavaScript-driven navigation, a re-rendered block) makes Chromium
// answer an ID-based action "Could not find node with given id", which
// is a race in the test, not a fault of the page.
type Page struct {
	t   *testing.T
	ctx context.Context
	// Timeout bounds each Wait; 60 s unless set.
	Timeout time.Duration
}

// Open starts a browser for t (as New) and returns its first tab.
func Open(t *testing.T) *Page {
	t.Helper()
	return &Page{t: t, ctx: New(t), Timeout: 60 * time.Second}
}

// Context is the tab's chromedp context, for actions Page does not wrap.
func (p *Page) Context() context.Context { return p.ctx }

// Do runs chromedp actions (Navigate, Reload, WaitVisible) in order.
func (p *Page) Do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		p.t.Fatalf("browser: %v", err)
	}
}

// Go navigates to url and waits for it to load.
func (p *Page) Go(url string) {
	p.t.Helper()
	p.Do(chromedp.Navigate(url))
}

// Eval evaluates a JavaScript expression whose value is a string.
func (p *Page) Eval(js string) string {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		p.t.Fatalf("browser: evaluate %s: %v", js, err)
	}
	return v
}

// Wait polls the JavaScript condition cond until it holds, failing the
// test with the page's HTML after Timeout.
func (p *Page) Wait(cond string) {
	p.t.Helper()
	deadline := time.Now().Add(p.Timeout)
	for {
		_, err := chromedp.Run(p.ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(time.Until(deadline))))
		if err == nil {
			return
		}
		// A navigation (the page's own redirect, a reload) ends a poll
		// early: ask the new page.
		if !Navigating(err) || time.Now().After(deadline) {
			page, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.body ? document.body.innerHTML : ""`))
			p.t.Fatalf("browser: waiting for %s: %v; the page:\n%s", cond, err, page)
		}
	}
}

// Click clicks the first element matching the CSS selector, once it is
// there (within Timeout).
func (p *Page) Click(selector string) {
	p.t.Helper()
	p.act(selector, `el.click()`)
}

// Set sets the value of the first form control matching the CSS selector
// and tells the page (an input event), once the control is there.
func (p *Page) Set(selector, value string) {
	p.t.Helper()
	v, _ := json.Marshal(value)
	p.act(selector, `el.value = `+string(v)+`; el.dispatchEvent(new Event('input', {bubbles: true}))`)
}

// act waits for selector's element, then runs do on it (as el) in the same
// evaluation, so the element it acts on is the one the page has now.
func (p *Page) act(selector, do string) {
	p.t.Helper()
	sel, _ := json.Marshal(selector)
	p.Wait(`!!document.querySelector(` + string(sel) + `)`)
	js := `(() => { const el = document.querySelector(` + string(sel) + `); if (!el) return 'gone'; ` + do + `; return ''; })()`
	for {
		v, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
		switch {
		case err == nil && v == "":
			return
		case err == nil: // replaced between the wait and the act: wait again
			p.Wait(`!!document.querySelector(` + string(sel) + `)`)
		case Navigating(err):
			p.Wait(`!!document.querySelector(` + string(sel) + `)`)
		default:
			p.t.Fatalf("browser: %s on %s: %v", do, selector, err)
		}
	}
}

// Screenshot saves the visible page as a PNG at path.
func (p *Page) Screenshot(path string) {
	p.t.Helper()
	Screenshot(p.t, p.ctx, path)
}

// Navigating reports whether err says the page changed under an
// evaluation or a poll (the page navigated, its context went away).
func Navigating(err error) bool {
	for _, s := range []string{"navigated or closed", "Cannot find context with specified id", "Execution context was destroyed"} {
		if strings.Contains(err.Error(), s) {
			return true
		}
	}
	return false
}
