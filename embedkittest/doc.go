// Package embedkittest helps a host application test its embedding: it
// runs the platform emulator for one test and checks the rules that are
// easy to break and hard to see, that no secret reaches a log or a
// response and that logout revokes what was minted.
//
// # The short path
//
// A host app's test, with the app's own Identity, store and targets
// (myapp here); the package Example (example_test.go) runs the same
// steps:
//
//	func TestLogoutRevokesEmbeds(t *testing.T) {
//		p := embedkittest.NewPlatform(t) // emulator, fresh API key, client; closed when t ends
//		cfg := p.KitConfig()             // Platform, PlatformURL, Policy.DeploymentID, a checked Logger
//		cfg.Identity, cfg.Store, cfg.Targets = myapp.Identity(), memstore.New(), myapp.Targets
//		kit, err := middleware.New(cfg)
//		if err != nil {
//			t.Fatal(err)
//		}
//		app := myapp.Routes(kit) // the app's handler: its pages, /embed/session, /logout
//		w := embedkittest.NewRecorder(t, p, embedkittest.AllowIframeSrc())
//		app.ServeHTTP(w, myapp.SignedIn("ana", httptest.NewRequest("GET", "/sales", nil)))
//		app.ServeHTTP(httptest.NewRecorder(), myapp.SignedIn("ana", httptest.NewRequest("POST", "/logout", nil)))
//		embedkittest.AssertRevoked(t, p, "ana")
//	}
//
// myapp.SignedIn stands for a way to make a signed-in request without the
// app's login: it works where the Identity reads the request alone (a
// header from a trusted proxy, a cookie the test can seal with the app's
// keys). Where logins live on the server (alexedwards/scs, a database),
// sign in as a browser does: serve the app on an httptest.Server and use
// an http.Client with a cookie jar (net/http/cookiejar), which keeps the
// app's cookie from its login route to the page and to logout; the
// Example_cookieJar example (in this package's example_test.go, shown by
// go doc -http and pkg.go.dev, not by plain go doc) does this, and checks
// each response with CheckResponse:
//
//	srv := httptest.NewServer(app)
//	defer srv.Close()
//	jar, _ := cookiejar.New(nil)
//	client := &http.Client{Jar: jar}
//	resp, err := client.PostForm(srv.URL+"/login", url.Values{"user": {"ana"}, "password": {"test-pass"}})
//	// ... then client.Get(srv.URL + "/sales"), client.PostForm(srv.URL+"/logout", nil)
//	embedkittest.AssertRevoked(t, p, "ana")
//
// # Platform
//
// NewPlatform serves an emulator (package embedkit/emulator) on a
// loopback httptest server for the length of a test, with the demo fixture
// or one of the test's (WithFixture, WithFixtureFile), and adds a random
// API key: a test secret that opens nothing but this emulator. Client is
// an *embedkit.Client of it, Emulator the emulator itself, to inspect
// sessions and requests, inject faults and move its clock, and KitConfig
// a middleware.Config wired to it.
//
// # Secrets
//
// The Platform knows every secret it handed out: its API key and the
// fixture's keys, and, read from its own answers, each embed session id
// and each embed, metadata and data-API token; Platform.AddSecret adds the
// host's own. Three checks look for all of them:
//
//   - LogChecker, a slog.Handler, checks every log record, message and
//     attributes, through groups. The Client and KitConfig's Logger log
//     through one already.
//   - Recorder (an httptest.ResponseRecorder) and CheckResponse check a
//     response's headers and body. A session id is expected in three
//     places by design, each permitted only when the test says so:
//     AllowFrameRedirect (the Location of the frame endpoint's 303),
//     AllowSessionAnswer (the JSON session endpoint's answer) and
//     AllowIframeSrc (an iframe src from Kit.FrameURL).
//   - CheckText checks any string: an error message, a page.
//
// A leak fails the test with t.Errorf and a message that names the
// secret by its label and its embedkit.Redact fingerprint, never the
// secret itself, so the failure output is as clean as the app must be.
//
// # Revocation
//
// AssertRevoked checks that every session the emulator holds for a
// viewer is revoked, as logout must leave them; AssertLive checks that a
// viewer's sessions still work, for instance another user's after one
// logged out.
//
// This package imports embedkit, emulator and middleware, never an
// adapter; its tests and examples use adapters/memstore as a host would.
package embedkittest
