package embedkittest_test

import (
	"crypto/rand"
	"fmt"
	"html/template"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"sync"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

// A host app whose logins live on the server (as with alexedwards/scs or
// a database): the cookie holds a random token and nothing else, so a
// test cannot make a signed-in request by itself. It signs in through
// the app's own login route instead, as a browser does: an http.Client
// with a cookie jar against the app on an httptest.Server. Then it loads
// the dashboard page, checked for secrets, logs out, and checks that
// logout revoked the viewer's sessions and ended the login.
func Example_cookieJar() {
	t := newExampleT() // in a host app's test, the test's *testing.T
	defer t.finish()

	p := embedkittest.NewPlatform(t)
	srv := httptest.NewServer(newServerSessionApp(t, p))
	defer srv.Close()

	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar} // keeps the app's cookie, follows redirects

	// Sign in through the app's login route; it answers 303 to /sales.
	resp, err := client.PostForm(srv.URL+"/login", url.Values{"user": {"ana"}, "password": {"ana-test-pass"}})
	if err != nil {
		t.Fatal(err)
	}
	embedkittest.CheckResponse(t, p, resp, embedkittest.AllowIframeSrc())
	resp.Body.Close()
	fmt.Println("signed in:", resp.StatusCode, resp.Request.URL.Path)

	// Load the page again: a fresh session each time.
	resp, err = client.Get(srv.URL + "/sales")
	if err != nil {
		t.Fatal(err)
	}
	embedkittest.CheckResponse(t, p, resp, embedkittest.AllowIframeSrc())
	resp.Body.Close()
	fmt.Println("page:", resp.StatusCode)

	// Log out (POST, as the kit's logout takes), then try the page again.
	resp, err = client.PostForm(srv.URL+"/logout", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	embedkittest.AssertRevoked(t, p, "ana")
	resp, err = client.Get(srv.URL + "/sales")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("after logout:", resp.StatusCode, resp.Request.URL.Path)
	fmt.Println("sessions minted:", len(p.Emulator().Sessions()))
	// Output:
	// signed in: 200 /sales
	// page: 200
	// after logout: 200 /login
	// sessions minted: 2
}

// newServerSessionApp is a small host app with server-side logins: its
// login route checks a password and keeps the login in a map under a
// random token, the only thing its cookie holds.
func newServerSessionApp(t *exampleT, p *embedkittest.Platform) http.Handler {
	var mu sync.Mutex
	logins := map[string]string{} // token → user
	const cookie = "app_session"
	current := func(r *http.Request) (token, user string) {
		c, err := r.Cookie(cookie)
		if err != nil {
			return "", ""
		}
		mu.Lock()
		defer mu.Unlock()
		return c.Value, logins[c.Value]
	}

	cfg := p.KitConfig()
	cfg.Identity = middleware.IdentityFunc(func(r *http.Request) (*middleware.Viewer, error) {
		token, user := current(r)
		if user == "" {
			return nil, middleware.ErrNoViewer
		}
		// SessionKey is the login's own key: logout revokes exactly what
		// this login minted.
		return &middleware.Viewer{Subject: user, SessionKey: token}, nil
	})
	cfg.Store = memstore.New()
	sales := middleware.Target{Kind: middleware.KindDashboard, PublicID: "sales-overview"}
	cfg.Targets = map[string]middleware.Target{"sales": sales}
	cfg.Paths.Login = "/login"
	kit, err := middleware.New(cfg)
	if err != nil {
		t.Fatal(err)
	}

	page := template.Must(template.New("sales").Parse(`<iframe src="{{.}}" data-embedkit data-embedkit-target="sales"></iframe>`))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<form method="post" action="/login"><input name="user"><input name="password" type="password"></form>`)
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		if r.PostFormValue("user") != "ana" || r.PostFormValue("password") != "ana-test-pass" {
			http.Error(w, "wrong user or password", http.StatusUnauthorized)
			return
		}
		token := rand.Text()
		mu.Lock()
		logins[token] = "ana"
		mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: cookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
		http.Redirect(w, r, "/sales", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /sales", func(w http.ResponseWriter, r *http.Request) {
		src, err := kit.FrameURL(w, r, sales)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		_ = page.Execute(w, src)
	})
	mux.Handle("/embed/session", kit.SessionHandler())
	mux.Handle("/logout", kit.Logout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, _ := current(r)
		mu.Lock()
		delete(logins, token) // the login ends on the server
		mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: cookie, Path: "/", MaxAge: -1})
		http.Redirect(w, r, "/login", http.StatusSeeOther)
	})))
	return mux
}
