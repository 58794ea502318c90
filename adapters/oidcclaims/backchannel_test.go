package oidcclaims_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/embedkit/embedkit/adapters/oidcclaims"
	"github.com/embedkit/embedkit/middleware"
)

// recordingRevoker records what it is asked to revoke.
type recordingRevoker struct {
	mu       sync.Mutex
	subjects []string
	fail     error
}

func (r *recordingRevoker) RevokeSubject(_ context.Context, subject string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.subjects = append(r.subjects, subject)
	return nil
}

func (r *recordingRevoker) revoked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.subjects...)
}

// sessionRevoker also ends the logins of a provider session.
type sessionRevoker struct {
	recordingRevoker
	sessions []string
}

// The Kit serves back-channel logout directly, for tokens with a subject
// and for tokens that name only a provider session.
var (
	_ oidcclaims.SubjectRevoker         = (*sessionRevoker)(nil)
	_ oidcclaims.ProviderSessionRevoker = (*sessionRevoker)(nil)
	_ oidcclaims.SubjectRevoker         = (*middleware.Kit)(nil)
	_ oidcclaims.ProviderSessionRevoker = (*middleware.Kit)(nil)
)

func (r *sessionRevoker) RevokeProviderSession(_ context.Context, sid string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.sessions = append(r.sessions, sid)
	return nil
}

// logoutClaims returns the claims of a valid logout token.
func logoutClaims(iss *testIssuer, now time.Time, jti string) map[string]any {
	return map[string]any{
		"iss":    iss.URL,
		"aud":    testClientID,
		"iat":    now.Unix(),
		"exp":    now.Add(2 * time.Minute).Unix(),
		"jti":    jti,
		"sub":    "user-42",
		"sid":    "sid-7",
		"events": map[string]any{oidcclaims.BackChannelLogoutEvent: map[string]any{}},
	}
}

// postLogout sends token to h as a back-channel logout request.
func postLogout(t *testing.T, h http.Handler, token string) *httptest.ResponseRecorder {
	t.Helper()
	form := url.Values{"logout_token": {token}}
	req := httptest.NewRequest(http.MethodPost, "/backchannel-logout", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestBackChannelLogoutRejects(t *testing.T) {
	clock := newFakeClock()
	iss, verifier := newTestIssuer(t, clock)
	now := clock.Now()
	with := func(change func(c map[string]any)) map[string]any {
		c := logoutClaims(iss, now, "jti-"+strings.ReplaceAll(t.Name(), "/", "-"))
		change(c)
		return c
	}
	tests := []struct {
		name  string
		token func() string
	}{
		{"bad signature", func() string {
			return iss.sign(strangerKey(t), "logout+jwt", with(func(map[string]any) {}))
		}},
		{"typ JWT", func() string { return iss.sign(iss.key, "JWT", with(func(map[string]any) {})) }},
		{"no typ", func() string { return iss.sign(iss.key, "", with(func(map[string]any) {})) }},
		{"no events", func() string {
			return iss.sign(iss.key, "logout+jwt", with(func(c map[string]any) { delete(c, "events") }))
		}},
		{"events without logout member", func() string {
			return iss.sign(iss.key, "logout+jwt", with(func(c map[string]any) {
				c["events"] = map[string]any{"http://schemas.openid.net/event/other": map[string]any{}}
			}))
		}},
		{"events member not an object", func() string {
			return iss.sign(iss.key, "logout+jwt", with(func(c map[string]any) {
				c["events"] = map[string]any{oidcclaims.BackChannelLogoutEvent: "yes"}
			}))
		}},
		{"nonce present", func() string {
			return iss.sign(iss.key, "logout+jwt", with(func(c map[string]any) { c["nonce"] = "n-1" }))
		}},
		{"wrong aud", func() string {
			return iss.sign(iss.key, "logout+jwt", with(func(c map[string]any) { c["aud"] = "another-client" }))
		}},
		{"wrong iss", func() string {
			return iss.sign(iss.key, "logout+jwt", with(func(c map[string]any) { c["iss"] = "https://evil.example" }))
		}},
		{"expired", func() string {
			return iss.sign(iss.key, "logout+jwt", with(func(c map[string]any) { c["exp"] = now.Add(-time.Second).Unix() }))
		}},
		{"no jti", func() string {
			return iss.sign(iss.key, "logout+jwt", with(func(c map[string]any) { delete(c, "jti") }))
		}},
		{"no iat", func() string {
			return iss.sign(iss.key, "logout+jwt", with(func(c map[string]any) { delete(c, "iat") }))
		}},
		{"neither sub nor sid", func() string {
			return iss.sign(iss.key, "logout+jwt", with(func(c map[string]any) { delete(c, "sub"); delete(c, "sid") }))
		}},
		{"sid only, revoker cannot end one session", func() string {
			return iss.sign(iss.key, "logout+jwt", with(func(c map[string]any) { delete(c, "sub") }))
		}},
		{"alg none", func() string {
			return unsigned(t, map[string]any{"alg": "none", "typ": "logout+jwt"}, with(func(map[string]any) {}))
		}},
		{"alg HS256", func() string {
			return unsigned(t, map[string]any{"alg": "HS256", "typ": "logout+jwt", "kid": iss.kid}, with(func(map[string]any) {}))
		}},
		{"not a JWT", func() string { return "not-a-token" }},
		{"header not base64", func() string { return "%%%.e30.sig" }},
		{"empty token", func() string { return "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			rev := &recordingRevoker{}
			h := oidcclaims.BackChannelLogout(verifier, rev,
				oidcclaims.WithClock(clock.Now),
				oidcclaims.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			token := tt.token()
			rec := postLogout(t, h, token)
			t.Logf("log: %s", logs.String())
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("status = %d, want 400", rec.Code)
			}
			if got := rev.revoked(); len(got) != 0 {
				t.Errorf("revoked %q, want nothing", got)
			}
			if got := rec.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", got)
			}
			if body := rec.Body.String(); body != `{"error":"invalid_request"}`+"\n" {
				t.Errorf("body = %q, want the fixed error object", body)
			}
			if token != "" && strings.Contains(logs.String(), token) {
				t.Errorf("log holds the token: %s", logs.String())
			}
			if !strings.Contains(logs.String(), "back-channel logout refused") {
				t.Errorf("log does not say why: %s", logs.String())
			}
		})
	}
}

func TestBackChannelLogoutAccepts(t *testing.T) {
	clock := newFakeClock()
	iss, verifier := newTestIssuer(t, clock)
	now := clock.Now()
	tests := []struct {
		name string
		typ  string
	}{
		{"typ logout+jwt", "logout+jwt"},
		{"typ application/logout+jwt", "application/logout+jwt"},
		{"typ in upper case", "LOGOUT+JWT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rev := &recordingRevoker{}
			h := oidcclaims.BackChannelLogout(verifier, rev, oidcclaims.WithClock(clock.Now), quiet())
			rec := postLogout(t, h, iss.sign(iss.key, tt.typ, logoutClaims(iss, now, "jti-ok")))
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, want 200; body %s", rec.Code, rec.Body)
			}
			if got := rec.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", got)
			}
			if got := rev.revoked(); len(got) != 1 || got[0] != "user-42" {
				t.Errorf("revoked %q, want [user-42]", got)
			}
		})
	}
}

func TestBackChannelLogoutReplay(t *testing.T) {
	clock := newFakeClock()
	iss, verifier := newTestIssuer(t, clock)
	rev := &recordingRevoker{}
	h := oidcclaims.BackChannelLogout(verifier, rev, oidcclaims.WithClock(clock.Now), quiet())
	token := iss.sign(iss.key, "logout+jwt", logoutClaims(iss, clock.Now(), "jti-once"))

	if rec := postLogout(t, h, token); rec.Code != http.StatusOK {
		t.Fatalf("first: status = %d, want 200", rec.Code)
	}
	if rec := postLogout(t, h, token); rec.Code != http.StatusBadRequest {
		t.Fatalf("replay: status = %d, want 400", rec.Code)
	}
	// Another token with the same jti is a replay too.
	again := logoutClaims(iss, clock.Now(), "jti-once")
	again["sub"] = "user-43"
	if rec := postLogout(t, h, iss.sign(iss.key, "logout+jwt", again)); rec.Code != http.StatusBadRequest {
		t.Fatalf("same jti: status = %d, want 400", rec.Code)
	}
	if got := rev.revoked(); len(got) != 1 {
		t.Errorf("revoked %q, want one revoke", got)
	}
}

func TestBackChannelLogoutConcurrentReplay(t *testing.T) {
	clock := newFakeClock()
	iss, verifier := newTestIssuer(t, clock)
	rev := &recordingRevoker{}
	h := oidcclaims.BackChannelLogout(verifier, rev, oidcclaims.WithClock(clock.Now), quiet())
	token := iss.sign(iss.key, "logout+jwt", logoutClaims(iss, clock.Now(), "jti-race"))
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { postLogout(t, h, token) })
	}
	wg.Wait()
	if got := rev.revoked(); len(got) != 1 {
		t.Errorf("revoked %d times, want once", len(got))
	}
}

func TestBackChannelLogoutSessionOnly(t *testing.T) {
	clock := newFakeClock()
	iss, verifier := newTestIssuer(t, clock)
	rev := &sessionRevoker{}
	h := oidcclaims.BackChannelLogout(verifier, rev, oidcclaims.WithClock(clock.Now), quiet())
	c := logoutClaims(iss, clock.Now(), "jti-sid")
	delete(c, "sub")
	if rec := postLogout(t, h, iss.sign(iss.key, "logout+jwt", c)); rec.Code != http.StatusOK {
		t.Fatalf("status = %d, want 200", rec.Code)
	}
	if len(rev.sessions) != 1 || rev.sessions[0] != "sid-7" {
		t.Errorf("sessions revoked %q, want [sid-7]", rev.sessions)
	}
	if got := rev.revoked(); len(got) != 0 {
		t.Errorf("subjects revoked %q, want none", got)
	}
}

func TestBackChannelLogoutRevokeFailure(t *testing.T) {
	clock := newFakeClock()
	iss, verifier := newTestIssuer(t, clock)
	rev := &recordingRevoker{fail: errors.New("store down")}
	h := oidcclaims.BackChannelLogout(verifier, rev,
		oidcclaims.WithClock(clock.Now),
		oidcclaims.WithLogger(slog.New(slog.DiscardHandler)))
	token := iss.sign(iss.key, "logout+jwt", logoutClaims(iss, clock.Now(), "jti-retry"))
	if rec := postLogout(t, h, token); rec.Code != http.StatusBadRequest {
		t.Fatalf("failing revoke: status = %d, want 400", rec.Code)
	}
	rev.mu.Lock()
	rev.fail = nil
	rev.mu.Unlock()
	if rec := postLogout(t, h, token); rec.Code != http.StatusOK {
		t.Fatalf("retry: status = %d, want 200", rec.Code)
	}
}

func TestBackChannelLogoutRequestShape(t *testing.T) {
	clock := newFakeClock()
	_, verifier := newTestIssuer(t, clock)
	tests := []struct {
		name        string
		method      string
		contentType string
		body        string
		want        int
	}{
		{"GET", http.MethodGet, "", "", http.StatusMethodNotAllowed},
		{"no token field", http.MethodPost, "application/x-www-form-urlencoded", "other=1", http.StatusBadRequest},
		{"json body", http.MethodPost, "application/json", `{"logout_token":"x"}`, http.StatusBadRequest},
		{"oversized body", http.MethodPost, "application/x-www-form-urlencoded", "logout_token=" + strings.Repeat("a", 64<<10), http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rev := &recordingRevoker{}
			h := oidcclaims.BackChannelLogout(verifier, rev,
				oidcclaims.WithClock(clock.Now),
				oidcclaims.WithLogger(slog.New(slog.DiscardHandler)),
				oidcclaims.WithMaxBodyBytes(4<<10))
			req := httptest.NewRequest(tt.method, "/backchannel-logout", strings.NewReader(tt.body))
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Errorf("status = %d, want %d", rec.Code, tt.want)
			}
			if len(rev.revoked()) != 0 {
				t.Errorf("revoked something")
			}
		})
	}
}

// quiet discards the handler's log.
func quiet() oidcclaims.LogoutOption {
	return oidcclaims.WithLogger(slog.New(slog.DiscardHandler))
}

func TestBackChannelLogoutNeedsVerifierAndRevoker(t *testing.T) {
	clock := newFakeClock()
	_, verifier := newTestIssuer(t, clock)
	tests := []struct {
		name     string
		verifier *oidc.IDTokenVerifier
		revoker  oidcclaims.SubjectRevoker
	}{
		{"nil verifier", nil, &recordingRevoker{}},
		{"nil revoker", verifier, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			oidcclaims.BackChannelLogout(tt.verifier, tt.revoker)
		})
	}
}

// TestBackChannelLogoutIssuedAt checks the iat bound: at most the clock skew
// in the future; an old iat is fine while the token has not expired.
func TestBackChannelLogoutIssuedAt(t *testing.T) {
	clock := newFakeClock()
	iss, verifier := newTestIssuer(t, clock)
	now := clock.Now()
	skew := oidcclaims.DefaultClockSkew
	tests := []struct {
		name string
		opts []oidcclaims.LogoutOption
		iat  any // a time, or nil for no iat claim
		want int
	}{
		{"now", nil, now, http.StatusOK},
		{"an hour ago, not expired", nil, now.Add(-time.Hour), http.StatusOK},
		{"skew-1s ahead", nil, now.Add(skew - time.Second), http.StatusOK},
		{"skew ahead", nil, now.Add(skew), http.StatusOK},
		{"skew+1s ahead", nil, now.Add(skew + time.Second), http.StatusBadRequest},
		{"a day ahead", nil, now.Add(24 * time.Hour), http.StatusBadRequest},
		{"missing", nil, nil, http.StatusBadRequest},
		{"WithClockSkew(30s), 29s ahead", []oidcclaims.LogoutOption{oidcclaims.WithClockSkew(30 * time.Second)},
			now.Add(29 * time.Second), http.StatusOK},
		{"WithClockSkew(30s), 31s ahead", []oidcclaims.LogoutOption{oidcclaims.WithClockSkew(30 * time.Second)},
			now.Add(31 * time.Second), http.StatusBadRequest},
		{"WithClockSkew(0), 1s ahead", []oidcclaims.LogoutOption{oidcclaims.WithClockSkew(0)},
			now.Add(time.Second), http.StatusBadRequest},
		{"negative skew means the default", []oidcclaims.LogoutOption{oidcclaims.WithClockSkew(-time.Second)},
			now.Add(skew - time.Second), http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			rev := &recordingRevoker{}
			opts := append([]oidcclaims.LogoutOption{
				oidcclaims.WithClock(clock.Now),
				oidcclaims.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
			}, tt.opts...)
			h := oidcclaims.BackChannelLogout(verifier, rev, opts...)
			c := logoutClaims(iss, now, "jti-iat-"+strings.ReplaceAll(t.Name(), "/", "-"))
			if iat, ok := tt.iat.(time.Time); ok {
				c["iat"] = iat.Unix()
				exp := now.Add(2 * time.Minute)
				if iat.After(now) {
					exp = iat.Add(2 * time.Minute)
				}
				c["exp"] = exp.Unix()
			} else {
				delete(c, "iat")
			}
			token := iss.sign(iss.key, "logout+jwt", c)
			rec := postLogout(t, h, token)
			if rec.Code != tt.want {
				t.Fatalf("status = %d, want %d; log: %s", rec.Code, tt.want, logs.String())
			}
			if strings.Contains(logs.String(), token) {
				t.Errorf("log holds the token: %s", logs.String())
			}
			if tt.want == http.StatusOK {
				return
			}
			if len(rev.revoked()) != 0 {
				t.Errorf("revoked %q, want nothing", rev.revoked())
			}
			wantLog := "ahead of the clock"
			if tt.iat == nil {
				wantLog = "no iat claim"
			}
			if !strings.Contains(logs.String(), wantLog) {
				t.Errorf("log does not say %q: %s", wantLog, logs.String())
			}
		})
	}
}

// failingList is a list of ended logins whose writes fail when fail is
// set, and that records the sids and subjects it ended.
type failingList struct {
	middleware.EndedLogins
	mu       sync.Mutex
	fail     error
	sids     []string
	subjects []string
}

func (l *failingList) EndLoginsOf(_ context.Context, subject string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail != nil {
		return l.fail
	}
	l.subjects = append(l.subjects, subject)
	return nil
}

func (l *failingList) EndLoginsOfSID(_ context.Context, sid string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail != nil {
		return l.fail
	}
	l.sids = append(l.sids, sid)
	return nil
}

// TestEndingLogins: through the handler, a token with only a sid ends the
// host logins of that provider session and revokes their embed sessions;
// a token with sub ends the subject's. When either side could not end
// what the token names (the list is down, the embed revoker has no
// provider-session capability or fails), the answer is 400, not 200, and
// the other side still runs.
func TestEndingLogins(t *testing.T) {
	tests := []struct {
		name      string
		sidOnly   bool
		listErr   error
		embedErr  error
		noSIDCap  bool
		wantCode  int
		wantSIDs  []string
		wantSubs  []string
		wantEmbed []string
	}{
		{name: "sid only", sidOnly: true, wantCode: http.StatusOK, wantSIDs: []string{"sid-7"}, wantEmbed: []string{"sid-7"}},
		{name: "sub and sid", wantCode: http.StatusOK, wantSubs: []string{"user-42"}, wantEmbed: []string{"user-42"}},
		{name: "sid only, list down", sidOnly: true, listErr: errors.New("redis down"), wantCode: http.StatusBadRequest, wantEmbed: []string{"sid-7"}},
		{name: "sid only, embed revoke fails", sidOnly: true, embedErr: errors.New("store down"), wantCode: http.StatusBadRequest, wantSIDs: []string{"sid-7"}},
		{name: "sid only, embed revoker without the capability", sidOnly: true, noSIDCap: true, wantCode: http.StatusBadRequest, wantSIDs: []string{"sid-7"}},
		{name: "sub, list down", listErr: errors.New("redis down"), wantCode: http.StatusBadRequest, wantEmbed: []string{"user-42"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			iss, verifier := newTestIssuer(t, clock)
			list := &failingList{fail: tt.listErr}
			var embed oidcclaims.SubjectRevoker
			sr := &sessionRevoker{recordingRevoker: recordingRevoker{fail: tt.embedErr}}
			if tt.noSIDCap {
				embed = &sr.recordingRevoker
			} else {
				embed = sr
			}
			h := oidcclaims.BackChannelLogout(verifier, oidcclaims.EndingLogins(list, embed), oidcclaims.WithClock(clock.Now), quiet())
			c := logoutClaims(iss, clock.Now(), "jti-"+tt.name)
			if tt.sidOnly {
				delete(c, "sub")
			}
			if rec := postLogout(t, h, iss.sign(iss.key, "logout+jwt", c)); rec.Code != tt.wantCode {
				t.Errorf("status = %d, want %d", rec.Code, tt.wantCode)
			}
			if !slices.Equal(list.sids, tt.wantSIDs) || !slices.Equal(list.subjects, tt.wantSubs) {
				t.Errorf("host logins ended: sids %q subjects %q; want %q %q", list.sids, list.subjects, tt.wantSIDs, tt.wantSubs)
			}
			gotEmbed := append(sr.sessions, sr.revoked()...)
			if !slices.Equal(gotEmbed, tt.wantEmbed) {
				t.Errorf("embed sessions revoked for %q, want %q", gotEmbed, tt.wantEmbed)
			}
		})
	}
	for _, tt := range []struct {
		name   string
		list   middleware.EndedLogins
		embeds oidcclaims.SubjectRevoker
	}{{"nil list", nil, &recordingRevoker{}}, {"nil embeds", &failingList{}, nil}} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("EndingLogins did not panic")
				}
			}()
			oidcclaims.EndingLogins(tt.list, tt.embeds)
		})
	}
}
