package middleware_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

// Hostile input through the kit's handlers, against the emulator. Every
// case must end in a clear refusal (or the hostile part dropped) with the
// emulator's session count unchanged. Run them with
//
//	go test -race -run TestHostile ./middleware/

// recordingPlatform remembers the last generate-session request the kit
// sent through it.
type recordingPlatform struct {
	middleware.Platform
	mu   sync.Mutex
	last *embedkit.GenerateSessionRequest
}

func (p *recordingPlatform) GenerateSession(ctx context.Context, req *embedkit.GenerateSessionRequest) (*embedkit.Session, error) {
	p.mu.Lock()
	p.last = req
	p.mu.Unlock()
	return p.Platform.GenerateSession(ctx, req)
}

func (p *recordingPlatform) lastRequest() *embedkit.GenerateSessionRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// hostileKit is a Kit on the emulator whose viewer comes from identity.
type hostileKit struct {
	kit      *middleware.Kit
	platform *embedkittest.Platform
	recorder *recordingPlatform
	logs     *relLogs
}

// newHostileKit builds a Kit on a fresh emulator (embedkittest.Platform).
// Every record of the client and the Kit is checked for the platform's
// secrets (API key, session ids, tokens) on its way to h.logs. edit, when
// set, changes the config before New.
func newHostileKit(t *testing.T, identity middleware.Identity, edit func(*middleware.Config)) *hostileKit {
	t.Helper()
	h := &hostileKit{logs: &relLogs{}}
	h.platform = embedkittest.NewPlatform(t,
		embedkittest.WithLogHandler(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		embedkittest.WithClientOptions(embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 1})))
	h.recorder = &recordingPlatform{Platform: h.platform.Client()}
	cfg := h.platform.KitConfig() // PlatformURL, Policy.DeploymentID 1 and the checked Logger
	cfg.Platform = h.recorder
	cfg.Identity = identity
	cfg.Store = memstore.New()
	cfg.Policy.Groups.Allowed = []string{"sales", "emea"}
	cfg.Policy.Attributes.Allowed = []string{"region"}
	// The host maps one claim of its identity provider into the security
	// context, as hosts do.
	cfg.Policy.SecurityContextFunc = func(_ *http.Request, v *middleware.Viewer) (map[string]any, error) {
		if sc, ok := v.Attributes["scope"]; ok {
			return map[string]any{"scope": sc}, nil
		}
		return nil, nil
	}
	cfg.Targets = map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}}
	if edit != nil {
		edit(&cfg)
	}
	var err error
	h.kit, err = middleware.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// frame serves a GET of target on the frame endpoint.
func (h *hostileKit) frame(target string, header http.Header) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	maps := r.Header
	for k, vs := range header {
		maps[k] = vs
	}
	w := httptest.NewRecorder()
	h.kit.FrameHandler().ServeHTTP(w, r)
	return w
}

// nestedContext returns a value nested depth levels deep.
func nestedContext(depth int) any {
	var v any = "leaf"
	for range depth {
		v = map[string]any{"k": v}
	}
	return v
}

func TestHostileViewerData(t *testing.T) {
	tenThousand := make([]string, 10000)
	for i := range tenThousand {
		tenThousand[i] = "group-" + strconv.Itoa(i)
	}
	tenThousand[42] = "sales"
	cases := []struct {
		name   string
		viewer middleware.Viewer
		edit   func(*middleware.Config)
		// wantStatus is the frame endpoint's answer; 303 means the hostile
		// part was dropped and a session minted without it.
		wantStatus int
		// wantLog is a fragment the operator's log must hold.
		wantLog string
		// check inspects the request sent when a session was minted.
		check func(t *testing.T, req *embedkit.GenerateSessionRequest)
	}{
		{name: "security context nested 1000 levels", viewer: middleware.Viewer{Subject: "ana", Attributes: map[string]any{"scope": nestedContext(1000)}},
			wantStatus: http.StatusInternalServerError, wantLog: "securityContext"},
		{name: "security context of 10 MB", viewer: middleware.Viewer{Subject: "ana", Attributes: map[string]any{"scope": strings.Repeat("x", 10<<20)}},
			wantStatus: http.StatusBadGateway, wantLog: "413"},
		{name: "10,000 groups, allow-listed", viewer: middleware.Viewer{Subject: "ana", Groups: tenThousand},
			wantStatus: http.StatusSeeOther, check: func(t *testing.T, req *embedkit.GenerateSessionRequest) {
				if !slices.Equal(req.Groups, []string{"sales"}) {
					t.Errorf("groups sent %d names, want only the allow-listed [sales]", len(req.Groups))
				}
			}},
		{name: "10,000 groups, no allow-list", viewer: middleware.Viewer{Subject: "ana", Groups: tenThousand},
			edit:       func(c *middleware.Config) { c.Policy.Groups.Allowed = nil },
			wantStatus: http.StatusBadGateway, wantLog: "Groups with names"},
		{name: "subject with a NUL", viewer: middleware.Viewer{Subject: "ana\x00admin"},
			wantStatus: http.StatusInternalServerError, wantLog: "externalId: must not contain control characters"},
		{name: "subject with a newline", viewer: middleware.Viewer{Subject: "ana\nadmin"},
			wantStatus: http.StatusInternalServerError, wantLog: "externalId"},
		{name: "subject with an escape sequence", viewer: middleware.Viewer{Subject: "ana\x1b]0;pwned\x07"},
			wantStatus: http.StatusInternalServerError, wantLog: "externalId"},
		{name: "subject with a C1 control", viewer: middleware.Viewer{Subject: "ana\u009badmin"},
			wantStatus: http.StatusInternalServerError, wantLog: "externalId"},
		{name: "subject of invalid UTF-8", viewer: middleware.Viewer{Subject: "ana\xffadmin"},
			wantStatus: http.StatusInternalServerError, wantLog: "externalId"},
		// The platform states no length limit for externalId: a long subject
		// is sent as it is.
		{name: "long subject is sent as it is", viewer: middleware.Viewer{Subject: strings.Repeat("a", 1000)},
			wantStatus: http.StatusSeeOther, check: func(t *testing.T, req *embedkit.GenerateSessionRequest) {
				if req.ExternalID != strings.Repeat("a", 1000) {
					t.Errorf("externalId of %d bytes, want the 1000 bytes of the subject", len(req.ExternalID))
				}
			}},
		{name: "look-alike subject is its own user", viewer: middleware.Viewer{Subject: "\u0430dmin"}, // Cyrillic a
			wantStatus: http.StatusSeeOther, check: func(t *testing.T, req *embedkit.GenerateSessionRequest) {
				if req.ExternalID != "\u0430dmin" || req.ExternalID == "admin" {
					t.Errorf("externalId %q, want the look-alike passed through as is", req.ExternalID)
				}
			}},
		{name: "subject with the Kelvin sign is refused, not merged into kate", viewer: middleware.Viewer{Subject: "\u212Aate"},
			wantStatus: http.StatusInternalServerError, wantLog: "externalId: trimming and lower-casing may change it in ASCII only"},
		{name: "subject with the Angstrom sign is refused", viewer: middleware.Viewer{Subject: "\u212Bsa"},
			wantStatus: http.StatusInternalServerError, wantLog: "U+212A"},
		{name: "subject with a capital I with dot is refused", viewer: middleware.Viewer{Subject: "\u0130van"},
			wantStatus: http.StatusInternalServerError, wantLog: "externalId"},
		{name: "subject with a non-ASCII capital is refused", viewer: middleware.Viewer{Subject: "\u00c9lodie"},
			wantStatus: http.StatusInternalServerError, wantLog: "externalId"},
		{name: "subject ending in a no-break space is refused", viewer: middleware.Viewer{Subject: "kate\u00a0"},
			wantStatus: http.StatusInternalServerError, wantLog: "externalId"},
		{name: "subject in ASCII capitals is lower-cased", viewer: middleware.Viewer{Subject: " KATE\t"},
			wantStatus: http.StatusSeeOther, check: func(t *testing.T, req *embedkit.GenerateSessionRequest) {
				if req.ExternalID != "kate" {
					t.Errorf("externalId %q, want kate", req.ExternalID)
				}
			}},
		{name: "picture javascript: URL", viewer: middleware.Viewer{Subject: "ana", DisplayName: "Ana", Picture: "javascript:alert(document.cookie)"},
			wantStatus: http.StatusSeeOther, check: noPicture},
		{name: "picture relative URL", viewer: middleware.Viewer{Subject: "ana", DisplayName: "Ana", Picture: "/avatars/ana.png"},
			wantStatus: http.StatusSeeOther, check: noPicture},
		{name: "picture scheme-relative URL", viewer: middleware.Viewer{Subject: "ana", DisplayName: "Ana", Picture: "//evil.example/a.png"},
			wantStatus: http.StatusSeeOther, check: noPicture},
		{name: "picture data: URL", viewer: middleware.Viewer{Subject: "ana", DisplayName: "Ana", Picture: "data:image/svg+xml,<svg onload=alert(1)>"},
			wantStatus: http.StatusSeeOther, check: noPicture},
		{name: "email with a header injection", viewer: middleware.Viewer{Subject: "ana", Email: "ana@example.com\r\nBcc: all@example.com"},
			wantStatus: http.StatusSeeOther, check: func(t *testing.T, req *embedkit.GenerateSessionRequest) {
				if req.Email != "" {
					t.Errorf("email %q was sent", req.Email)
				}
			}},
		{name: "tenant with a path", viewer: middleware.Viewer{Subject: "ana", Tenant: "../admin"},
			wantStatus: http.StatusInternalServerError, wantLog: "tenant"},
		{name: "attribute not allow-listed", viewer: middleware.Viewer{Subject: "ana", Attributes: map[string]any{"is_admin": true, "region": "emea"}},
			wantStatus: http.StatusSeeOther, check: func(t *testing.T, req *embedkit.GenerateSessionRequest) {
				if len(req.UserAttributes) != 1 || req.UserAttributes[0].Name != "region" {
					t.Errorf("attributes sent: %+v, want only region", req.UserAttributes)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := tc.viewer
			h := newHostileKit(t, middleware.IdentityFunc(func(*http.Request) (*middleware.Viewer, error) {
				cp := v
				return &cp, nil
			}), tc.edit)
			w := h.frame(relFramePath, nil)
			if w.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d; body %q", w.Code, tc.wantStatus, w.Body)
			}
			// A session id only in the redirect's Location, nothing else anywhere.
			embedkittest.CheckResponse(t, h.platform, w.Result(), embedkittest.AllowFrameRedirect())
			sessions := h.platform.Emulator().Sessions()
			if tc.wantStatus != http.StatusSeeOther {
				if len(sessions) != 0 {
					t.Errorf("%d sessions minted for a refused viewer", len(sessions))
				}
				if strings.Contains(w.Body.String(), "embedkit") || len(w.Body.String()) > 512 {
					t.Errorf("the page shows internals: %q", w.Body)
				}
				if logs := h.logs.String(); !strings.Contains(logs, tc.wantLog) {
					t.Errorf("the logs do not mention %q", tc.wantLog)
				} else if len(logs) > 64<<10 {
					t.Errorf("the logs grew by %d bytes for one refused page view", len(logs))
				}
				return
			}
			if len(sessions) != 1 {
				t.Fatalf("%d sessions, want 1", len(sessions))
			}
			req := h.recorder.lastRequest()
			if sessions[0].ExternalID != req.ExternalID {
				t.Errorf("the platform's user %q is not the one sent %q", sessions[0].ExternalID, req.ExternalID)
			}
			tc.check(t, req)
		})
	}
}

// noPicture checks that an unsafe picture was left out.
func noPicture(t *testing.T, req *embedkit.GenerateSessionRequest) {
	t.Helper()
	if req.UserProfile == nil || req.UserProfile.DisplayName != "Ana" {
		t.Errorf("the profile was lost: %+v", req.UserProfile)
	}
	if req.UserProfile != nil && req.UserProfile.Picture != "" {
		t.Errorf("picture %q was sent", req.UserProfile.Picture)
	}
}

func TestHostileQueryStringCannotSetIdentity(t *testing.T) {
	h := newHostileKit(t, relIdentity, nil)
	attack := url.Values{
		"externalId":      {"admin"},
		"internalId":      {"admin"},
		"groups":          {"admin", "emea"},
		"securityContext": {`{"tenant":"*","role":"admin"}`},
		"deploymentId":    {"2"},
		"embedTenantName": {"other-tenant"},
		"creatorMode":     {"true"},
		"userAttributes":  {`[{"name":"region","value":"all"}]`},
		"session":         {"0123456789abcdef0123456789abcdef"},
		"locale":          {"de-DE\r\nSet-Cookie: x=1"},
		"timezone":        {"../../etc/passwd"},
	}
	w := h.frame(relFramePath+"?"+attack.Encode(), http.Header{"X-User": {"ana"}, "X-Session": {"login-1"}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("status %d, want 303", w.Code)
	}
	sessions := h.platform.Emulator().Sessions()
	if len(sessions) != 1 || sessions[0].ExternalID != "ana" || sessions[0].DeploymentID != 1 {
		t.Fatalf("minted %+v, want one session for ana on deployment 1", sessions)
	}
	req := h.recorder.lastRequest()
	if req.InternalID != "" || req.SecurityContext != nil || req.EmbedTenantName != "" || req.CreatorMode != nil ||
		!slices.Equal(req.Groups, []string{"sales"}) || req.UserAttributes != nil {
		t.Errorf("the query string reached the request: %+v", req)
	}
	loc, err := url.Parse(w.Header().Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if got := loc.Query()["session"]; len(got) != 1 || got[0] != sessions[0].SessionID {
		t.Error("the iframe URL does not carry exactly the minted session")
	}
	for _, bad := range []string{"Set-Cookie", "passwd", "\r", "\n"} {
		if strings.Contains(w.Header().Get("Location"), bad) {
			t.Errorf("the iframe URL carries %q from the query string", bad)
		}
	}
	// Nothing else in the answer carries a secret: the minted id is in the
	// Location's session parameter only.
	embedkittest.CheckResponse(t, h.platform, w.Result(), embedkittest.AllowFrameRedirect())
}

func TestHostileLoginReturnPath(t *testing.T) {
	h := newHostileKit(t, relIdentity, func(c *middleware.Config) { c.Paths.Login = "/login" })
	cases := []struct {
		name, target string
		wantStatus   int
	}{
		{name: "query with //evil", target: relFramePath + "?next=//evil.example", wantStatus: http.StatusSeeOther},
		{name: "query with /\\evil", target: relFramePath + `?x=/\evil.example`, wantStatus: http.StatusSeeOther},
		{name: "query with an absolute URL", target: relFramePath + "?to=https://evil.example/", wantStatus: http.StatusSeeOther},
		{name: "encoded slashes in the path", target: "/embed/frame/%2F%2Fevil.example", wantStatus: http.StatusNotFound},
		{name: "backslash path", target: `/embed/frame/\evil.example`, wantStatus: http.StatusNotFound},
		{name: "path outside the frame prefix", target: "//evil.example/embed/frame/sales", wantStatus: http.StatusNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := h.frame(tc.target, nil)
			if w.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d", w.Code, tc.wantStatus)
			}
			if w.Code != http.StatusSeeOther {
				if loc := w.Header().Get("Location"); loc != "" {
					t.Errorf("a refused frame path redirects to %q", loc)
				}
				return
			}
			loc, err := url.Parse(w.Header().Get("Location"))
			if err != nil || loc.Path != "/login" || loc.Host != "" {
				t.Fatalf("redirect %q is not the login page", w.Header().Get("Location"))
			}
			next := loc.Query().Get("next")
			base, _ := url.Parse("https://host.example/")
			back, err := base.Parse(next)
			if err != nil || back.Host != "host.example" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") {
				t.Errorf("return path %q leaves the host", next)
			}
		})
	}
	if n := len(h.platform.Emulator().Sessions()); n != 0 {
		t.Errorf("%d sessions minted without a viewer", n)
	}
}

func TestHostileSafeReturnPath(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"same-origin path", "/dash/1?tab=2", "/dash/1?tab=2"},
		{"protocol-relative", "//evil.example", "/"},
		{"backslash", `/\evil.example`, "/"},
		{"tab after slash", "/\t/evil.example", "/"},
		{"absolute URL", "https://evil.example", "/"},
		{"javascript URL", "javascript:alert(1)", "/"},
		{"encoded slashes", "/%2F%2Fevil.example", "/"},
		{"encoded backslash", "/%5Cevil.example", "/"},
		{"encoded CRLF", "/%0D%0ALocation:%20https://evil.example", "/"},
		{"double-encoded slashes", "/%252F%252Fevil.example", "/"},
		{"empty", "", "/"},
		{"relative", "dash/1", "/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := middleware.SafeReturnPath(tc.in)
			if got != tc.want {
				t.Fatalf("SafeReturnPath(%q) = %q, want %q", tc.in, got, tc.want)
			}
			base, _ := url.Parse("https://host.example/")
			if u, err := base.Parse(got); err != nil || u.Host != "host.example" {
				t.Errorf("%q leaves the host", got)
			}
		})
	}
}

// countingBody counts the bytes read from an endless body.
type countingBody struct {
	left int64
	read atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), b.left)
	for i := range p[:n] {
		p[i] = ' '
	}
	b.left -= n
	b.read.Add(n)
	return int(n), nil
}

func (b *countingBody) Close() error { return nil }

func TestHostileSessionEndpointBodies(t *testing.T) {
	cases := []struct {
		name string
		body io.Reader
	}{
		{name: "10 MB of white space", body: &countingBody{left: 10 << 20}},
		{name: "10 MB string member", body: strings.NewReader(`{"target":"sales","locale":"` + strings.Repeat("x", 10<<20) + `"}`)},
		{name: "nested 100,000 levels", body: strings.NewReader(strings.Repeat("[", 100000))},
		{name: "identity in the body", body: strings.NewReader(`{"target":"sales","externalId":"admin"}`)},
		{name: "security context in the body", body: strings.NewReader(`{"target":"sales","securityContext":{"role":"admin"}}`)},
		{name: "groups in the body", body: strings.NewReader(`{"target":"sales","groups":["admin"]}`)},
		{name: "two objects", body: strings.NewReader(`{"target":"sales"}{"target":"sales"}`)},
		{name: "not JSON", body: strings.NewReader(`target=sales`)},
		{name: "empty", body: strings.NewReader(``)},
	}
	h := newHostileKit(t, relIdentity, nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, middleware.DefaultSessionPath, tc.body)
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Sec-Fetch-Site", "same-origin")
			r.Header.Set("X-User", "ana")
			w := httptest.NewRecorder()
			h.kit.SessionHandler().ServeHTTP(w, r)
			if w.Code != http.StatusBadRequest && w.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d, want 400 or 413; body %q", w.Code, w.Body)
			}
			var e struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Errorf("answer %q is not a JSON error", w.Body)
			}
			if cb, ok := tc.body.(*countingBody); ok && cb.read.Load() > 64<<10 {
				t.Errorf("the endpoint read %d bytes of an oversized body", cb.read.Load())
			}
			if n := len(h.platform.Emulator().Sessions()); n != 0 {
				t.Fatalf("%d sessions minted from a refused body", n)
			}
		})
	}
}

func TestHostileLogoutBodyIsNotRead(t *testing.T) {
	// Logout reads no body: the host's own handler decides what to do
	// with one. An oversized body neither stalls the revokes nor stops the
	// logout.
	h := newHostileKit(t, relIdentity, nil)
	load := h.frame(relFramePath, http.Header{"X-User": {"ana"}, "X-Session": {"login-1"}})
	if load.Code != http.StatusSeeOther {
		t.Fatalf("frame load: %d", load.Code)
	}
	body := &countingBody{left: 10 << 20}
	var readByKit int64 = -1
	host := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		readByKit = body.read.Load()
		w.WriteHeader(http.StatusNoContent)
	})
	r := httptest.NewRequest(http.MethodPost, "/logout", body)
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.Header.Set("X-User", "ana")
	r.Header.Set("X-Session", "login-1")
	w := httptest.NewRecorder()
	h.kit.Logout(host).ServeHTTP(w, r)
	if w.Code != http.StatusNoContent || readByKit != 0 {
		t.Fatalf("status %d, kit read %d bytes before the host's logout; want 204 and 0", w.Code, readByKit)
	}
	embedkittest.AssertRevoked(t, h.platform, "ana")
	if n := len(h.platform.Emulator().Sessions()); n != 1 {
		t.Errorf("%d sessions on the platform, want ana's one", n)
	}
}

func TestHostileHostCookie(t *testing.T) {
	hashKey := []byte("an example hash key of 32 bytes!")
	otherKey := []byte("another hash key, also 32 bytes!")
	id := gorillasession.New(gorillasession.SecureCookieStore(hashKey), "host-session")
	forger := gorillasession.New(gorillasession.SecureCookieStore(otherKey), "host-session")

	cookieOf := func(idn *gorillasession.Identity, v *middleware.Viewer) *http.Cookie {
		t.Helper()
		w := httptest.NewRecorder()
		if err := idn.Save(w, httptest.NewRequest(http.MethodGet, "/callback", nil), v); err != nil {
			t.Fatal(err)
		}
		return w.Result().Cookies()[0]
	}
	good := cookieOf(id, &middleware.Viewer{Subject: "ana"})
	flip := func(s string, i int) string {
		b := []byte(s)
		b[i] ^= 0x01
		return string(b)
	}
	cases := []struct {
		name   string
		cookie *http.Cookie
		ok     bool
	}{
		{name: "genuine cookie", cookie: good, ok: true},
		{name: "one bit flipped in the value", cookie: &http.Cookie{Name: good.Name, Value: flip(good.Value, len(good.Value)/2)}},
		{name: "one bit flipped in the signature", cookie: &http.Cookie{Name: good.Name, Value: flip(good.Value, len(good.Value)-3)}},
		{name: "signed with another key for admin", cookie: cookieOf(forger, &middleware.Viewer{Subject: "admin", Groups: []string{"emea"}})},
		{name: "unsigned viewer JSON", cookie: &http.Cookie{Name: good.Name, Value: base64.URLEncoding.EncodeToString([]byte(`{"sub":"admin"}`))}},
		{name: "not base64", cookie: &http.Cookie{Name: good.Name, Value: "%%%not-base64%%%"}},
		{name: "empty", cookie: &http.Cookie{Name: good.Name, Value: ""}},
		{name: "8 KB of junk", cookie: &http.Cookie{Name: good.Name, Value: strings.Repeat("A", 8<<10)}},
	}
	for _, login := range []string{"", "/login"} {
		h := newHostileKit(t, id, func(c *middleware.Config) { c.Paths.Login = login })
		for _, tc := range cases {
			t.Run(tc.name+" login "+strconv.Quote(login), func(t *testing.T) {
				before := len(h.platform.Emulator().Sessions())
				r := httptest.NewRequest(http.MethodGet, relFramePath, nil)
				r.AddCookie(tc.cookie)
				w := httptest.NewRecorder()
				h.kit.FrameHandler().ServeHTTP(w, r)
				after := len(h.platform.Emulator().Sessions())
				if tc.ok {
					if w.Code != http.StatusSeeOther || after != before+1 {
						t.Fatalf("genuine cookie: status %d, %d new sessions", w.Code, after-before)
					}
					return
				}
				want := http.StatusUnauthorized
				if login != "" {
					want = http.StatusSeeOther
				}
				if w.Code != want {
					t.Fatalf("status %d, want %d (treated as nobody logged in)", w.Code, want)
				}
				if login != "" && !strings.HasPrefix(w.Header().Get("Location"), "/login?") {
					t.Errorf("redirect to %q, want the login page", w.Header().Get("Location"))
				}
				if after != before {
					t.Errorf("a forged cookie minted %d sessions", after-before)
				}
			})
		}
	}
}
