package gorillasession_test

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/middleware"
)

// login saves v through id in a request of b.
func login(t *testing.T, b *browser, id *gorillasession.Identity, v *middleware.Viewer) {
	t.Helper()
	b.do(func(w http.ResponseWriter, r *http.Request) {
		if err := id.Save(w, r, v); err != nil {
			t.Fatalf("Save: %v", err)
		}
	})
}

// viewerOf reads the viewer through id in a request of b.
func viewerOf(t *testing.T, b *browser, id *gorillasession.Identity) (*middleware.Viewer, error) {
	t.Helper()
	var (
		v   *middleware.Viewer
		err error
	)
	b.do(func(w http.ResponseWriter, r *http.Request) { v, err = id.Viewer(r) })
	return v, err
}

func TestSaveAndViewer(t *testing.T) {
	tests := []struct {
		name   string
		viewer *middleware.Viewer
	}{
		{"subject and key", &middleware.Viewer{Subject: "u1", SessionKey: "k1"}},
		{"every field", &middleware.Viewer{
			Subject: "u1", SessionKey: "k1", Email: "a@example.com", DisplayName: "Ann Example",
			Picture: "https://img.example.com/a.png", Groups: []string{"sales", "emea"},
			Attributes: map[string]any{"region": "eu", "level": 3.5, "beta": true,
				"accounts": []string{"a1", "a2"}, "limits": []float64{1, 2}, "none": []string{}},
			Tenant: "acme", CreatorMode: true, Locale: "de-DE", TimeZone: "Europe/Berlin",
		}},
		{"empty groups stay empty, not nil", &middleware.Viewer{Subject: "u1", SessionKey: "k1", Groups: []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, _ := newIdentity(t)
			b := newBrowser(t)
			login(t, b, id, tt.viewer)
			got, err := viewerOf(t, b, id)
			if err != nil {
				t.Fatalf("Viewer: %v", err)
			}
			if !reflect.DeepEqual(got, tt.viewer) {
				t.Errorf("Viewer =\n %#v\nwant\n %#v", got, tt.viewer)
			}
		})
	}
}

func TestSaveGeneratesSessionKey(t *testing.T) {
	id, _ := newIdentity(t)
	keys := map[string]bool{}
	for range 3 {
		b := newBrowser(t)
		v := &middleware.Viewer{Subject: "u1"}
		login(t, b, id, v)
		if v.SessionKey != "" {
			t.Fatal("Save changed the caller's viewer")
		}
		got, err := viewerOf(t, b, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.SessionKey) < 20 {
			t.Fatalf("session key %q is too short", got.SessionKey)
		}
		keys[got.SessionKey] = true
	}
	if len(keys) != 3 {
		t.Errorf("logins share session keys: %v", keys)
	}
}

func TestSaveRejects(t *testing.T) {
	tests := []struct {
		name    string
		viewer  *middleware.Viewer
		wantErr string
	}{
		{"nil viewer", nil, "gorillasession: viewer without subject"},
		{"no subject", &middleware.Viewer{Email: "a@example.com"}, "gorillasession: viewer without subject"},
		{"attribute of unknown type", &middleware.Viewer{Subject: "u1", Attributes: map[string]any{"n": 3}},
			`gorillasession: Viewer.Attributes["n"]: value of type int`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, _ := newIdentity(t)
			b := newBrowser(t)
			resp := b.do(func(w http.ResponseWriter, r *http.Request) {
				err := id.Save(w, r, tt.viewer)
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Errorf("Save error = %v, want prefix %q", err, tt.wantErr)
				}
			})
			if len(resp.Cookies()) != 0 {
				t.Errorf("failed Save wrote a cookie")
			}
		})
	}
}

// TestCookieOptions is checklist item 8: HttpOnly, SameSite=Lax, Secure,
// bounded MaxAge, set explicitly.
func TestCookieOptions(t *testing.T) {
	id, store := newIdentity(t)
	b := newBrowser(t)
	resp := b.do(func(w http.ResponseWriter, r *http.Request) {
		if err := id.Save(w, r, &middleware.Viewer{Subject: "u1"}); err != nil {
			t.Fatal(err)
		}
	})
	cookies := resp.Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies = %d, want 1", len(cookies))
	}
	c := cookies[0]
	checks := []struct {
		name string
		ok   bool
	}{
		{"HttpOnly", c.HttpOnly},
		{"Secure", c.Secure},
		{"SameSite=Lax", c.SameSite == http.SameSiteLaxMode},
		{"Path=/", c.Path == "/"},
		{"Max-Age=8h", c.MaxAge == gorillasession.DefaultMaxAge},
		{"Max-Age bounded to a day", c.MaxAge > 0 && c.MaxAge <= 24*3600},
		{"store options", store.Options.HttpOnly && store.Options.Secure && store.Options.SameSite == http.SameSiteLaxMode},
	}
	for _, ch := range checks {
		t.Run(ch.name, func(t *testing.T) {
			if !ch.ok {
				t.Errorf("cookie %s fails: %+v", ch.name, c)
			}
		})
	}

	// The documented switch for plain-http development.
	store.Options.Secure = false
	resp = newBrowser(t).do(func(w http.ResponseWriter, r *http.Request) {
		id.Save(w, r, &middleware.Viewer{Subject: "u1"})
	})
	if resp.Cookies()[0].Secure {
		t.Error("Options.Secure = false still sets Secure")
	}
}

// TestKeyRotation is checklist item 9.
func TestKeyRotation(t *testing.T) {
	oldID, _ := newIdentity(t, keyOld, encKey)
	b := newBrowser(t)
	login(t, b, oldID, &middleware.Viewer{Subject: "u1", SessionKey: "k1"})

	tests := []struct {
		name     string
		keyPairs [][]byte
		wantOK   bool
	}{
		{"new and old keys", [][]byte{keyNew, encKey, keyOld, encKey}, true},
		{"old key only", [][]byte{keyOld, encKey}, true},
		{"new key only", [][]byte{keyNew, encKey}, false},
		{"old hash key, another block key", [][]byte{keyOld, []byte("ffffffffffffffff")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, _ := newIdentity(t, tt.keyPairs...)
			v, err := viewerOf(t, b, id)
			if tt.wantOK {
				if err != nil || v.Subject != "u1" {
					t.Fatalf("Viewer = %v, %v; want u1", v, err)
				}
				return
			}
			if !errors.Is(err, middleware.ErrNoViewer) {
				t.Fatalf("Viewer = %v, %v; want ErrNoViewer", v, err)
			}
		})
	}

	t.Run("new cookies use the newest key", func(t *testing.T) {
		rotated, _ := newIdentity(t, keyNew, encKey, keyOld, encKey)
		b := newBrowser(t)
		login(t, b, rotated, &middleware.Viewer{Subject: "u2"})
		newOnly, _ := newIdentity(t, keyNew, encKey)
		if v, err := viewerOf(t, b, newOnly); err != nil || v.Subject != "u2" {
			t.Fatalf("Viewer with the new key only = %v, %v", v, err)
		}
	})
}

func TestUndecodableCookie(t *testing.T) {
	id, _ := newIdentity(t)
	tests := []struct {
		name   string
		mangle func(string) string
	}{
		{"flipped character", func(s string) string {
			i := len(s) / 2
			c := byte('A')
			if s[i] == 'A' {
				c = 'B'
			}
			return s[:i] + string(c) + s[i+1:]
		}},
		{"truncated", func(s string) string { return s[:len(s)/2] }},
		{"garbage", func(string) string { return "not-a-session" }},
		{"empty", func(string) string { return "" }},
		{"oversized", func(s string) string { return strings.Repeat(s, 3) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBrowser(t)
			login(t, b, id, &middleware.Viewer{Subject: "u1"})
			b.setCookie(tt.mangle(b.cookie()))
			v, err := viewerOf(t, b, id)
			if !errors.Is(err, middleware.ErrNoViewer) {
				t.Fatalf("Viewer = %v, %v; want ErrNoViewer", v, err)
			}
			// Logging in again over the bad cookie works.
			login(t, b, id, &middleware.Viewer{Subject: "u2"})
			if v, err := viewerOf(t, b, id); err != nil || v.Subject != "u2" {
				t.Fatalf("after new login: %v, %v", v, err)
			}
		})
	}
}

func TestNoSession(t *testing.T) {
	id, _ := newIdentity(t)
	if v, err := viewerOf(t, newBrowser(t), id); !errors.Is(err, middleware.ErrNoViewer) {
		t.Fatalf("Viewer = %v, %v; want ErrNoViewer", v, err)
	}
}

// TestLargestUser is checklist item 10: a large user fits in 4096 bytes, a
// larger one gets a clear error and no cookie.
func TestLargestUser(t *testing.T) {
	user := func(groups, groupLen int) *middleware.Viewer {
		v := &middleware.Viewer{
			Subject:     "auth0|" + strings.Repeat("7", 24),
			Email:       strings.Repeat("firstname.lastname", 2) + "@subsidiary.example.com",
			DisplayName: "Firstname Middlename Lastname-Doublename",
			Picture:     "https://lh3.googleusercontent.com/a/" + strings.Repeat("x", 80),
			Tenant:      "acme-emea-production",
			Locale:      "de-DE",
			TimeZone:    "America/Argentina/Buenos_Aires",
			Attributes:  map[string]any{"region": "eu-west-1", "cost_centers": []string{"cc-1001", "cc-1002"}},
		}
		for i := range groups {
			v.Groups = append(v.Groups, fmt.Sprintf("%0*d", groupLen, i))
		}
		return v
	}
	tests := []struct {
		name   string
		viewer *middleware.Viewer
		fits   bool
	}{
		{"40 groups of 24 bytes", user(40, 24), true},
		{"200 groups of 20 bytes", user(200, 20), false},
	}
	for _, tt := range tests {
		for _, keys := range [][][]byte{{keyNew, nil}, {keyNew, encKey}} {
			name := tt.name + map[bool]string{true: ", encrypted", false: ", signed"}[keys[1] != nil]
			t.Run(name, func(t *testing.T) {
				id, _ := newIdentity(t, keys...)
				b := newBrowser(t)
				var err error
				resp := b.do(func(w http.ResponseWriter, r *http.Request) { err = id.Save(w, r, tt.viewer) })
				if tt.fits {
					if err != nil {
						t.Fatalf("Save: %v", err)
					}
					line := resp.Header.Get("Set-Cookie")
					if len(line) > gorillasession.MaxCookieBytes {
						t.Fatalf("cookie is %d bytes", len(line))
					}
					t.Logf("Set-Cookie is %d bytes", len(line))
					return
				}
				if !errors.Is(err, gorillasession.ErrCookieTooLarge) {
					t.Fatalf("Save error = %v, want ErrCookieTooLarge", err)
				}
				if !strings.HasPrefix(err.Error(), "gorillasession: session cookie too large") {
					t.Errorf("error %q does not say what is wrong", err)
				}
				if len(resp.Cookies()) != 0 {
					t.Errorf("oversized Save wrote a cookie")
				}
			})
		}
	}
}

// TestSaveDropsEarlierValues checks that a login starts a fresh session.
func TestSaveDropsEarlierValues(t *testing.T) {
	id, store := newIdentity(t)
	b := newBrowser(t)
	b.do(func(w http.ResponseWriter, r *http.Request) {
		sess, _ := store.Get(r, cookieName)
		sess.Values["planted"] = "by an attacker before login"
		if err := sess.Save(r, w); err != nil {
			t.Fatal(err)
		}
	})
	login(t, b, id, &middleware.Viewer{Subject: "u1"})
	b.do(func(w http.ResponseWriter, r *http.Request) {
		sess, err := store.Get(r, cookieName)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := sess.Values["planted"]; ok {
			t.Error("value stored before login survived Save")
		}
	})
}

// TestClear is checklist item 11: after logout the pre-logout cookie does
// not log anyone in, when revocations are kept.
func TestClear(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	tests := []struct {
		name        string
		revocations bool
		replayOK    bool
	}{
		{"with revocations the old cookie is refused", true, false},
		{"without revocations the old cookie lives until MaxAge", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, _ := newIdentity(t)
			id.Now = clock
			if tt.revocations {
				rev := gorillasession.NewMemoryEndedLogins(0)
				rev.Now = clock
				id.EndedLogins = rev
			}
			b := newBrowser(t)
			login(t, b, id, &middleware.Viewer{Subject: "u1"})
			stolen := b.cookie()
			resp := b.do(func(w http.ResponseWriter, r *http.Request) {
				if err := id.Clear(w, r); err != nil {
					t.Fatal(err)
				}
			})
			if c := resp.Cookies(); len(c) != 1 || c[0].MaxAge >= 0 {
				t.Fatalf("Clear did not expire the cookie: %+v", c)
			}
			if _, err := viewerOf(t, b, id); !errors.Is(err, middleware.ErrNoViewer) {
				t.Fatalf("after Clear: %v, want ErrNoViewer", err)
			}
			b.setCookie(stolen)
			_, err := viewerOf(t, b, id)
			if tt.replayOK != (err == nil) {
				t.Fatalf("replayed cookie: err = %v, want accepted %v", err, tt.replayOK)
			}
			// A new login works after logout either way.
			login(t, b, id, &middleware.Viewer{Subject: "u1"})
			if _, err := viewerOf(t, b, id); err != nil {
				t.Fatalf("new login: %v", err)
			}
		})
	}
}

// TestEnd: End records the login as ended and writes no cookie, so the
// login handler that called it can replace the cookie itself.
func TestEnd(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	id, _ := newIdentity(t)
	id.Now = clock
	rev := gorillasession.NewMemoryEndedLogins(0)
	rev.Now = clock
	id.EndedLogins = rev
	b := newBrowser(t)

	// Nobody logged in: nothing to end.
	b.do(func(w http.ResponseWriter, r *http.Request) {
		if err := id.End(r); err != nil {
			t.Fatalf("End with no login: %v", err)
		}
	})
	login(t, b, id, &middleware.Viewer{Subject: "u1"})
	resp := b.do(func(w http.ResponseWriter, r *http.Request) {
		if err := id.End(r); err != nil {
			t.Fatal(err)
		}
	})
	if c := resp.Cookies(); len(c) != 0 {
		t.Errorf("End wrote cookies: %+v", c)
	}
	if _, err := viewerOf(t, b, id); !errors.Is(err, middleware.ErrNoViewer) {
		t.Errorf("after End: %v, want ErrNoViewer", err)
	}
}

func TestRevokeSubject(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	id, _ := newIdentity(t)
	id.Now = clock
	rev := gorillasession.NewMemoryEndedLogins(time.Hour)
	rev.Now = clock
	id.EndedLogins = rev

	laptop, phone, other := newBrowser(t), newBrowser(t), newBrowser(t)
	login(t, laptop, id, &middleware.Viewer{Subject: "u1"})
	login(t, phone, id, &middleware.Viewer{Subject: "u1"})
	login(t, other, id, &middleware.Viewer{Subject: "u2"})
	now = now.Add(time.Minute)
	if err := rev.EndLoginsOf(t.Context(), "u1"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	fresh := newBrowser(t)
	login(t, fresh, id, &middleware.Viewer{Subject: "u1"})
	// A login within the same second as a revoke, after it, is a new
	// session: the issue time is kept to the millisecond.
	now = now.Add(time.Minute)
	if err := rev.EndLoginsOf(t.Context(), "u3"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(300 * time.Millisecond)
	sameSecond := newBrowser(t)
	login(t, sameSecond, id, &middleware.Viewer{Subject: "u3"})

	tests := []struct {
		name   string
		b      *browser
		wantOK bool
	}{
		{"laptop session ended", laptop, false},
		{"phone session ended", phone, false},
		{"other subject untouched", other, true},
		{"login after the revoke works", fresh, true},
		{"login in the same second after the revoke works", sameSecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := viewerOf(t, tt.b, id)
			if tt.wantOK != (err == nil) {
				t.Fatalf("err = %v, want ok %v", err, tt.wantOK)
			}
		})
	}
	t.Run("revoke forgotten after the cookie lifetime", func(t *testing.T) {
		now = now.Add(2 * time.Hour)
		if ok, _ := rev.LoginEnded(t.Context(), middleware.Login{Subject: "u1", Issued: now.Add(-3 * time.Hour)}); ok {
			t.Error("subject revoke still applies after its lifetime")
		}
	})
}

func TestStoreReadErrors(t *testing.T) {
	id := gorillasession.New(failingStore{}, cookieName)
	_, err := viewerOf(t, newBrowser(t), id)
	if err == nil || errors.Is(err, middleware.ErrNoViewer) || !strings.HasPrefix(err.Error(), "gorillasession: reading session") {
		t.Fatalf("err = %v, want a wrapped store error", err)
	}
	// Logout with the store down still tells the browser to drop the
	// cookie.
	resp := newBrowser(t).do(func(w http.ResponseWriter, r *http.Request) {
		if err := id.Clear(w, r); err == nil {
			t.Error("Clear with the store down returned nil")
		}
	})
	if c := resp.Cookies(); len(c) != 1 || c[0].Name != cookieName || c[0].MaxAge >= 0 || !c[0].HttpOnly {
		t.Errorf("Clear with the store down wrote %+v, want the session cookie expired", c)
	}
}

// TestProviderSIDRoundTrip: the provider's sid is kept beside the
// login's own key, and comes back with the viewer.
func TestProviderSIDRoundTrip(t *testing.T) {
	id, _ := newIdentity(t)
	b := newBrowser(t)
	login(t, b, id, &middleware.Viewer{Subject: "ana", ProviderSID: "sid-1"})
	v, err := viewerOf(t, b, id)
	if err != nil {
		t.Fatal(err)
	}
	if v.ProviderSID != "sid-1" || v.SessionKey == "" || v.SessionKey == "sid-1" {
		t.Errorf("viewer: ProviderSID %q, SessionKey %q; want the sid beside a key of the login's own", v.ProviderSID, v.SessionKey)
	}
}
