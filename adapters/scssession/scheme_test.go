package scssession_test

import (
	"bytes"
	"crypto/tls"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/alexedwards/scs/v2"
	"github.com/alexedwards/scs/v2/memstore"

	"github.com/embedkit/embedkit/adapters/scssession"
	"github.com/embedkit/embedkit/middleware"
)

// TestSecureCookieOverPlainHTTPWarns: a sign-in whose session cookie is
// Secure, over plain http, logs one warning naming the fix (the browser
// will not send the cookie back, so sign-in loops with no error
// anywhere); over https, or with a cookie that is not Secure, nothing.
func TestSecureCookieOverPlainHTTPWarns(t *testing.T) {
	for _, tc := range []struct {
		name   string
		secure bool
		tls    bool
		proxy  string // an origin a trusted proxy recorded
		want   int    // warnings after two sign-ins
	}{
		{name: "Secure over http", secure: true, want: 1},
		{name: "Secure over https", secure: true, tls: true},
		{name: "Secure behind a proxy that said https", secure: true, proxy: "https://app.example.com"},
		{name: "Secure behind a proxy that said http", secure: true, proxy: "http://app.example.com", want: 1},
		{name: "not Secure over http"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			sm := scs.New()
			sm.Store = memstore.New()
			sm.Cookie.Secure = tc.secure
			id := scssession.New(sm)
			id.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			h := sm.LoadAndSave(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if err := id.Save(w, r, &middleware.Viewer{Subject: "ana"}); err != nil {
					t.Error(err)
				}
			}))
			for range 2 {
				r := httptest.NewRequest(http.MethodPost, "http://app.example.com/login", nil)
				if tc.tls {
					r.TLS = &tls.ConnectionState{}
				}
				if tc.proxy != "" {
					r = r.WithContext(middleware.WithRequestOrigin(r.Context(), tc.proxy))
				}
				h.ServeHTTP(httptest.NewRecorder(), r)
			}
			got := strings.Count(logs.String(), "level=WARN")
			if got != tc.want {
				t.Errorf("%d warnings, want %d; log:\n%s", got, tc.want, logs.String())
			}
			if tc.want > 0 && !strings.Contains(logs.String(), "sessionManager.Cookie.Secure = false") {
				t.Errorf("the warning does not name the fix:\n%s", logs.String())
			}
		})
	}
}
