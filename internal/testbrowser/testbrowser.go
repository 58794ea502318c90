// Package testbrowser holds what the kit's browser tests share to start
// headless Chromium through chromedp: which browser, and the options every
// one of them runs it with. It is for tests only.
package testbrowser

import (
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// EnvPath is the environment variable naming the Chromium to run.
const EnvPath = "EMBEDKIT_CHROMIUM"

// Path returns the browser to run: $EMBEDKIT_CHROMIUM, else chromium on
// PATH. Without one it fails tb, naming what to install: a browser test
// never skips.
func Path(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv(EnvPath); p != "" {
		if _, err := os.Stat(p); err != nil {
			tb.Fatalf("%s=%s: %v", EnvPath, p, err)
		}
		return p
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		tb.Fatal("chromium not found: run 'make test', which installs it, or set " + EnvPath)
	}
	return p
}

// Options returns the allocator options of a test browser: Path's
// Chromium, headless, without sandbox, GPU, first-run pages, background
// networking, component updates or sync, with /dev/shm left alone, and a
// fresh profile in a folder of tb's, followed by extra.
func Options(tb testing.TB, extra ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	tb.Helper()
	return append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Path(tb)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(tb.TempDir()),
	}, extra...)
}
