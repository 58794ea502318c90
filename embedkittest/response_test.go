package embedkittest_test

import (
	"context"
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

func TestRecorder(t *testing.T) {
	m := newMinted(t)
	id, key, tok := m.session.SessionID, m.apiKey, m.token
	frameURL := m.p.URL() + "/embed/dashboard/sales-overview?locale=en-US&session=" + id
	unminted := strings.Repeat("ab", 16) // looks like an id, was never minted
	answer := func(v map[string]any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	cases := []struct {
		name   string
		status int
		header map[string]string
		body   string
		opts   []embedkittest.CheckOption
		want   []string
	}{
		{name: "clean page", status: 200, body: "<p>session " + embedkit.Redact(id) + "</p>"},
		{name: "an id that was never minted", status: 200, body: unminted},
		{name: "session id in a page", status: 200, body: "<p>" + id + "</p>", want: []string{"response 200, body leaks the embed session id"}},
		{name: "API key in a header", status: 200, header: map[string]string{"X-Debug": "key=" + key}, want: []string{`response 200, header "X-Debug" leaks the API key`}},
		{name: "embed token in a cookie", status: 200, header: map[string]string{"Set-Cookie": "t=" + tok}, want: []string{`header "Set-Cookie" leaks the embed token`}},
		{name: "API key and session id in one page", status: 500, body: key + " " + id, want: []string{"leaks the API key", "leaks the embed session id"}},

		{name: "frame redirect, allowed", status: 303, header: map[string]string{"Location": frameURL},
			opts: []embedkittest.CheckOption{embedkittest.AllowFrameRedirect()}},
		{name: "chat frame redirect, allowed", status: 303, header: map[string]string{"Location": m.p.URL() + "/embed/chat?sessionId=" + id},
			opts: []embedkittest.CheckOption{embedkittest.AllowFrameRedirect()}},
		{name: "frame redirect, not allowed", status: 303, header: map[string]string{"Location": frameURL},
			want: []string{`response 303, header "Location" leaks the embed session id`}},
		{name: "frame redirect as a 302", status: 302, header: map[string]string{"Location": frameURL},
			opts: []embedkittest.CheckOption{embedkittest.AllowFrameRedirect()}, want: []string{`header "Location" leaks the embed session id`}},
		{name: "frame redirect to another origin", status: 303, header: map[string]string{"Location": "https://evil.example/embed?session=" + id},
			opts: []embedkittest.CheckOption{embedkittest.AllowFrameRedirect()}, want: []string{`header "Location" leaks the embed session id`}},
		{name: "frame redirect with the id in another parameter", status: 303, header: map[string]string{"Location": frameURL + "&next=" + id},
			opts: []embedkittest.CheckOption{embedkittest.AllowFrameRedirect()}, want: []string{`header "Location" leaks the embed session id`}},
		{name: "frame redirect with a token", status: 303, header: map[string]string{"Location": m.p.URL() + "/embed/dashboard/x?session=" + tok},
			opts: []embedkittest.CheckOption{embedkittest.AllowFrameRedirect()}, want: []string{`header "Location" leaks the embed token`}},
		{name: "frame redirect with the id in its body", status: 303, header: map[string]string{"Location": frameURL}, body: `<a href="` + frameURL + `">See Other</a>`,
			opts: []embedkittest.CheckOption{embedkittest.AllowFrameRedirect()}, want: []string{"response 303, body leaks the embed session id"}},

		{name: "session answer, allowed", status: 200, header: map[string]string{"Content-Type": "application/json"},
			body: answer(map[string]any{"url": frameURL, "sessionId": id, "expiresAt": "2026-04-01T09:05:00Z"}),
			opts: []embedkittest.CheckOption{embedkittest.AllowSessionAnswer()}},
		{name: "session answer, not allowed", status: 200, header: map[string]string{"Content-Type": "application/json"},
			body: answer(map[string]any{"url": frameURL, "sessionId": id}), want: []string{"response 200, body leaks the embed session id"}},
		{name: "session answer with a token", status: 200, header: map[string]string{"Content-Type": "application/json"},
			body: answer(map[string]any{"url": frameURL, "sessionId": id, "token": tok}),
			opts: []embedkittest.CheckOption{embedkittest.AllowSessionAnswer()}, want: []string{"body leaks the embed token"}},
		{name: "session answer with the id in another member", status: 200, header: map[string]string{"Content-Type": "application/json"},
			body: answer(map[string]any{"url": frameURL, "sessionId": id, "debug": id}),
			opts: []embedkittest.CheckOption{embedkittest.AllowSessionAnswer()}, want: []string{"body leaks the embed session id"}},
		{name: "session answer with a URL of another origin", status: 200, header: map[string]string{"Content-Type": "application/json"},
			body: answer(map[string]any{"url": "https://evil.example/?session=" + id, "sessionId": id}),
			opts: []embedkittest.CheckOption{embedkittest.AllowSessionAnswer()}, want: []string{"body leaks the embed session id"}},
		{name: "session answer as an error", status: 500, header: map[string]string{"Content-Type": "application/json"},
			body: answer(map[string]any{"sessionId": id}),
			opts: []embedkittest.CheckOption{embedkittest.AllowSessionAnswer()}, want: []string{"response 500, body leaks the embed session id"}},

		{name: "iframe src, allowed", status: 200, body: `<iframe data-embedkit src="` + template.HTMLEscapeString(frameURL) + `"></iframe>`,
			opts: []embedkittest.CheckOption{embedkittest.AllowIframeSrc()}},
		{name: "iframe src, not allowed", status: 200, body: `<iframe src="` + frameURL + `"></iframe>`,
			want: []string{"body leaks the embed session id"}},
		{name: "iframe src of another origin", status: 200, body: `<iframe src='https://evil.example/?session=` + id + `'></iframe>`,
			opts: []embedkittest.CheckOption{embedkittest.AllowIframeSrc()}, want: []string{"body leaks the embed session id"}},
		{name: "img src", status: 200, body: `<img src="` + frameURL + `">`,
			opts: []embedkittest.CheckOption{embedkittest.AllowIframeSrc()}, want: []string{"body leaks the embed session id"}},
		{name: "iframe src and the id in a script", status: 200, body: `<iframe src="` + frameURL + `"></iframe><script>var s="` + id + `"</script>`,
			opts: []embedkittest.CheckOption{embedkittest.AllowIframeSrc()}, want: []string{"body leaks the embed session id"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			w := embedkittest.NewRecorder(f, m.p, tc.opts...)
			for k, v := range tc.header {
				w.Header().Set(k, v)
			}
			w.WriteHeader(tc.status)
			_, _ = io.WriteString(w, tc.body)
			w.Check()
			w.Check() // a second check reports nothing new
			wantReports(t, f, tc.want, id, key, tok)

			// The same response from a server, through CheckResponse.
			resp := w.Result()
			g := runFake(t, func(tb *fakeTB) { embedkittest.CheckResponse(tb, m.p, resp, tc.opts...) })
			wantReports(t, g, tc.want, id, key, tok)
			if b, _ := io.ReadAll(resp.Body); string(b) != tc.body {
				t.Errorf("CheckResponse did not put the body back: %q", b)
			}
		})
	}
}

func TestRecorderChecksWhenTheTestEnds(t *testing.T) {
	m := newMinted(t)
	f := newFake(t)
	t.Run("inner", func(t *testing.T) {
		inner := &fakeTB{TB: t}
		// Registered first, so it runs last: after the Recorder's check.
		t.Cleanup(func() { f.errs = inner.errors() })
		w := embedkittest.NewRecorder(inner, m.p)
		_, _ = io.WriteString(w, m.apiKey)
	})
	wantReports(t, f, []string{"response 200, body leaks the API key"}, m.apiKey)
}

// hostApp is a host app on the Platform, served over HTTP: the frame and
// JSON endpoints, and a page that puts Kit.FrameURL into an iframe.
func hostApp(t *testing.T, p *embedkittest.Platform) *httptest.Server {
	t.Helper()
	cfg := p.KitConfig()
	cfg.Identity = middleware.IdentityFunc(func(*http.Request) (*middleware.Viewer, error) {
		return &middleware.Viewer{Subject: "ana", SessionKey: "login-1"}, nil
	})
	cfg.Store = memstore.New()
	cfg.Targets = map[string]middleware.Target{
		"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"},
		"chat":  {Kind: middleware.KindChat},
	}
	kit, err := middleware.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	page := template.Must(template.New("").Parse(`<iframe data-embedkit src="{{.}}"></iframe>`))
	mux := http.NewServeMux()
	mux.Handle(middleware.DefaultFramePrefix, kit.FrameHandler())
	mux.Handle(middleware.DefaultSessionPath, kit.SessionHandler())
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		target, _ := kit.Target("sales")
		src, err := kit.FrameURL(w, r, target)
		if err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		_ = page.Execute(w, src)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestAllowancesFitTheKit checks that each allowance lets the kit's own
// answer through, and that nothing else does.
func TestAllowancesFitTheKit(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	host := hostApp(t, p)
	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	cases := []struct {
		name       string
		method     string
		path       string
		body       string
		allow      embedkittest.CheckOption
		wantStatus int
	}{
		{name: "frame endpoint", method: http.MethodGet, path: "/embed/frame/sales", allow: embedkittest.AllowFrameRedirect(), wantStatus: http.StatusSeeOther},
		{name: "chat frame endpoint", method: http.MethodGet, path: "/embed/frame/chat", allow: embedkittest.AllowFrameRedirect(), wantStatus: http.StatusSeeOther},
		{name: "session endpoint", method: http.MethodPost, path: middleware.DefaultSessionPath, body: `{"target":"sales"}`, allow: embedkittest.AllowSessionAnswer(), wantStatus: http.StatusOK},
		{name: "page with FrameURL", method: http.MethodGet, path: "/report", allow: embedkittest.AllowIframeSrc(), wantStatus: http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			get := func() *http.Response {
				req, err := http.NewRequestWithContext(context.Background(), tc.method, host.URL+tc.path, strings.NewReader(tc.body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := noRedirects.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = resp.Body.Close() })
				if resp.StatusCode != tc.wantStatus {
					t.Fatalf("status %d, want %d", resp.StatusCode, tc.wantStatus)
				}
				return resp
			}
			allowed := runFake(t, func(tb *fakeTB) { embedkittest.CheckResponse(tb, p, get(), tc.allow) })
			wantReports(t, allowed, nil)
			refused := runFake(t, func(tb *fakeTB) { embedkittest.CheckResponse(tb, p, get()) })
			wantReports(t, refused, []string{"leaks the embed session id"})
		})
	}
}
