// Package testbrowser holds what the kit's browser tests share to start
// headless Chromium through chromedp: which browser, the options every
// one of them runs it with, and the bounded first action that starts it.
// It is for tests only.
package testbrowser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// EnvPath is the environment variable naming the Chromium to run.
const EnvPath = "EMBEDKIT_CHROMIUM"

// EnvSlowdown is the environment variable that scales every browser
// step's deadline (Step): a number of at least 1, such as 3 on a machine
// that runs other browser work beside the tests.
const EnvSlowdown = "EMBEDKIT_TEST_SLOWDOWN"

// DefaultStep is the deadline of one browser step (a navigation, a
// sign-in, a wait for an embed to reach a state) before EnvSlowdown
// scales it. A step waits on an event, not on the clock, so the deadline
// costs nothing while the step succeeds: it only bounds a step that will
// never end. It is generous because a two-core machine that runs several
// Chromium instances and the race detector at once has taken over 20 s
// for a step that alone takes 3 s.
const DefaultStep = 60 * time.Second

// Step returns d scaled by $EMBEDKIT_TEST_SLOWDOWN (1 when unset). A
// value that is not a number of at least 1 panics, naming the variable:
// a misspelt slowdown must not quietly shorten every deadline.
func Step(d time.Duration) time.Duration {
	f, err := slowdown(os.Getenv(EnvSlowdown))
	if err != nil {
		panic(err)
	}
	return time.Duration(float64(d) * f)
}

// slowdown parses a value of EnvSlowdown.
func slowdown(v string) (float64, error) {
	if v == "" {
		return 1, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 1 && f <= 100) {
		return 0, fmt.Errorf("testbrowser: %s=%q: must be a number from 1 to 100", EnvSlowdown, v)
	}
	return f, nil
}

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

// Start starts a headless Chromium with Options(tb, extra...) and runs
// first on it (see First) within timeout. It returns the browser's
// context, which holds its first tab; the browser is stopped when tb
// ends.
func Start(tb testing.TB, timeout time.Duration, first chromedp.Action[chromedp.Void], extra ...chromedp.ExecAllocatorOption) context.Context {
	tb.Helper()
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), Options(tb, extra...)...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	tb.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
	})
	First(tb, bctx, cancelBrowser, timeout, "start chromium", first)
	return bctx
}

// First runs first, the first action of a chromedp context, which starts
// the browser or opens the tab. chromedp ties the browser's or the tab's
// life to the context of that first run, so it runs on ctx itself, not on
// a child with a deadline; timeout is kept by cancelling ctx instead (with
// cancel, ctx's own). It fails tb, naming what, on an error or when
// timeout passes.
func First(tb testing.TB, ctx context.Context, cancel context.CancelFunc, timeout time.Duration, what string, first chromedp.Action[chromedp.Void]) {
	tb.Helper()
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(ctx, first) }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			tb.Fatalf("%s: %v", what, err)
		}
	case <-timer.C:
		cancel()
		tb.Fatalf("%s: not within %s", what, timeout)
	}
}
