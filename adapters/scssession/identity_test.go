package scssession_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/alexedwards/scs/v2"
	"github.com/alexedwards/scs/v2/memstore"

	storememstore "github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/adapters/scssession"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

// app is a host app on scs: login, a page that mints, logout, behind a
// Kit on an emulated platform. mount wraps the mux as the app serves it.
type app struct {
	t   *testing.T
	p   *embedkittest.Platform
	sm  *scs.SessionManager
	id  *scssession.Identity
	kit *middleware.Kit
	srv *httptest.Server
}

var sales = middleware.Target{Kind: middleware.KindDashboard, PublicID: "sales-overview"}

func newApp(t *testing.T, store scs.Store, mount func(sm *scs.SessionManager, mux *http.ServeMux) http.Handler, opts ...func(*middleware.Config)) *app {
	t.Helper()
	p := embedkittest.NewPlatform(t)
	sm := newManager(store)
	id := scssession.New(sm)
	cfg := p.KitConfig()
	cfg.Identity = id
	cfg.Store = storememstore.New()
	cfg.Targets = map[string]middleware.Target{"sales": sales}
	for _, o := range opts {
		o(&cfg)
	}
	kit, err := middleware.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	id.Revoker = kit
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		v := &middleware.Viewer{Subject: r.FormValue("subject"), ProviderSID: r.FormValue("sid")}
		if err := id.Save(w, r, v); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		http.Redirect(w, r, "/sales", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /sales", func(w http.ResponseWriter, r *http.Request) {
		src, err := kit.FrameURL(w, r, sales)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		_, _ = w.Write([]byte(`<iframe src="` + src + `"></iframe>`))
	})
	mux.Handle("POST /logout", kit.Logout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := id.Clear(w, r); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})))
	srv := httptest.NewServer(mount(sm, mux))
	t.Cleanup(srv.Close)
	return &app{t: t, p: p, sm: sm, id: id, kit: kit, srv: srv}
}

// inside mounts the mux inside LoadAndSave, as the docs say.
func inside(sm *scs.SessionManager, mux *http.ServeMux) http.Handler { return sm.LoadAndSave(mux) }

func (a *app) browser() *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		a.t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func (a *app) send(c *http.Client, method, path string, form url.Values) (int, string) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.srv.URL+path+"?"+form.Encode(), nil)
	if err != nil {
		a.t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, b.String()
}

func (a *app) signIn(c *http.Client, subject, sid string) {
	a.t.Helper()
	if code, body := a.send(c, http.MethodPost, "/login", url.Values{"subject": {subject}, "sid": {sid}}); code != http.StatusSeeOther {
		a.t.Fatalf("sign-in of %s: %d %s", subject, code, body)
	}
}

func (a *app) load(c *http.Client) int {
	a.t.Helper()
	code, _ := a.send(c, http.MethodGet, "/sales", nil)
	return code
}

// TestFlow: sign-in, page loads that mint, a sign-in over the login that
// revokes its embeds, logout that revokes and leaves the old scs cookie
// signing nobody in, through HTTP with real scs on each store.
func TestFlow(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		a := newApp(t, b.store(t), inside)
		c := a.browser()
		if code := a.load(c); code != http.StatusUnauthorized && code != http.StatusSeeOther {
			t.Errorf("page before sign-in: %d, want 401 or a redirect to login", code)
		}
		a.signIn(c, "ana", "")
		for range 2 {
			if code := a.load(c); code != http.StatusOK {
				t.Fatalf("page of ana: %d", code)
			}
		}
		embedkittest.AssertLive(t, a.p, "ana")
		u, _ := url.Parse(a.srv.URL)
		anaCookies := c.Jar.Cookies(u)

		a.signIn(c, "ben", "")
		embedkittest.AssertRevoked(t, a.p, "ana")
		if code := a.load(c); code != http.StatusOK {
			t.Fatalf("page of ben: %d", code)
		}
		embedkittest.AssertLive(t, a.p, "ben")
		stale := a.browser()
		stale.Jar.SetCookies(u, anaCookies)
		if code := a.load(stale); code == http.StatusOK {
			t.Error("ana's scs cookie, copied before ben signed in over her login, still loads a page")
		}

		benCookies := c.Jar.Cookies(u)
		if code, body := a.send(c, http.MethodPost, "/logout", nil); code != http.StatusSeeOther {
			t.Fatalf("logout: %d %s", code, body)
		}
		embedkittest.AssertRevoked(t, a.p, "ben")
		stale = a.browser()
		stale.Jar.SetCookies(u, benCookies)
		if code := a.load(stale); code == http.StatusOK {
			t.Error("ben's scs cookie, copied before his logout, still loads a page")
		}
	})
}

// TestMissingLoadAndSave: the kit's handlers mounted outside
// LoadAndSave answer 500 with ErrNoLoadAndSave in the log, never a panic,
// and Save, Viewer and Clear return ErrNoLoadAndSave.
func TestMissingLoadAndSave(t *testing.T) {
	a := newApp(t, memstore.New(), func(_ *scs.SessionManager, mux *http.ServeMux) http.Handler { return mux })
	c := a.browser()
	if code, body := a.send(c, http.MethodPost, "/login", url.Values{"subject": {"ana"}}); code != http.StatusInternalServerError || !strings.Contains(body, "LoadAndSave") {
		t.Errorf("login outside LoadAndSave: %d %q; want 500 naming LoadAndSave", code, body)
	}
	if code := a.load(c); code != http.StatusInternalServerError {
		t.Errorf("page outside LoadAndSave: %d, want 500", code)
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	w := httptest.NewRecorder()
	if err := a.id.Save(w, r, &middleware.Viewer{Subject: "ana"}); !errors.Is(err, scssession.ErrNoLoadAndSave) {
		t.Errorf("Save: %v, want ErrNoLoadAndSave", err)
	}
	if _, err := a.id.Viewer(r); !errors.Is(err, scssession.ErrNoLoadAndSave) {
		t.Errorf("Viewer: %v, want ErrNoLoadAndSave", err)
	}
	if err := a.id.Clear(w, r); !errors.Is(err, scssession.ErrNoLoadAndSave) {
		t.Errorf("Clear: %v, want ErrNoLoadAndSave", err)
	}
}

// TestSaveOverALoginNeedsARevoker: without Identity.Revoker, the first
// sign-in works and a sign-in over it is refused with ErrNoRevoker, and
// the earlier login stays.
func TestSaveOverALoginNeedsARevoker(t *testing.T) {
	a := newApp(t, memstore.New(), inside)
	a.id.Revoker = nil
	c := a.browser()
	a.signIn(c, "ana", "")
	code, body := a.send(c, http.MethodPost, "/login", url.Values{"subject": {"ben"}})
	if code != http.StatusInternalServerError || !strings.Contains(body, "Identity.Revoker") {
		t.Errorf("sign-in over a login without a Revoker: %d %q; want 500 naming Identity.Revoker", code, body)
	}
	if code := a.load(c); code != http.StatusOK {
		t.Errorf("ana's page after the refused sign-in: %d, want 200", code)
	}
	embedkittest.AssertLive(t, a.p, "ana")
}

// TestBackChannelLogout: EndingLogins(kit) ends every login of a subject,
// or of a provider session, in every browser, and revokes their embeds;
// another user's login and embeds are left alone.
func TestBackChannelLogout(t *testing.T) {
	tests := []struct {
		name string
		end  func(ctx context.Context, e *scssession.EndingLogins) error
	}{
		{"by subject", func(ctx context.Context, e *scssession.EndingLogins) error { return e.RevokeSubject(ctx, "ana") }},
		{"by sid", func(ctx context.Context, e *scssession.EndingLogins) error {
			return e.RevokeProviderSession(ctx, "sid-ana")
		}},
	}
	eachBackend(t, func(t *testing.T, b backend) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				a := newApp(t, b.store(t), inside)
				ana1, ana2, ben := a.browser(), a.browser(), a.browser()
				a.signIn(ana1, "ana", "sid-ana")
				a.signIn(ana2, "ana", "sid-ana")
				a.signIn(ben, "ben", "sid-ben")
				for _, c := range []*http.Client{ana1, ana2, ben} {
					if code := a.load(c); code != http.StatusOK {
						t.Fatalf("page: %d", code)
					}
				}
				if err := tt.end(t.Context(), a.id.EndingLogins(a.kit)); err != nil {
					t.Fatal(err)
				}
				embedkittest.AssertRevoked(t, a.p, "ana")
				embedkittest.AssertLive(t, a.p, "ben")
				for i, c := range []*http.Client{ana1, ana2} {
					if code := a.load(c); code == http.StatusOK {
						t.Errorf("ana's browser %d still loads a page after the back-channel logout", i+1)
					}
				}
				if code := a.load(ben); code != http.StatusOK {
					t.Errorf("ben's page after ana's back-channel logout: %d", code)
				}
				a.signIn(ana1, "ana", "sid-ana")
				if code := a.load(ana1); code != http.StatusOK {
					t.Errorf("ana's new login in the same provider session: %d", code)
				}
			})
		}
	})
}

// TestBackChannelLogoutWithoutIteration: a store that cannot list its
// sessions gives ErrNotIterable, and the embeds are revoked all the same.
func TestBackChannelLogoutWithoutIteration(t *testing.T) {
	a := newApp(t, noIteration{memstore.New()}, inside)
	c := a.browser()
	a.signIn(c, "ana", "sid-ana")
	if code := a.load(c); code != http.StatusOK {
		t.Fatalf("page: %d", code)
	}
	err := a.id.EndingLogins(a.kit).RevokeSubject(t.Context(), "ana")
	if !errors.Is(err, scssession.ErrNotIterable) {
		t.Errorf("RevokeSubject on a store without All: %v, want ErrNotIterable", err)
	}
	embedkittest.AssertRevoked(t, a.p, "ana")
}

// failingDelete is a store whose Delete fails while fail is set, as a
// store that is partly down.
type failingDelete struct {
	scs.Store
	fail *atomic.Bool
}

func (f failingDelete) Delete(token string) error {
	if f.fail.Load() {
		return errors.New("store: delete refused")
	}
	return f.Store.Delete(token)
}

// TestClearWhenTheStoreCannotDelete: logout while the store cannot delete
// the session still signs the browser out (the session is written back
// without the viewer), and Clear reports the failure.
func TestClearWhenTheStoreCannotDelete(t *testing.T) {
	var fail atomic.Bool
	a := newApp(t, failingDelete{memstore.New(), &fail}, inside)
	c := a.browser()
	a.signIn(c, "ana", "")
	if code := a.load(c); code != http.StatusOK {
		t.Fatalf("page: %d", code)
	}
	fail.Store(true)
	if code, body := a.send(c, http.MethodPost, "/logout", nil); code != http.StatusInternalServerError || !strings.Contains(body, "delete refused") {
		t.Errorf("logout while the store cannot delete: %d %q; want Clear's error", code, body)
	}
	embedkittest.AssertRevoked(t, a.p, "ana")
	if code := a.load(c); code == http.StatusOK {
		t.Error("the browser still loads a page after a logout whose delete failed")
	}
}
