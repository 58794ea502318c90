package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/examples/webapp"
	"github.com/embedkit/embedkit/internal/testbrowser"
)

// stepTimeout bounds every browser step: a navigation, a sign-in, a wait
// for the embed to reach a state (testbrowser.Step: generous, since a
// step waits on an event and only a stuck one meets it).
var stepTimeout = testbrowser.Step(testbrowser.DefaultStep)

// pollEvery is how often the helpers read DOM state while they wait.
const pollEvery = 100 * time.Millisecond

// The size of every tab's viewport, and so of the screenshots.
const (
	viewportWidth  = 1280
	viewportHeight = 800
)

// embedPoll is how often the platform's iframe page checks its token.
const embedPoll = 2 * time.Second

// demoUser is one account of the development identity provider, with
// what its dashboard must show.
type demoUser struct {
	username, password string
	// name is the display name, shown in the account menu and the embed.
	name string
	// region is the only sales region whose rows the user may see.
	region string
	locale string
	zone   string
	// money matches a revenue cell formatted in locale (every sample
	// revenue is between 8,000 and 30,000, so it has a group separator).
	money *regexp.Regexp
}

var (
	ana = demoUser{
		username: "ana", password: "ana-dev-pass", name: "Ana Lima",
		region: "EMEA", locale: "de-DE", zone: "Europe/Berlin",
		money: regexp.MustCompile(`^\d{1,3}(\.\d{3})+,\d{2}$`),
	}
	ben = demoUser{
		username: "ben", password: "ben-dev-pass", name: "Ben Okafor",
		region: "AMER", locale: "en-US", zone: "America/New_York",
		money: regexp.MustCompile(`^\d{1,3}(,\d{3})+\.\d{2}$`),
	}
	chloe = demoUser{
		username: "chloe", password: "chloe-dev-pass", name: "Chloé Martin",
		region: "APAC", locale: "fr-FR", zone: "Asia/Tokyo",
		// fr-FR groups digits with U+202F NARROW NO-BREAK SPACE.
		money: regexp.MustCompile(`^\d{1,3}(\x{202F}\d{3})+,\d{2}$`),
	}
)

// stack is the running demo and the browser the tests drive.
type stack struct {
	app, idp, emulator string
	// em is the demo's platform emulator, for tests that talk to the
	// platform without the host app.
	em *emulator.Server
	// browser is the first tab's context; every scenario opens its own
	// browser context (its own cookies) from it.
	browser context.Context
	shots   string
}

// newStack starts the demo in process on loopback ports and one headless
// Chromium, both stopped when t ends.
func newStack(t *testing.T) *stack {
	t.Helper()
	testbrowser.Path(t) // fail at once, before the demo starts, without a browser

	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	demo, err := webapp.RunDemo(ctx, webapp.DemoOptions{
		Listen: "127.0.0.1:0",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("start the demo: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
		defer cancel()
		if err := demo.Close(ctx); err != nil {
			t.Errorf("stop the demo: %v", err)
		}
	})
	s := &stack{
		app:      strings.TrimSuffix(demo.AppURL, "/"),
		idp:      strings.TrimSuffix(demo.IssuerURL, "/"),
		emulator: strings.TrimSuffix(demo.PlatformURL, "/"),
		em:       demo.Emulator,
		shots:    screenshotDir(t),
	}
	for _, u := range []string{s.app, s.idp, s.emulator} {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Fatalf("demo address %q is not on loopback", u)
		}
	}

	s.browser = testbrowser.Start(t, stepTimeout, viewport(),
		chromedp.Flag("disable-quic", true),
		// Tabs in the background keep their timers and rendering, so an
		// embed left open in another tab polls on time.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.WindowSize(viewportWidth, viewportHeight),
	)
	return s
}

// start runs the first action of a chromedp context, which opens the tab,
// and sets the tab's viewport, within one step deadline
// (testbrowser.First).
func start(t *testing.T, ctx context.Context, cancel context.CancelFunc, what string) {
	t.Helper()
	testbrowser.First(t, ctx, cancel, stepTimeout, what, viewport())
}

// viewport sets a tab's viewport to the screenshots' size.
func viewport() chromedp.Action[chromedp.Void] {
	return chromedp.EmulateViewport(viewportWidth, viewportHeight)
}

var shotsOnce sync.Once

// screenshotDir is where the screenshots go: $EMBEDKIT_SCREENSHOTS, else a
// new temporary folder that is kept after the run so the pictures can be
// looked at.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("EMBEDKIT_SCREENSHOTS")
	if dir == "" {
		d, err := os.MkdirTemp("", "embedkit-e2e-")
		if err != nil {
			t.Fatalf("screenshot folder: %v", err)
		}
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("screenshot folder: %v", err)
	}
	shotsOnce.Do(func() { t.Log("screenshots in", dir) })
	return dir
}

// session opens a tab in a new browser context: its own cookie jar, so
// every scenario signs in from scratch. Closed when t ends.
func (s *stack) session(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(s.browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	start(t, ctx, cancel, "open a tab in a new browser context")
	return ctx
}

// tab opens another tab in the browser context of sess (same cookies).
func (s *stack) tab(t *testing.T, sess context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(sess)
	t.Cleanup(cancel)
	start(t, ctx, cancel, "open a second tab")
	return ctx
}

// do runs actions in tab within one step deadline and fails t on error.
func do(t *testing.T, tab context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// signIn signs user in through the identity provider's form, starting
// from the app's dashboard list, and waits until the list shows them
// signed in.
func (s *stack) signIn(t *testing.T, tab context.Context, u demoUser) {
	t.Helper()
	do(t, tab, "open the sign-in form",
		chromedp.Navigate(s.app+"/dashboards"),
		chromedp.WaitVisible(chromedp.CSS("#username")),
	)
	if loc := location(t, tab); !strings.HasPrefix(loc, s.idp+"/") {
		t.Fatalf("sign-in form served from %s, want the identity provider %s", origin(loc), s.idp)
	}
	do(t, tab, "sign in as "+u.username,
		chromedp.SendKeys(chromedp.CSS("#username"), u.username),
		chromedp.SendKeys(chromedp.CSS("#password"), u.password),
		chromedp.Click(chromedp.CSS(`form button[type="submit"]`)),
	)
	h := waitHost(t, tab, "the dashboard list after sign-in", func(h hostState) bool {
		return strings.HasPrefix(h.URL, s.app+"/dashboards") && h.Account != "" && h.Links > 0
	})
	if h.Account != u.name {
		t.Fatalf("account menu shows %q, want %q", h.Account, u.name)
	}
}

// openDashboard opens the first dashboard of the list in tab and waits
// for its embed to be ready.
func (s *stack) openDashboard(t *testing.T, tab context.Context) embedState {
	t.Helper()
	click(t, tab, "ul#dashboards a.dashboard-link")
	waitHost(t, tab, "the dashboard page", func(h hostState) bool {
		return strings.HasPrefix(h.URL, s.app+"/dashboards/") && h.Frame
	})
	return waitEmbed(t, tab, "the embed ready", ready)
}

// signOut signs out of the app through the account menu and waits until
// the app shows a signed-out page.
func (s *stack) signOut(t *testing.T, tab context.Context) {
	t.Helper()
	click(t, tab, "#account-menu > summary")
	click(t, tab, "#logout-button")
	waitHost(t, tab, "a signed-out page of the app", func(h hostState) bool {
		return strings.HasPrefix(h.URL, s.app+"/") && h.SignIn && h.Account == ""
	})
}

// click waits until the host page of tab shows the element sel and
// clicks it with HTMLElement.click(), which follows a link, opens a
// disclosure or submits a form as a user's click does. Clicking from the
// page's own script does not depend on chromedp's view of a document
// that has just been replaced by a navigation.
func click(t *testing.T, tab context.Context, sel string) {
	t.Helper()
	expr := fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		if (!el || el.getClientRects().length === 0) return false;
		el.click();
		return true;
	})()`, sel)
	err := pollUntil(tab, func(ctx context.Context) (bool, error) {
		clicked, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		// An evaluation that races a navigation fails; try again.
		return err == nil && clicked, nil
	})
	if err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

// hostState is what the tests read of a host app page.
type hostState struct {
	URL     string `json:"url"`
	Account string `json:"account"`
	SignIn  bool   `json:"signIn"`
	Links   int    `json:"links"`
	// Frame reports an iframe#embed-frame with data-embedkit.
	Frame bool `json:"frame"`
	// Embed is #embed-status's data-state.
	Embed string `json:"embed"`
	// Saved is #settings-status's data-state.
	Saved  string `json:"saved"`
	Locale string `json:"locale"`
}

const hostJS = `(() => {
	const q = (s) => document.querySelector(s);
	const text = (s) => { const e = q(s); return e ? e.textContent.trim() : ""; };
	const data = (s, k) => { const e = q(s); return e ? (e.dataset[k] || "") : ""; };
	const sel = q("#locale-select");
	return JSON.stringify({
		url: location.href,
		account: text("#account-name"),
		signIn: !!q("#sign-in, #sign-in-cta"),
		links: document.querySelectorAll("ul#dashboards a.dashboard-link").length,
		frame: !!q("iframe#embed-frame[data-embedkit]"),
		embed: data("#embed-status", "state"),
		saved: data("#settings-status", "state"),
		locale: sel ? sel.value : ""
	});
})()`

// readPage evaluates js, an expression that yields JSON, in the page of
// tab once and decodes what it yields.
func readPage[T any](ctx context.Context, js string) (T, error) {
	var v T
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		return v, err
	}
	return v, json.Unmarshal([]byte(raw), &v)
}

// waitPage polls js (readPage) in the page of tab until ok holds, within
// one step. A read that fails is tried again: a navigation may have
// raced it.
func waitPage[T any](t *testing.T, tab context.Context, what, js string, ok func(T) bool) T {
	t.Helper()
	var last T
	err := pollUntil(tab, func(ctx context.Context) (bool, error) {
		v, err := readPage[T](ctx, js)
		if err != nil {
			return false, nil
		}
		last = v
		return ok(v), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v (last seen %+v)", what, err, last)
	}
	return last
}

// readHost reads the host page of tab once.
func readHost(ctx context.Context) (hostState, error) {
	return readPage[hostState](ctx, hostJS)
}

// waitHost polls the host page of tab until ok holds, within one step.
// The failure shows the last state read, never the page address (it
// may carry one-time codes).
func waitHost(t *testing.T, tab context.Context, what string, ok func(hostState) bool) hostState {
	t.Helper()
	var last hostState
	var lastErr error
	err := pollUntil(tab, func(ctx context.Context) (bool, error) {
		h, err := readHost(ctx)
		if err != nil {
			// An evaluation that races a navigation fails ("inspected
			// target navigated"); the next round reads the new page.
			lastErr = err
			return false, nil
		}
		last, lastErr = h, nil
		return ok(h), nil
	})
	if err != nil {
		if lastErr != nil {
			err = fmt.Errorf("%w (last read error: %v)", err, lastErr)
		}
		shown := last
		shown.URL = origin(last.URL) + pathOf(last.URL)
		t.Fatalf("waiting for %s: %v (last seen: %+v)", what, err, shown)
	}
	return last
}

// embedState is what the tests read inside the platform's iframe.
type embedState struct {
	State       string     `json:"state"`
	Viewer      string     `json:"viewer"`
	Title       string     `json:"title"`
	Locale      string     `json:"locale"`
	Zone        string     `json:"zone"`
	DataLocale  string     `json:"dataLocale"`
	DataZone    string     `json:"dataZone"`
	ColorScheme string     `json:"colorScheme"`
	Marker      bool       `json:"marker"`
	Rows        []embedRow `json:"rows"`
	// Page is the start of the document's text, for failure messages.
	Page string `json:"page"`
}

// embedRow is one tr[data-region][data-month] of #rows.
type embedRow struct {
	Region  string `json:"region"`
	Month   string `json:"month"`
	Revenue string `json:"revenue"`
}

const embedJS = `(() => {
	const q = (s) => document.querySelector(s);
	const text = (s) => { const e = q(s); return e ? e.textContent.trim() : ""; };
	const root = q("#embed");
	const status = q("#status");
	return JSON.stringify({
		state: status ? status.dataset.state || "" : "",
		viewer: text("#viewer-name"),
		title: text("#dashboard-title"),
		locale: text("#locale"),
		zone: text("#timezone"),
		dataLocale: root ? root.dataset.locale || "" : "",
		dataZone: root ? root.dataset.timezone || "" : "",
		colorScheme: document.documentElement.dataset.colorScheme || "",
		marker: window.__marker === 1,
		page: document.body ? document.body.innerText.slice(0, 160) : "",
		rows: Array.from(document.querySelectorAll("#rows tr[data-region][data-month]"), (tr) => ({
			region: tr.dataset.region,
			month: tr.dataset.month,
			revenue: tr.cells.length > 2 ? tr.cells[2].textContent : ""
		}))
	});
})()`

// errFrameOutOfProcess is returned when the embed iframe's document is
// not reachable from the host page's DOM tree.
var errFrameOutOfProcess = errors.New("the embed iframe has no content document in the page's DOM tree (is it running in another renderer?)")

// embedNode returns the host page's embed iframe element, with its
// content document.
//
// The platform and the app are both on 127.0.0.1, on different ports:
// different origins but the same site, so Chromium keeps the iframe in
// the page's renderer even with site isolation on, and the iframe node
// carries the frame's document. Queries and polls then target it with
// chromedp.FromNode and chromedp.WithPollingInFrame.
func embedNode(ctx context.Context) (*chromedp.Node, error) {
	nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("iframe#embed-frame[data-embedkit]")))
	if err != nil {
		return nil, err
	}
	if nodes[0].ContentDocument == nil {
		return nil, errFrameOutOfProcess
	}
	return nodes[0], nil
}

// inEmbed evaluates expr in the embed iframe of tab; expr must yield a
// truthy value. It looks the iframe up again on every call, so it
// follows the iframe across reloads.
func inEmbed[T any](ctx context.Context, expr string) (T, error) {
	var zero T
	n, err := embedNode(ctx)
	if err != nil {
		return zero, err
	}
	return chromedp.Run(ctx, chromedp.Poll[T](expr,
		chromedp.WithPollingInFrame(n),
		chromedp.WithPollingInterval(pollEvery),
		chromedp.WithPollingTimeout(time.Second)))
}

// readEmbed reads the embed iframe of tab once.
func readEmbed(ctx context.Context) (embedState, error) {
	var e embedState
	raw, err := inEmbed[string](ctx, embedJS)
	if err != nil {
		return e, err
	}
	return e, json.Unmarshal([]byte(raw), &e)
}

// waitEmbed polls the embed iframe of tab until ok holds, within one step.
func waitEmbed(t *testing.T, tab context.Context, what string, ok func(embedState) bool) embedState {
	t.Helper()
	var last embedState
	var lastErr error
	err := pollUntil(tab, func(ctx context.Context) (bool, error) {
		e, err := readEmbed(ctx)
		if err != nil {
			// The iframe may be between two documents (a reload); the
			// next round looks it up again.
			if errors.Is(err, errFrameOutOfProcess) {
				return false, err
			}
			lastErr = err
			return false, nil
		}
		last, lastErr = e, nil
		return ok(e), nil
	})
	if err != nil {
		if lastErr != nil {
			err = fmt.Errorf("%w (last read error: %v)", err, lastErr)
		}
		t.Fatalf("waiting for %s in the embed: %v (last seen: %+v)", what, err, last)
	}
	return last
}

// embedHearsHost reports whether the embed iframe of tab can exchange
// messages with its host page, and fails t when it cannot. The platform's
// page talks to one origin only: its ?parentOrigin= parameter when
// present, else the origin of document.referrer. Without either it drops
// every message both ways, so settings never reach it and the host never
// hears "ready" or "session ended"; the callers then skip the waits for
// those, which could only time out.
func embedHearsHost(t *testing.T, s *stack, tab context.Context) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	raw, err := inEmbed[string](ctx, `(() => {
		const p = new URLSearchParams(location.search);
		const v = p.has("parentOrigin") ? p.get("parentOrigin") : document.referrer;
		let origin = "";
		try { origin = new URL(v).origin; } catch (e) {}
		return JSON.stringify({param: p.has("parentOrigin"), referrer: document.referrer !== "", origin: origin});
	})()`)
	if err != nil {
		t.Fatalf("read the embed's parent origin: %v", err)
	}
	var got struct {
		Param    bool   `json:"param"`
		Referrer bool   `json:"referrer"`
		Origin   string `json:"origin"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatal(err)
	}
	if got.Origin != s.app {
		t.Errorf("the embed cannot talk to its host page: it takes the host origin to be %q, want %s "+
			"(parentOrigin in the iframe URL: %t; document.referrer set: %t). The iframe URL needs "+
			"parentOrigin=<host origin>, or the referrer must survive the iframe's referrerpolicy and the "+
			"frame endpoint's redirect", got.Origin, s.app, got.Param, got.Referrer)
		return false
	}
	return true
}

// ready reports an embed that has rendered its data.
func ready(e embedState) bool { return e.State == "ready" && len(e.Rows) > 0 }

// pollUntil calls check every pollEvery until it reports true, returns an
// error, or the step deadline passes.
func pollUntil(tab context.Context, check func(ctx context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		done, err := check(ctx)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not within %s: %w", stepTimeout, ctx.Err())
		case <-tick.C:
		}
	}
}

// location returns the address of tab's page.
func location(t *testing.T, tab context.Context) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatalf("read the page address: %v", err)
	}
	return loc
}

// origin returns the scheme and host of an absolute URL, for messages
// that must not show a path or query.
func origin(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return ""
	}
	host, _, _ := strings.Cut(rest, "/")
	return scheme + "://" + host
}

// pathOf returns the path of an absolute URL, without query or fragment.
func pathOf(u string) string {
	rest := strings.TrimPrefix(u, origin(u))
	rest, _, _ = strings.Cut(rest, "#")
	rest, _, _ = strings.Cut(rest, "?")
	return rest
}

// screenshot saves a full-page PNG of tab as <name>.png in the screenshot
// folder and returns its path.
func (s *stack) screenshot(t *testing.T, tab context.Context, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.BringToFront, cdp.Empty{}); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(s.shots, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	return path
}

// viewportPNG returns a PNG of what tab shows in its viewport.
func viewportPNG(t *testing.T, tab context.Context) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return png
}

// emulatorSession is one entry of the emulator's GET /_emulator/sessions.
type emulatorSession struct {
	SessionID  string    `json:"sessionId"`
	State      string    `json:"state"`
	ExternalID string    `json:"externalId"`
	CreatedAt  time.Time `json:"createdAt"`
}

// sessions lists every embed session the emulator holds.
func (s *stack) sessions(t *testing.T) []emulatorSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.emulator+"/_emulator/sessions", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("list emulator sessions: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("list emulator sessions: status %s", resp.Status)
	}
	var body struct {
		Sessions []emulatorSession `json:"sessions"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body); err != nil {
		t.Fatalf("list emulator sessions: %v", err)
	}
	return body.Sessions
}

// sessionIDs returns the set of ids in list.
func sessionIDs(list []emulatorSession) map[string]bool {
	ids := make(map[string]bool, len(list))
	for _, se := range list {
		ids[se.SessionID] = true
	}
	return ids
}

// mintedSince returns the sessions of now that before did not hold.
func mintedSince(before map[string]bool, now []emulatorSession) []emulatorSession {
	var out []emulatorSession
	for _, se := range now {
		if !before[se.SessionID] {
			out = append(out, se)
		}
	}
	return out
}
