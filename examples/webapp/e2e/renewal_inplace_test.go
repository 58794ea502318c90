package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
)

// testRenewalInPlace moves the emulator's clock past the trust of the
// embed's token (23 h) and checks how the host script renews the
// session: in place where the platform sends session-expired and
// session-expiring (the same document, one new session, the filter still
// applied); by loading the frame again where the platform refuses the new
// id (revoked before set-session) or predates the renewal messages. It
// runs last: it moves the clock and switches the fixture, and resets the
// emulator to the demo fixture and its own clock at each step and when it
// ends.
func testRenewalInPlace(t *testing.T, s *stack, u demoUser) {
	reset := func(f *emulator.Fixture) {
		t.Helper()
		if err := s.em.Reset(f); err != nil {
			t.Fatalf("reset the emulator: %v", err)
		}
	}
	t.Cleanup(func() {
		if err := s.em.Reset(nil); err != nil {
			t.Errorf("reset the emulator: %v", err)
		}
	})
	t.Run("in place", func(t *testing.T) {
		reset(nil)
		tab, ok := s.openFilteredDashboard(t, u)
		if !ok {
			return
		}
		before := sessionIDs(s.sessions(t))
		s.em.Advance(23 * time.Hour)
		p := waitRenewed(t, tab)
		e := waitEmbed(t, tab, "the embed ready again in the same document, March only", func(e embedState) bool {
			return ready(e) && e.Marker && marchOnly(e)
		})
		if e.Viewer != u.name {
			t.Errorf("renewed embed shows %q, want %q", e.Viewer, u.name)
		}
		// Both events came (a jump past both sends session-expired, then
		// session-expiring) and made one renewal.
		for _, name := range []string{"session-expired", "session-expiring"} {
			if !slices.Contains(p.Events, name) {
				t.Errorf("the page heard %v, want %s among them", p.Events, name)
			}
		}
		time.Sleep(2 * embedPoll) // room for a second renewal, which must not come
		p = readRenewProbe(t, tab)
		if len(p.Renewed) != 1 || !p.Renewed[0].InPlace {
			t.Errorf("session-renewed %+v, want one, in place", p.Renewed)
		}
		if n := len(mintedSince(before, s.sessions(t))); n != 1 {
			t.Errorf("the renewal minted %d sessions at the emulator, want 1", n)
		}
		if slices.Contains(p.Events, "error") {
			t.Errorf("the embed reported an error during the renewal (events %v)", p.Events)
		}
		s.screenshot(t, tab, "9-renewed-in-place")
		s.signOut(t, tab)
	})
	t.Run("a refused id loads the frame again", func(t *testing.T) {
		reset(nil)
		tab, ok := s.openFilteredDashboard(t, u)
		if !ok {
			return
		}
		revokeFirstSessionAnswer(t, s, tab)
		before := sessionIDs(s.sessions(t))
		s.em.Advance(23 * time.Hour)
		p := waitRenewed(t, tab)
		waitEmbed(t, tab, "the embed ready again in a new document, March only", func(e embedState) bool {
			return ready(e) && !e.Marker && marchOnly(e)
		})
		if len(p.Renewed) != 1 || p.Renewed[0].InPlace {
			t.Errorf("session-renewed %+v, want one, by reload", p.Renewed)
		}
		if i, j := slices.Index(p.Events, "error"), slices.Index(p.Events, "session-renewed"); i < 0 || j < i {
			t.Errorf("the page heard %v, want the embed's error before session-renewed", p.Events)
		}
		// The revoked one and the reload's.
		if n := len(mintedSince(before, s.sessions(t))); n != 2 {
			t.Errorf("minted %d sessions, want 2 (the refused one, then the reload's)", n)
		}
		s.signOut(t, tab)
	})
	t.Run("a platform without renewal loads the frame again", func(t *testing.T) {
		f := emulator.DemoFixture()
		f.PredatesSessionRenewal = true
		reset(f)
		tab, ok := s.openFilteredDashboard(t, u)
		if !ok {
			return
		}
		before := sessionIDs(s.sessions(t))
		s.em.Advance(23 * time.Hour)
		p := waitRenewed(t, tab)
		waitEmbed(t, tab, "the embed ready again in a new document, March only", func(e embedState) bool {
			return ready(e) && !e.Marker && marchOnly(e)
		})
		if len(p.Renewed) != 1 || p.Renewed[0].InPlace {
			t.Errorf("session-renewed %+v, want one, by reload", p.Renewed)
		}
		for _, name := range []string{"session-expired", "session-expiring"} {
			if slices.Contains(p.Events, name) {
				t.Errorf("the older platform sent %s (events %v)", name, p.Events)
			}
		}
		if n := len(mintedSince(before, s.sessions(t))); n != 1 {
			t.Errorf("minted %d sessions, want 1", n)
		}
		s.signOut(t, tab)
	})
}

// marchOnly reports whether the embed shows rows, all of March 2025.
func marchOnly(e embedState) bool {
	return len(e.Rows) > 0 && allRows(e, func(r embedRow) bool { return strings.HasPrefix(r.Month, "2025-03") })
}

// openFilteredDashboard signs u in, opens the first dashboard, filters it
// to March through the filter bar (the host script's setFilter), marks
// the embed's document and starts recording the frame's events.
func (s *stack) openFilteredDashboard(t *testing.T, u demoUser) (context.Context, bool) {
	t.Helper()
	tab, ok := s.openLiveDashboard(t, u)
	if !ok {
		return tab, false
	}
	chooseFilter(t, tab, "sales.month", "2025-03")
	waitEmbed(t, tab, "only March rows", marchOnly)
	markEmbed(t, tab)
	evalHost(t, tab, "record the frame's events", `(() => {
		window.__renew = {events: [], renewed: []};
		embedkit.frame(document.getElementById("embed-frame")).on("*", (e) => {
			window.__renew.events.push(e.name);
			if (e.name === "session-renewed") window.__renew.renewed.push({inPlace: e.payload.inPlace, reason: e.payload.reason});
		});
	})()`)
	return tab, true
}

// renewProbe is what the page recorded of its frame's events.
type renewProbe struct {
	Events  []string `json:"events"`
	Renewed []struct {
		InPlace bool   `json:"inPlace"`
		Reason  string `json:"reason"`
	} `json:"renewed"`
}

const renewProbeJS = `JSON.stringify(window.__renew)`

func readRenewProbe(t *testing.T, tab context.Context) renewProbe {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	p, err := readPage[renewProbe](ctx, renewProbeJS)
	if err != nil {
		t.Fatalf("read the recorded events: %v", err)
	}
	return p
}

// waitRenewed waits until the page has heard session-renewed.
func waitRenewed(t *testing.T, tab context.Context) renewProbe {
	t.Helper()
	return waitPage(t, tab, "session-renewed", renewProbeJS, func(p renewProbe) bool { return len(p.Renewed) > 0 })
}

// revokeFirstSessionAnswer revokes, at the platform, the session id of
// the next answer of the session endpoint before the page gets it, so the
// set-session that carries it is refused. Later answers pass unchanged.
func revokeFirstSessionAnswer(t *testing.T, s *stack, tab context.Context) {
	t.Helper()
	platform, err := embedkit.New(s.emulator, "ek_dev_only_admin_all")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(tab)
	t.Cleanup(cancel)
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{
		{URLPattern: "*/embed/session", RequestStage: fetch.RequestStageResponse},
	}}); err != nil {
		t.Fatalf("intercept the session endpoint: %v", err)
	}
	t.Cleanup(func() { _, _ = chromedp.Call(ctx, fetch.Disable, cdp.Empty{}) })
	var done atomic.Bool
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if ev.Request.Method != http.MethodPost || done.Load() {
				_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				continue
			}
			done.Store(true)
			body, err := chromedp.Call(ctx, fetch.GetResponseBody, fetch.GetResponseBodyParams{RequestID: ev.RequestID})
			raw := body.Body // decoded from base64 already
			var answer struct {
				SessionID string `json:"sessionId"`
			}
			if err == nil {
				err = json.Unmarshal(raw, &answer)
			}
			if err == nil {
				rctx, rcancel := context.WithTimeout(context.Background(), stepTimeout)
				err = platform.RevokeSession(rctx, answer.SessionID)
				rcancel()
			}
			if err != nil {
				t.Errorf("revoke the session endpoint's answer: %v", err)
			}
			_, _ = chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
				RequestID: ev.RequestID, ResponseCode: ev.ResponseStatusCode, ResponseHeaders: ev.ResponseHeaders,
				Body: raw,
			})
		}
	}()
}
