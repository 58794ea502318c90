package gorillasession_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/internal/testkit"
	"github.com/embedkit/embedkit/middleware"
)

// benchOpenTabs is how many minted ids the host session cookie already
// holds in BenchmarkStore.
const benchOpenTabs = 4

// BenchmarkStore measures one Add and one Take (fetch all) of a host
// session's minted ids through ForRequest, as one embed load and one logout
// do, on a request that already carries the host session cookie (signed
// and encrypted, with the viewer and benchOpenTabs ids).
//
// The memory and Redis stores run this benchmark with 100,000 host
// sessions stored. That does not apply here: the cookie store keeps one
// host session's records in that session's own cookie and holds nothing
// on the server, so other sessions cannot affect its cost.
func BenchmarkStore(b *testing.B) {
	b.Run("cookie", func(b *testing.B) {
		v := benchUser()
		id, cookie := benchLogin(b, v)
		store := id.SessionStore()
		ctx := context.Background()
		exp := time.Now().Add(24 * time.Hour)
		minted := func(i int) middleware.Minted {
			return middleware.Minted{SessionID: fmt.Sprintf("%036d", i), Subject: v.Subject, ExpiresAt: exp}
		}

		stored, err := id.Viewer(benchRequest(cookie))
		if err != nil {
			b.Fatal(err)
		}
		key := stored.Key()
		for i := range benchOpenTabs {
			w := httptest.NewRecorder()
			if err := store.ForRequest(w, benchRequest(cookie)).Add(ctx, key, minted(i)); err != nil {
				b.Fatal(err)
			}
			cookie = w.Result().Cookies()[0]
		}
		tmpl := benchRequest(cookie)
		m := minted(benchOpenTabs)

		b.ReportAllocs()
		cpu := testkit.StartCPU()
		for b.Loop() {
			s := store.ForRequest(httptest.NewRecorder(), tmpl.WithContext(ctx))
			if err := s.Add(ctx, key, m); err != nil {
				b.Fatal(err)
			}
			if ms, err := s.Take(ctx, key); err != nil || len(ms) != benchOpenTabs+1 {
				b.Fatalf("Take = %d records, %v; want %d", len(ms), err, benchOpenTabs+1)
			}
		}
		cpu.Report(b)
	})
}

// benchRequest is a request carrying the session cookie c.
func benchRequest(c *http.Cookie) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "https://host.example/embed/frame/sales", nil)
	r.AddCookie(c)
	return r
}

// BenchmarkViewer measures Identity.Viewer alone: reading the viewer from
// a signed and encrypted session cookie, as every frame load does. The
// frame benchmarks of package middleware show what the same read costs in
// place, with the HTTP round trip around it.
func BenchmarkViewer(b *testing.B) {
	v := benchUser()
	v.Locale, v.TimeZone = "de-DE", "Europe/Berlin"
	id, cookie := benchLogin(b, v)
	tmpl := benchRequest(cookie)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		got, err := id.Viewer(tmpl.WithContext(ctx))
		if err != nil || got.Subject != v.Subject {
			b.Fatalf("Viewer = %v, %v", got, err)
		}
	}
}

// benchUser is the viewer of the benchmarks: a profile, two groups and
// one attribute.
func benchUser() *middleware.Viewer {
	return &middleware.Viewer{
		Subject:     "user-000@example.com",
		Email:       "user-000@example.com",
		DisplayName: "User 000",
		Groups:      []string{"sales", "emea"},
		Attributes:  map[string]any{"region": "EMEA"},
	}
}

// benchLogin logs v in on a SecureCookieStore with fixed keys and returns
// the Identity and the signed and encrypted session cookie.
func benchLogin(b *testing.B, v *middleware.Viewer) (*gorillasession.Identity, *http.Cookie) {
	b.Helper()
	cs := gorillasession.SecureCookieStore(bytes.Repeat([]byte{0x5a}, 32), bytes.Repeat([]byte{0xa5}, 32))
	id := gorillasession.New(cs, "host-session")
	// Plain-http requests with a Secure cookie: the identity's one warning
	// would cut a benchmark result line in two.
	id.Logger = slog.New(slog.DiscardHandler)
	w := httptest.NewRecorder()
	if err := id.Save(w, httptest.NewRequest(http.MethodPost, "/login", nil), v); err != nil {
		b.Fatal(err)
	}
	return id, w.Result().Cookies()[0]
}
