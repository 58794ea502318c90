package e2e

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/middleware"
)

// hostString evaluates expr in tab's page and returns its string value.
func hostString(t *testing.T, tab context.Context, what, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// switchHost is a host app with the kit in front of the emulator, whose
// registry has plain dashboards (sales with a preset region filter,
// regional), one the platform refuses to embed (locked: allowEmbed
// false), one with a security context of its own (team) and one with
// other chrome (bare). The viewer is always signed in.
type switchHost struct {
	host string
	em   *emulator.Server
}

func newSwitchHost(t *testing.T) *switchHost {
	t.Helper()
	f := emulator.DemoFixture()
	off := false
	dashboards := &f.Deployments[0].Dashboards
	for i := range *dashboards {
		if (*dashboards)[i].PublicID == "project-analytics" {
			(*dashboards)[i].AllowEmbed = &off
		}
	}
	*dashboards = append(*dashboards,
		emulator.Dashboard{ID: 41, PublicID: "team-board", Title: "Team board", Published: true, Managers: []string{"admin"}},
		emulator.Dashboard{ID: 42, PublicID: "bare-board", Title: "Bare board", Published: true, Managers: []string{"admin"}})
	em, err := emulator.New(f)
	if err != nil {
		t.Fatal(err)
	}
	platform := httptest.NewServer(em)
	t.Cleanup(platform.Close)
	client, err := embedkit.New(platform.URL, "ek_dev_only_admin_all")
	if err != nil {
		t.Fatal(err)
	}
	dash := func(id string) middleware.Target {
		return middleware.Target{Kind: middleware.KindDashboard, PublicID: id}
	}
	sales := dash("sales-overview")
	sales.Controls = embedkit.DashboardControls{Filters: []embedkit.DashboardFilter{{Member: "sales.region", Value: "EMEA"}}}
	team := dash("team-board")
	team.SecurityContext = map[string]any{"team": "north"}
	bare := dash("bare-board")
	bare.Chrome = middleware.Chrome{HideDashboardTitle: true}
	kit, err := middleware.New(middleware.Config{
		Platform: client,
		Identity: middleware.IdentityFunc(func(r *http.Request) (*middleware.Viewer, error) {
			return &middleware.Viewer{Subject: "ana", SessionKey: "login-of-ana", Groups: []string{"sales", "emea"}}, nil
		}),
		Store:       memstore.New(),
		Policy:      middleware.Policy{DeploymentID: 1, Groups: middleware.GroupOptions{Allowed: []string{"sales", "emea"}}},
		PlatformURL: platform.URL,
		Targets: map[string]middleware.Target{
			"sales": sales, "regional": dash("regional-performance"), "locked": dash("project-analytics"),
			"team": team, "bare": bare,
		},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/embed/frame/", kit.FrameHandler())
	mux.Handle("/embed/session", kit.SessionHandler())
	mux.Handle("/embed/host.js", kit.HostScript())
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><meta charset="utf-8"><title>switch</title>
<script src="/embed/host.js"></script>
<script>
window.__events = [];
window.note = (name) => (e) => window.__events.push(name + " " + (e.payload.publicId || e.payload.path || e.payload.message || ""));
</script><body></body>`)
	})
	host := httptest.NewServer(mux)
	t.Cleanup(host.Close)
	return &switchHost{host: host.URL, em: em}
}

// mints is how many sessions the emulator has minted.
func (s *switchHost) mints() int { return len(s.em.Sessions()) }

// switchEmbed is what the test reads of the embedded page.
type switchEmbed struct {
	Marker  bool            `json:"marker"`
	Path    string          `json:"path"`
	State   string          `json:"state"`
	Status  string          `json:"status"`
	Filters json.RawMessage `json:"filters"`
}

const switchEmbedJS = `(() => {
	const root = document.querySelector("#embed");
	const status = document.querySelector("#status");
	return JSON.stringify({
		marker: window.__marker === 1,
		path: location.pathname,
		state: status ? status.dataset.state || "" : "",
		status: status ? status.textContent.trim() : "",
		filters: root ? JSON.parse(root.getAttribute("data-filters") || "{}") : null
	});
})()`

func waitSwitchEmbed(t *testing.T, tab context.Context, what string, ok func(switchEmbed) bool) switchEmbed {
	t.Helper()
	var last switchEmbed
	err := pollUntil(tab, func(ctx context.Context) (bool, error) {
		raw, err := inEmbed[string](ctx, switchEmbedJS)
		if err != nil {
			return false, nil
		}
		if err := json.Unmarshal([]byte(raw), &last); err != nil {
			return false, err
		}
		return ok(last), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v (last seen %+v)", what, err, last)
	}
	return last
}

// TestSwitchTargetsInBrowser: in Chromium against the emulator, a frame
// switched between two plain dashboards moves in place (the same iframe
// element and document, no new session, ready not fired again), and the
// old target's filters, preset and set by the host, do not reach the new
// one; a switch to a target with its own security context or other
// chrome is a new frame and a new session; a move to a dashboard the
// platform refuses ends as a new frame that shows the refusal, and
// show() rejects; <embedkit-frame target> moves in place too.
func TestSwitchTargetsInBrowser(t *testing.T) {
	s := newSwitchHost(t)
	browser := behaviourBrowser(t)
	tab, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	start(t, tab, cancel, "open a tab")
	do(t, tab, "open the host page", chromedp.Navigate(s.host+"/page"))

	hostString(t, tab, "add the frame", `(async () => {
		const el = document.createElement("iframe");
		el.id = "embed-frame";
		el.setAttribute("data-embedkit", "");
		el.setAttribute("data-embedkit-target", "sales");
		el.setAttribute("src", "/embed/frame/sales");
		document.body.appendChild(el);
		const f = embedkit.frame(el);
		for (const n of ["ready", "view", "dashboard-loaded", "error"]) f.on(n, note(n));
		window.__loaded = new Promise((r) => f.on("dashboard-loaded", r));
		el.__mark = true;
		await f.ready;
		await window.__loaded;
		await f.setFilter("sales.month", "2025-03");
		return "";
	})()`)
	e := waitSwitchEmbed(t, tab, "sales with its preset and the host's filter", func(e switchEmbed) bool {
		return e.Path == "/embed/dashboard/sales-overview" && strings.Contains(string(e.Filters), "2025-03") && strings.Contains(string(e.Filters), "EMEA")
	})
	markEmbed(t, tab)
	mints := s.mints()

	// Plain to plain: in place.
	got := hostString(t, tab, "show regional", `(async () => {
		const f = embedkit.frame("#embed-frame");
		const ev = await f.show("regional");
		const el = document.querySelector("iframe[data-embedkit]");
		return JSON.stringify({publicId: ev.payload.publicId, same: el.__mark === true, iframes: document.querySelectorAll("iframe").length,
			readies: __events.filter((x) => x.startsWith("ready")).length, target: f.target, state: f.state});
	})()`)
	if got != `{"publicId":"regional-performance","same":true,"iframes":1,"readies":1,"target":"regional","state":"ready"}` {
		t.Errorf("after show(regional): %s", got)
	}
	e = waitSwitchEmbed(t, tab, "regional in the same document", func(e switchEmbed) bool { return e.Path == "/embed/dashboard/regional-performance" })
	if !e.Marker {
		t.Error("show(regional) loaded a new document; want a move in place")
	}
	if string(e.Filters) != "{}" {
		t.Errorf("the moved frame holds filters %s; want none of the old target's", e.Filters)
	}
	if n := s.mints(); n != mints {
		t.Errorf("the move in place minted %d sessions, want none", n-mints)
	}

	// Another security context, other chrome: a new frame, a new session.
	for _, to := range []string{"team", "bare"} {
		mints = s.mints()
		markEmbed(t, tab)
		got = hostString(t, tab, "show "+to, `(async () => {
			const f = embedkit.frame("#embed-frame");
			const ev = await f.show(`+jsString(to)+`);
			return ev.payload.publicId + " " + (document.querySelector("iframe[data-embedkit]").__mark === true);
		})()`)
		if got != to+"-board true" {
			t.Errorf("show(%s): %q, want its dashboard in the same iframe element", to, got)
		}
		e = waitSwitchEmbed(t, tab, to+" loaded", func(e switchEmbed) bool { return e.Path == "/embed/dashboard/"+to+"-board" })
		if e.Marker {
			t.Errorf("show(%s) kept the document; want a new frame", to)
		}
		if n := s.mints(); n != mints+1 {
			t.Errorf("show(%s) minted %d sessions, want 1", to, n-mints)
		}
	}

	// Back to sales (a new frame: bare's chrome differs), then a move to
	// the refused dashboard: in place first, refused, then a new frame
	// that shows the refusal; show() rejects.
	hostString(t, tab, "show sales", `embedkit.frame("#embed-frame").show("sales").then(() => "")`)
	waitSwitchEmbed(t, tab, "sales", func(e switchEmbed) bool { return e.Path == "/embed/dashboard/sales-overview" && e.State == "ready" })
	mints = s.mints()
	got = hostString(t, tab, "show locked", `embedkit.frame("#embed-frame").show("locked").then(() => "shown", (err) => err.reason)`)
	if got != "refused" {
		t.Errorf("show(locked) settled as %q, want rejected as refused (events %s)", got, hostString(t, tab, "events", `JSON.stringify(__events.slice(-8))`))
	}
	e = waitSwitchEmbed(t, tab, "the refusal", func(e switchEmbed) bool { return e.Path == "/embed/dashboard/project-analytics" && e.State == "error" })
	if !strings.Contains(e.Status, "not allowed") {
		t.Errorf("the refused dashboard's page says %q", e.Status)
	}
	if src := hostString(t, tab, "the iframe's src", `document.querySelector("iframe[data-embedkit]").getAttribute("src")`); src != "/embed/frame/locked" {
		t.Errorf("after the refused move the src is %q, want the new frame of locked", src)
	}
	if n := s.mints(); n < mints+1 {
		t.Errorf("the fallback minted %d sessions, want a new frame's", n-mints)
	}

	// <embedkit-frame target>: in place between plain dashboards.
	hostString(t, tab, "an <embedkit-frame>", `(async () => {
		document.querySelector("iframe[data-embedkit]").remove();
		const el = document.createElement("embedkit-frame");
		el.setAttribute("target", "sales");
		document.body.appendChild(el);
		const iframe = el.querySelector("iframe");
		iframe.id = "embed-frame";
		await el.ready;
		await new Promise((r) => el.frame.on("dashboard-loaded", r));
		return "";
	})()`)
	markEmbed(t, tab)
	mints = s.mints()
	got = hostString(t, tab, "switch the element", `(async () => {
		const el = document.querySelector("embedkit-frame");
		const ev = await el.show("regional");
		return ev.payload.publicId + " " + el.getAttribute("target") + " " + el.querySelectorAll("iframe").length;
	})()`)
	if got != "regional-performance regional 1" {
		t.Errorf("<embedkit-frame> show(regional): %q", got)
	}
	if e = waitSwitchEmbed(t, tab, "regional", func(e switchEmbed) bool { return e.Path == "/embed/dashboard/regional-performance" }); !e.Marker {
		t.Error("<embedkit-frame> switch loaded a new document; want a move in place")
	}
	if n := s.mints(); n != mints {
		t.Errorf("<embedkit-frame> move minted %d sessions, want none", n-mints)
	}
}
