package middleware

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// crossSitePage is a host app with one FrameURL page, /sales, which
// writes the iframe src as its body, and the frame endpoint beside it, as
// the README's ten lines mount them.
func crossSitePage(tk *testKit, target func(*Kit) Target) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sales", func(w http.ResponseWriter, r *http.Request) {
		src, err := tk.FrameURL(w, r, target(tk.Kit))
		if err != nil {
			tk.ServeError(w, r, err)
			return
		}
		_, _ = w.Write([]byte(src))
	})
	mux.Handle(tk.FramePrefix(), tk.FrameHandler())
	return mux
}

// registered is the target registered as sales, as a page gets it.
func registered(k *Kit) Target {
	t, _ := k.Target("sales")
	return t
}

// navigation is a top-level navigation of the browser of user to target,
// sent by a page of site ("none" for a typed address or a desktop mail
// client's link).
func navigation(target, user, site string) *http.Request {
	r := request(http.MethodGet, target, user)
	r.Header.Set("Sec-Fetch-Site", site)
	r.Header.Set("Sec-Fetch-Mode", "navigate")
	r.Header.Set("Sec-Fetch-Dest", "document")
	return r
}

// iframeLoad is the load of src by an iframe of the host's own page.
func iframeLoad(src, user string) *http.Request {
	r := request(http.MethodGet, src, user)
	r.Header.Set("Sec-Fetch-Mode", "navigate")
	r.Header.Set("Sec-Fetch-Dest", "iframe")
	return r
}

// TestFrameURLCrossSiteNavigationMintsNothing: a site that keeps
// navigating a popup to the viewer's FrameURL page (SameSite=Lax cookies
// ride along) mints nothing with the page, and its frames draw on a
// bucket of their own: the viewer's own pages and frames still mint. The
// issue's reproduction: 125 cross-site navigations minted 120 sessions and
// then left the viewer's own loads at 429.
func TestFrameURLCrossSiteNavigationMintsNothing(t *testing.T) {
	tk := newTestKit(t, nil)
	h := crossSitePage(tk, registered)

	var srcs []string
	for i := range 125 {
		w := serve(h, navigation("/sales", "ana", "cross-site"))
		if w.Code != http.StatusOK || w.Header().Get("Cache-Control") != "no-store" {
			t.Fatalf("cross-site navigation %d: %d, Cache-Control %q, want 200 no-store", i, w.Code, w.Header().Get("Cache-Control"))
		}
		srcs = append(srcs, w.Body.String())
	}
	if n := len(tk.platform.mintedIDs()); n != 0 {
		t.Fatalf("125 cross-site navigations minted %d sessions, want 0", n)
	}
	if want := "/embed/frame/sales?" + ArrivalParam + "=1"; srcs[0] != want {
		t.Fatalf("iframe src for a cross-site navigation %q, want the frame endpoint's %q", srcs[0], want)
	}

	// In a browser each of those pages loads its iframe, a same-origin
	// load: the arrivals' bucket allows 10, then 429.
	loaded, limited := 0, 0
	for _, src := range srcs {
		switch w := serve(h, iframeLoad(src, "ana")); w.Code {
		case http.StatusSeeOther:
			loaded++
		case http.StatusTooManyRequests:
			limited++
		default:
			t.Fatalf("iframe load of %s: %d", src, w.Code)
		}
	}
	if loaded != arrivalBurst || limited != 125-arrivalBurst {
		t.Errorf("the popup's frames: %d loaded, %d refused; want %d, %d", loaded, limited, arrivalBurst, 125-arrivalBurst)
	}

	// The viewer's own page and frame load as ever.
	w := serve(h, navigation("/sales", "ana", "same-origin"))
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Body.String(), "https://acme.example.com/embed/dashboard/dash-sales?") {
		t.Fatalf("the viewer's own page: %d %q, want a minted platform URL", w.Code, w.Body)
	}
	frameLocation(t, serve(h, iframeLoad("/embed/frame/sales", "ana")))
	if w := serve(h, navigation("/sales", "ana", "none")); !strings.HasPrefix(w.Body.String(), "https://acme.example.com/") {
		t.Errorf("a typed address: %d %q, want a minted platform URL", w.Code, w.Body)
	}
	if n := len(tk.platform.mintedIDs()); n != arrivalBurst+3 {
		t.Errorf("minted %d sessions in all, want %d", n, arrivalBurst+3)
	}

	// Another viewer's arrivals are their own.
	frameLocation(t, serve(h, iframeLoad(serve(h, navigation("/sales", "ben", "cross-site")).Body.String(), "ben")))

	// The arrivals' bucket refills: one more every arrivalInterval.
	tk.now = tk.now.Add(arrivalInterval)
	frameLocation(t, serve(h, iframeLoad(srcs[0], "ana")))
	if w := serve(h, iframeLoad(srcs[0], "ana")); w.Code != http.StatusTooManyRequests {
		t.Errorf("second arrival after one interval: %d, want 429", w.Code)
	}
}

// TestFrameURLLinkFromMail: a link in a web mail is a cross-site
// navigation; the page it opens gets a frame that works, minted by the
// frame endpoint on the iframe's load, with the page's locale and the
// registered target's settings.
func TestFrameURLLinkFromMail(t *testing.T) {
	tk := newTestKit(t, nil)
	h := crossSitePage(tk, registered)
	nav := navigation("/sales", "ana", "cross-site")
	nav.Header.Set("Accept-Language", "de-AT,de;q=0.9")
	page := serve(h, nav)
	if page.Code != http.StatusOK {
		t.Fatalf("page: %d %q", page.Code, page.Body)
	}
	load := iframeLoad(page.Body.String(), "ana")
	load.Header.Set("Accept-Language", "de-AT,de;q=0.9")
	loc := frameLocation(t, serve(h, load))
	if loc.Path != "/embed/dashboard/dash-sales" || loc.Query().Get("locale") != "de-DE" || loc.Query().Get("allowExport") != "true" {
		t.Errorf("the frame went to %s, want the registered sales dashboard in de-DE", loc.Redacted())
	}
	if n := len(tk.platform.mintedIDs()); n != 1 {
		t.Errorf("minted %d sessions, want 1 (the iframe's load)", n)
	}
}

// TestFrameURLCrossSiteCases: which navigations mint as the page
// renders, and what the others get.
func TestFrameURLCrossSiteCases(t *testing.T) {
	const arrival = "/embed/frame/sales?" + ArrivalParam + "=1"
	changed := func(k *Kit) Target {
		t := registered(k)
		t.SecurityContext = map[string]any{"project": 42}
		return t
	}
	tests := []struct {
		name    string
		mod     func(*Config)
		target  func(*Kit) Target
		headers map[string]string
		status  int
		src     string // "" for a minted platform URL
		body    string
	}{
		{"same-origin", nil, registered, map[string]string{"Sec-Fetch-Site": "same-origin"}, 200, "", ""},
		{"typed address or desktop mail client", nil, registered, map[string]string{"Sec-Fetch-Site": "none"}, 200, "", ""},
		{"cross-site", nil, registered, map[string]string{"Sec-Fetch-Site": "cross-site"}, 200, arrival, ""},
		{"a sibling origin of the same site", nil, registered, map[string]string{"Sec-Fetch-Site": "same-site", "Referer": "https://user-content.example.com/x"}, 200, arrival, ""},
		{"a trusted sibling origin", func(c *Config) { c.Origins.Trusted = []string{"https://admin.example.com"} }, registered,
			map[string]string{"Sec-Fetch-Site": "same-site", "Referer": "https://admin.example.com/"}, 200, "", ""},
		{"no fetch metadata, a Referer of another site", nil, registered, map[string]string{"Sec-Fetch-Site": "", "Referer": "https://mail.example.net/inbox"}, 200, arrival, ""},
		{"no fetch metadata, a Referer of this origin", nil, registered, map[string]string{"Sec-Fetch-Site": "", "Referer": "http://example.com/home"}, 200, "", ""},
		{"no fetch metadata, no Referer", nil, registered, map[string]string{"Sec-Fetch-Site": ""}, 200, "", ""},
		{"no fetch metadata, RequireFetchMetadata", func(c *Config) { c.Origins.RequireFetchMetadata = true }, registered, map[string]string{"Sec-Fetch-Site": ""}, 200, arrival, ""},
		{"cross-site, a target changed for the request", nil, changed, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "-", "opened from another site"},
		{"cross-site, a route-scoped target", func(c *Config) {
			s := c.Targets["sales"]
			s.RouteScoped = true
			c.Targets["sales"] = s
		}, registered, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "-", "opened from another site"},
		{"cross-site, InsecureMintOnCrossSiteNavigation", func(c *Config) { c.Origins.InsecureMintOnCrossSiteNavigation = true }, registered,
			map[string]string{"Sec-Fetch-Site": "cross-site"}, 200, "", ""},
		{"cross-site, signed out", func(c *Config) { c.Paths.Login = "/login" }, registered, map[string]string{"Sec-Fetch-Site": "cross-site", "X-User": ""}, 303, "-", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := newTestKit(t, tt.mod)
			r := navigation("/sales", "ana", "same-origin")
			for k, v := range tt.headers {
				if v == "" {
					r.Header.Del(k)
				} else {
					r.Header.Set(k, v)
				}
			}
			w := serve(crossSitePage(tk, tt.target), r)
			if w.Code != tt.status || w.Header().Get("Cache-Control") != "no-store" {
				t.Fatalf("%d, Cache-Control %q; want %d, no-store; body %q", w.Code, w.Header().Get("Cache-Control"), tt.status, w.Body)
			}
			minted := len(tk.platform.mintedIDs())
			switch tt.src {
			case "":
				if minted != 1 || !strings.HasPrefix(w.Body.String(), "https://acme.example.com/embed/") {
					t.Errorf("minted %d, src %q; want a minted platform URL", minted, w.Body)
				}
			default:
				if minted != 0 {
					t.Errorf("minted %d sessions, want none", minted)
				}
				if tt.src != "-" && w.Body.String() != tt.src {
					t.Errorf("src %q, want %q", w.Body, tt.src)
				}
			}
			if !strings.Contains(w.Body.String(), tt.body) {
				t.Errorf("body %q, want %q in it", w.Body, tt.body)
			}
			if tt.src == arrival {
				// The src works in the page's iframe, a same-origin load;
				// with RequireFetchMetadata the frame endpoint refuses a
				// browser that sends none, as it always did.
				load := iframeLoad(w.Body.String(), "ana")
				if tk.cfg.Origins.RequireFetchMetadata {
					load.Header.Del("Sec-Fetch-Site")
					if got := serve(crossSitePage(tk, tt.target), load); got.Code != http.StatusForbidden {
						t.Errorf("the frame endpoint answered %d to a browser without fetch metadata, want 403", got.Code)
					}
					return
				}
				frameLocation(t, serve(crossSitePage(tk, tt.target), load))
			}
		})
	}
}

// TestFrameURLCrossSiteError: the error FrameURL returns for a page it
// cannot give a frame is ErrCrossSite (403), and the page says what to do.
func TestFrameURLCrossSiteError(t *testing.T) {
	tk := newTestKit(t, nil)
	t2 := registered(tk.Kit)
	t2.Locale = "fr-FR"
	_, err := tk.FrameURL(httptest.NewRecorder(), navigation("/sales", "ana", "cross-site"), t2)
	if !errors.Is(err, ErrCrossSite) || !strings.Contains(err.Error(), "FrameFunc") {
		t.Fatalf("err = %v, want ErrCrossSite naming FrameFunc", err)
	}
	if s, _ := ErrorStatus(err); s != http.StatusForbidden {
		t.Errorf("status %d, want 403", s)
	}
	if OutcomeOf(err) != "" {
		t.Errorf("OutcomeOf = %q, want none: nothing was minted", OutcomeOf(err))
	}
}
