package emulator

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

const pagesAdminKey = "ek_test_pages_admin"

var pagesEpoch = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// newPagesServer is a Server with one deployment holding a published and
// an unpublished dashboard, a second deployment, and an admin key; its
// base clock is fixed at pagesEpoch.
func newPagesServer(t *testing.T) *Server {
	t.Helper()
	return newPagesServerWith(t, func(*Fixture) {})
}

// newPagesServerWith is newPagesServer with its fixture changed by edit
// first.
func newPagesServerWith(t *testing.T, edit func(*Fixture)) *Server {
	t.Helper()
	f := &Fixture{
		Tenant:          "acme",
		Embedding:       true,
		RevocationClaim: true,
		Users:           []User{{Username: "admin", Email: "admin@acme.test", Admin: true}},
		APIKeys:         []APIKey{{Key: pagesAdminKey, User: "admin"}},
		Groups:          []string{"sales", "emea", "amer", "apac"},
		UserAttributes:  []AttributeDefinition{{Name: "region", Type: "string"}},
		Deployments: []Deployment{
			{ID: 1, Name: "Sales", CreatedAt: pagesEpoch, Dashboards: []Dashboard{
				{ID: 10, PublicID: "sales-overview", Title: "Sales <overview>", Published: true, Managers: []string{"admin"}},
				{ID: 11, PublicID: "draft-board", Title: "Draft", Published: false, Managers: []string{"admin"}},
			}},
			{ID: 2, Name: "Ops", CreatedAt: pagesEpoch},
		},
	}
	edit(f)
	s, err := New(f, WithClock(func() time.Time { return pagesEpoch }))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// serve runs one request through h and returns the response.
func serve(t *testing.T, h http.Handler, method, target, auth string, body io.Reader) *http.Response {
	t.Helper()
	r := httptest.NewRequest(method, target, body)
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func readBody(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// embedToken mints a session over the management API and exchanges it,
// as a host backend and the iframe would.
func embedToken(t *testing.T, s *Server, request string) (sessionID, token string) {
	t.Helper()
	res := serve(t, s, "POST", "/api/v1/embed/generate-session", "Bearer "+pagesAdminKey, strings.NewReader(request))
	body := readBody(t, res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("generate-session: %d %s", res.StatusCode, body)
	}
	var gen struct{ SessionID string }
	if err := json.Unmarshal([]byte(body), &gen); err != nil {
		t.Fatal(err)
	}
	res = serve(t, s, "POST", "/api/v1/embed/session/token", "", strings.NewReader(`{"sessionId":"`+gen.SessionID+`"}`))
	body = readBody(t, res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("session/token: %d %s", res.StatusCode, body)
	}
	var ex struct{ Token string }
	if err := json.Unmarshal([]byte(body), &ex); err != nil {
		t.Fatal(err)
	}
	return gen.SessionID, ex.Token
}

var (
	scriptTag  = regexp.MustCompile(`(?i)<script\b[^>]*>`)
	eventAttr  = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	styleAttr  = regexp.MustCompile(`(?i)\sstyle\s*=|<style\b`)
	jsURL      = regexp.MustCompile(`(?i)javascript:`)
	stableIDs  = []string{"viewer-name", "dashboard-title", "rows", "chart", "status", "locale", "timezone"}
	pageHeader = map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Security-Policy": embedCSP,
		"X-Content-Type-Options":  "nosniff",
		"Cache-Control":           "no-store",
	}
)

func TestEmbedPage(t *testing.T) {
	s := newPagesServer(t)
	tests := []struct {
		name, target           string
		surface, title, param  string
		publicID, deploymentID string
	}{
		{"dashboard", "/embed/dashboard/sales-overview?session=0123", "dashboard", "Sales &lt;overview&gt;", "session", "sales-overview", "0"},
		{"dashboard in deployment", "/embed/d/1/dashboard/sales-overview?session=0123&locale=de-DE", "dashboard", "Sales &lt;overview&gt;", "session", "sales-overview", "1"},
		{"creator-mode app", "/embed/d/2/app?session=0123", "app", "Creator workspace", "session", "", "2"},
		{"analytics chat", "/embed/chat?sessionId=0123", "chat", "Analytics chat", "sessionId", "", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := serve(t, s, "GET", tt.target, "", nil)
			body := readBody(t, res)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", res.StatusCode, body)
			}
			for k, v := range pageHeader {
				if got := res.Header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			for _, id := range stableIDs {
				if !strings.Contains(body, `id="`+id+`"`) {
					t.Errorf("no element #%s", id)
				}
			}
			for _, want := range []string{
				`data-surface="` + tt.surface + `"`,
				`data-session-param="` + tt.param + `"`,
				`data-public-id="` + tt.publicID + `"`,
				`data-deployment-id="` + tt.deploymentID + `"`,
				`<h1 id="dashboard-title">` + tt.title + `</h1>`,
				`<script src="/embed/assets/embed.js" defer></script>`,
			} {
				if !strings.Contains(body, want) {
					t.Errorf("page lacks %s", want)
				}
			}
			for _, tag := range scriptTag.FindAllString(body, -1) {
				if !strings.Contains(tag, ` src="`) {
					t.Errorf("inline script: %s", tag)
				}
			}
			if m := eventAttr.FindString(body); m != "" {
				t.Errorf("inline event handler %q", m)
			}
			if m := styleAttr.FindString(body); m != "" {
				t.Errorf("inline style %q", m)
			}
			if jsURL.MatchString(body) {
				t.Error("javascript: URL in the page")
			}
			if strings.Contains(body, "0123") {
				t.Error("the session id is written into the page")
			}
		})
	}
}

// TestEmbedPageSessionRenewal checks what the page is told of the
// platform's session renewal: on unless the fixture plays a platform
// predating it, and the lead of session-expiring in milliseconds.
func TestEmbedPageSessionRenewal(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Fixture)
		wants []string
	}{
		{"current platform, default lead", func(*Fixture) {}, []string{`data-session-renewal="on"`, `data-session-expiring-lead-ms="600000"`}},
		{"lead of 15m", func(f *Fixture) { f.SessionExpiringLead = "15m" }, []string{`data-session-renewal="on"`, `data-session-expiring-lead-ms="900000"`}},
		{"older platform", func(f *Fixture) { f.PredatesSessionRenewal = true }, []string{`data-session-renewal="off"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newPagesServerWith(t, tt.edit)
			for _, target := range []string{"/embed/dashboard/sales-overview?session=0123", "/embed/d/1/app?session=0123", "/embed/chat?sessionId=0123"} {
				body := readBody(t, serve(t, s, "GET", target, "", nil))
				for _, want := range tt.wants {
					if !strings.Contains(body, want) {
						t.Errorf("%s lacks %s", target, want)
					}
				}
			}
		})
	}
	// A reset to a fixture of the older platform reaches the next page.
	s := newPagesServer(t)
	if err := s.Reset(&Fixture{Tenant: "acme", PredatesSessionRenewal: true}); err != nil {
		t.Fatal(err)
	}
	if body := readBody(t, serve(t, s, "GET", "/embed/chat?sessionId=0123", "", nil)); !strings.Contains(body, `data-session-renewal="off"`) {
		t.Error("after Reset to an older platform the page still plays renewal")
	}
}

func TestEmbedPageAppSubpath(t *testing.T) {
	s := newPagesServer(t)
	res := serve(t, s, "GET", "/embed/d/42/app/workbook/130?session=x", "", nil)
	body := readBody(t, res)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-surface="app"`) || !strings.Contains(body, `data-deployment-id="42"`) {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
}

func TestEmbedPageNotFound(t *testing.T) {
	s := newPagesServer(t)
	h := http.HandlerFunc(s.handleEmbedPage)
	for _, target := range []string{
		"/embed/dashboard/no-such-board?session=x",
		"/embed/dashboard/draft-board?session=x",
		"/embed/d/2/dashboard/sales-overview?session=x",
		"/embed/d/0/dashboard/sales-overview",
		"/embed/d/abc/app",
		"/embed/d/-1/app",
		"/embed/dashboard/",
		"/embed/dashboard/a/b",
		"/embed/chat/extra",
		"/embed/",
		"/embed/elsewhere",
		"/not-embed",
	} {
		t.Run(target, func(t *testing.T) {
			res := serve(t, h, "GET", target, "", nil)
			body := readBody(t, res)
			if res.StatusCode != http.StatusNotFound {
				t.Fatalf("status %d, want 404", res.StatusCode)
			}
			if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if !strings.Contains(body, "<!doctype html>") || !strings.Contains(body, `id="status"`) {
				t.Errorf("not an HTML error page: %s", body)
			}
		})
	}
}

func TestEmbedPageMethod(t *testing.T) {
	s := newPagesServer(t)
	res := serve(t, http.HandlerFunc(s.handleEmbedPage), "POST", "/embed/dashboard/sales-overview", "", nil)
	if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d, Allow %q", res.StatusCode, res.Header.Get("Allow"))
	}
	res = serve(t, http.HandlerFunc(s.handleEmbedPage), "HEAD", "/embed/dashboard/sales-overview", "", nil)
	if body := readBody(t, res); res.StatusCode != http.StatusOK || body != "" {
		t.Errorf("HEAD: %d, %d bytes", res.StatusCode, len(body))
	}
}

func TestEmbedAssets(t *testing.T) {
	s := newPagesServer(t)
	h := http.HandlerFunc(s.handleEmbedPage)
	// Through the server's routing, as a browser loads them.
	for _, path := range []string{"/embed/assets/embed.js", "/embed/assets/embed.css"} {
		if res := serve(t, s, "GET", path, "", nil); res.StatusCode != http.StatusOK {
			t.Errorf("GET %s through the server: %d", path, res.StatusCode)
		}
	}
	tests := []struct {
		path, ctype, contains string
		status                int
	}{
		{"/embed/assets/embed.js", "text/javascript; charset=utf-8", `"cube-embed"`, 200},
		{"/embed/assets/embed.css", "text/css; charset=utf-8", "--primary-color", 200},
		{"/embed/assets/page.html", "text/html; charset=utf-8", "", 404},
		{"/embed/assets/../pages.go", "text/html; charset=utf-8", "", 404},
		{"/embed/assets/", "text/html; charset=utf-8", "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res := serve(t, h, "GET", tt.path, "", nil)
			body := readBody(t, res)
			if res.StatusCode != tt.status || res.Header.Get("Content-Type") != tt.ctype {
				t.Fatalf("%d %q", res.StatusCode, res.Header.Get("Content-Type"))
			}
			if !strings.Contains(body, tt.contains) {
				t.Errorf("body lacks %q", tt.contains)
			}
			if res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Error("no nosniff")
			}
		})
	}
}

// TestEmbedScriptProtocol holds the page script to the platform's browser
// contract, ../../testdata/embed-protocol.json, read here on its own (the
// emulator shares no code with the kit's host script): every message type
// the script names is in the contract; every documented event is posted
// and every action handled; the source is the contract's; nothing goes to
// "*".
func TestEmbedScriptProtocol(t *testing.T) {
	js, err := assetFS.ReadFile("assets/embed.js")
	if err != nil {
		t.Fatal(err)
	}
	src := string(js)
	raw, err := os.ReadFile("../../testdata/embed-protocol.json")
	if err != nil {
		t.Fatal(err)
	}
	var proto struct {
		Envelope struct {
			Source string `json:"source"`
		} `json:"envelope"`
		Events []struct {
			Type       string `json:"type"`
			Documented bool   `json:"documented"`
		} `json:"events"`
		Actions []struct {
			Type       string `json:"type"`
			Documented bool   `json:"documented"`
		} `json:"actions"`
	}
	if err := json.Unmarshal(raw, &proto); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, e := range proto.Events {
		known[e.Type] = true
		if !e.Documented {
			continue
		}
		if !strings.Contains(src, `post("`+e.Type+`"`) {
			t.Errorf("embed.js never posts the documented event %s", e.Type)
		}
	}
	for _, a := range proto.Actions {
		known[a.Type] = true
		if !strings.Contains(src, `case "`+a.Type+`":`) {
			t.Errorf("embed.js does not handle the action %s", a.Type)
		}
	}
	for _, m := range regexp.MustCompile(`"((?:cube|platform):[a-z]+:[a-z-]+)"`).FindAllStringSubmatch(src, -1) {
		if !known[m[1]] {
			t.Errorf("embed.js names %s, which is not in the contract", m[1])
		}
	}
	if !strings.Contains(src, `var SOURCE = "`+proto.Envelope.Source+`";`) {
		t.Errorf("embed.js does not use the contract's source %q", proto.Envelope.Source)
	}
	for _, want := range []string{
		`"/api/v1/embed/session/token"`, `"/embed/api/context"`,
		"ev.origin !== parentOrigin", "Intl.NumberFormat", "Intl.DateTimeFormat",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("embed.js lacks %s", want)
		}
	}
	for _, banned := range []string{`"*"`, "localStorage", "sessionStorage", "document.cookie", "innerHTML", "eval(", "console.", "platform-embed", "renew-session"} {
		if strings.Contains(src, banned) {
			t.Errorf("embed.js uses %s", banned)
		}
	}
}

func TestEmbedContext(t *testing.T) {
	s := newPagesServer(t)
	_, tok := embedToken(t, s, `{
		"deploymentId": 1, "externalId": "ana", "email": "ana@example.com",
		"userProfile": {"displayName": "Ana Lima", "picture": "https://example.com/ana.png"},
		"groups": ["sales"], "userAttributes": [{"name": "region", "value": "emea"}],
		"securityContext": {"team": "north"},
		"settings": {"locale": "de-DE", "timezone": "Europe/Berlin", "showGroupByCube": false},
		"embedTheme": {"primaryColor": "#ff0066", "font": "Inter"}
	}`)

	res := serve(t, s, "GET", "/embed/api/context?publicId=sales-overview", "Bearer "+tok, nil)
	body := readBody(t, res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var got struct {
		ExternalID      string         `json:"externalId"`
		DisplayName     string         `json:"displayName"`
		Picture         string         `json:"picture"`
		Email           string         `json:"email"`
		Tenant          string         `json:"tenant"`
		DeploymentID    int64          `json:"deploymentId"`
		CreatorMode     *bool          `json:"creatorMode"`
		Settings        map[string]any `json:"settings"`
		Theme           map[string]any `json:"theme"`
		SecurityContext map[string]any `json:"securityContext"`
		Attributes      map[string]any `json:"attributes"`
		ExpiresAt       time.Time      `json:"expiresAt"`
		ServerTime      time.Time      `json:"serverTime"`
		PublicID        string         `json:"publicId"`
		Title           string         `json:"title"`
		Rows            []sampleRow    `json:"rows"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.ExternalID != "ana" || got.DisplayName != "Ana Lima" || got.Picture != "https://example.com/ana.png" ||
		got.Email != "ana@example.com" || got.Tenant != "acme" || got.DeploymentID != 1 ||
		got.CreatorMode == nil || *got.CreatorMode {
		t.Errorf("identity: %s", body)
	}
	if got.Settings["locale"] != "de-DE" || got.Settings["timezone"] != "Europe/Berlin" || got.Settings["showGroupByCube"] != false {
		t.Errorf("settings %v", got.Settings)
	}
	if got.Theme["primaryColor"] != "#ff0066" || got.Theme["font"] != "Inter" {
		t.Errorf("theme %v", got.Theme)
	}
	if got.SecurityContext["team"] != "north" || got.Attributes["region"] != "emea" {
		t.Errorf("securityContext %v, attributes %v", got.SecurityContext, got.Attributes)
	}
	if !got.ServerTime.Equal(pagesEpoch) || !got.ExpiresAt.Equal(pagesEpoch.Add(24*time.Hour)) {
		t.Errorf("serverTime %v, expiresAt %v", got.ServerTime, got.ExpiresAt)
	}
	if got.PublicID != "sales-overview" || got.Title != "Sales <overview>" {
		t.Errorf("publicId %q, title %q", got.PublicID, got.Title)
	}
	if want := sampleRowsFor("sales-overview", nil, map[string]any{"region": "EMEA"}); len(got.Rows) != len(want) || got.Rows[0] != want[0] {
		t.Errorf("rows: got %d (%v), want the %d EMEA rows", len(got.Rows), got.Rows, len(want))
	}
	for _, r := range got.Rows {
		if r.Region != "EMEA" {
			t.Fatalf("row of region %s leaked to an EMEA viewer", r.Region)
		}
	}

	// Without publicId: the rows, no title; the navigation either way.
	res = serve(t, s, "GET", "/embed/api/context", "Bearer "+tok, nil)
	body = readBody(t, res)
	var bare struct {
		Title      *string          `json:"title"`
		Rows       []sampleRow      `json:"rows"`
		Dashboards []embedDashboard `json:"dashboards"`
	}
	if err := json.Unmarshal([]byte(body), &bare); err != nil || res.StatusCode != http.StatusOK || bare.Title != nil || len(bare.Rows) == 0 {
		t.Errorf("without publicId: %d %s", res.StatusCode, body)
	}
	if want := []embedDashboard{{PublicID: "sales-overview", Title: "Sales <overview>"}}; !reflect.DeepEqual(bare.Dashboards, want) {
		t.Errorf("in-embed navigation %v, want the deployment's published dashboards %v", bare.Dashboards, want)
	}

	// Region groups filter a viewer without a region attribute.
	_, tok2 := embedToken(t, s, `{"deploymentId": 1, "externalId": "bo", "groups": ["apac", "amer"]}`)
	res = serve(t, s, "GET", "/embed/api/context", "Bearer "+tok2, nil)
	if err := json.Unmarshal([]byte(readBody(t, res)), &got); err != nil {
		t.Fatal(err)
	}
	if regions := regionsOf(got.Rows); len(regions) != 2 || regions[0] != "AMER" || regions[1] != "APAC" {
		t.Errorf("groups amer, apac: regions %v", regions)
	}
}

func TestEmbedContextNotFound(t *testing.T) {
	s := newPagesServer(t)
	_, tok := embedToken(t, s, `{"deploymentId": 2, "externalId": "ana"}`)
	for _, pid := range []string{"sales-overview", "draft-board", "nope"} {
		res := serve(t, s, "GET", "/embed/api/context?publicId="+pid, "Bearer "+tok, nil)
		if body := readBody(t, res); res.StatusCode != http.StatusNotFound || !strings.Contains(body, `"error"`) {
			t.Errorf("publicId %s for deployment 2: %d %s", pid, res.StatusCode, body)
		}
	}
}

func TestEmbedContextUnauthorized(t *testing.T) {
	s := newPagesServer(t)
	sid, tok := embedToken(t, s, `{"deploymentId": 1, "externalId": "ana"}`)
	parts := strings.Split(tok, ".")
	claims, err := parseToken(s.secret, tok)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)

	sign := func(c tokenClaims) string {
		t.Helper()
		out, err := signToken(s.secret, &c)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	expired := *claims
	expired.ExpiresAt = pagesEpoch.Unix()
	noExp := *claims
	noExp.ExpiresAt = 0

	tests := []struct{ name, auth string }{
		{"missing", ""},
		{"other scheme", "Basic " + tok},
		{"empty bearer", "Bearer "},
		{"API key", "Bearer " + pagesAdminKey},
		{"alg none", "Bearer " + craft(s.secret, `{"alg":"none","typ":"JWT"}`, string(payload))},
		{"alg none unsigned", "Bearer " + strings.Join([]string{b64url(`{"alg":"none"}`), parts[1], ""}, ".")},
		{"tampered signature", "Bearer " + parts[0] + "." + parts[1] + "." + b64url("forged")},
		{"tampered payload", "Bearer " + parts[0] + "." + b64url(strings.Replace(string(payload), `"ana"`, `"eve"`, 1)) + "." + parts[2]},
		{"other secret", "Bearer " + craft([]byte("not the embed secret"), `{"alg":"HS256","typ":"JWT"}`, string(payload))},
		{"metadata token secret", "Bearer " + craft(s.metaSecret, `{"alg":"HS256","typ":"JWT"}`, string(payload))},
		{"expired now", "Bearer " + sign(expired)},
		{"no expiry", "Bearer " + sign(noExp)},
	}
	// The documented dashboard call takes the embed token the same way.
	for _, path := range []string{"/embed/api/context", "/api/v1/embed/dashboard/sales-overview"} {
		for _, tt := range tests {
			t.Run(path+"/"+tt.name, func(t *testing.T) {
				res := serve(t, s, "GET", path, tt.auth, nil)
				body := readBody(t, res)
				if res.StatusCode != http.StatusUnauthorized {
					t.Fatalf("status %d, want 401: %s", res.StatusCode, body)
				}
				if !strings.Contains(body, `"error"`) || res.Header.Get("Cache-Control") != "no-store" {
					t.Errorf("body %s, Cache-Control %q", body, res.Header.Get("Cache-Control"))
				}
				if res.Header.Get("WWW-Authenticate") == "" {
					t.Error("no WWW-Authenticate")
				}
			})
		}
	}

	// Expiry follows the virtual clock.
	if res := serve(t, s, "GET", "/embed/api/context", "Bearer "+tok, nil); res.StatusCode != http.StatusOK {
		t.Fatalf("fresh token: %d", res.StatusCode)
	}
	s.Advance(24*time.Hour - time.Second)
	if res := serve(t, s, "GET", "/embed/api/context", "Bearer "+tok, nil); res.StatusCode != http.StatusOK {
		t.Fatalf("one second before expiry: %d", res.StatusCode)
	}
	s.Advance(time.Second)
	if res := serve(t, s, "GET", "/embed/api/context", "Bearer "+tok, nil); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("at expiry: %d", res.StatusCode)
	}

	// Revocation through the management API ends the viewer's session.
	s.Advance(-24 * time.Hour)
	res := serve(t, s, "POST", "/api/v1/embed/session/revoke", "Bearer "+pagesAdminKey, strings.NewReader(`{"sessionId":"`+sid+`"}`))
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("revoke: %d", res.StatusCode)
	}
	res = serve(t, s, "GET", "/embed/api/context", "Bearer "+tok, nil)
	if body := readBody(t, res); res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "revoked") {
		t.Fatalf("revoked token: %d %s", res.StatusCode, body)
	}

	// POST is not the context endpoint's method.
	res = serve(t, http.HandlerFunc(s.handleEmbedContext), "POST", "/embed/api/context", "Bearer "+tok, nil)
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", res.StatusCode)
	}
}

func b64url(s string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(s))
}

// TestSessionOpensEverySurfaceOfItsDeployment pins the emulator's choice
// where the platform's documentation is silent: a session is bound to its
// deployment only. Minted with publicDashboardId for one dashboard, it
// opens the deployment's other dashboards, the chat and the creator app
// (creatorMode false), and no dashboard of another deployment.
func TestSessionOpensEverySurfaceOfItsDeployment(t *testing.T) {
	e := setup(t)
	id := e.generate(`{"deploymentId":1,"externalId":"ana","publicDashboardId":"sales-overview"}`)
	token, _ := e.exchange(id)
	for _, tc := range []struct {
		query  string
		status int
	}{
		{"?publicId=sales-overview", 200},
		{"?publicId=ops-only", 200},      // another dashboard of deployment 1
		{"?publicId=broken-board", 200},  // the same
		{"", 200},                        // chat and app pages ask without a publicId
		{"?publicId=finance-board", 404}, // deployment 2
	} {
		if got, _, data := e.do("GET", "/embed/api/context"+tc.query, token, nil); got != tc.status {
			t.Errorf("context%s: %d, want %d; %s", tc.query, got, tc.status, data)
		}
	}
}

// TestEmbedDashboardAccess: GET /api/v1/embed/dashboard/{publicId} answers
// 403 for a dashboard whose "Allow signed embedding" switch is off, as
// the documentation says, and the embedded page's own context call
// refuses it the same way.
func TestEmbedDashboardAccess(t *testing.T) {
	s := newPagesServerWith(t, func(f *Fixture) {
		f.Deployments[0].Dashboards = append(f.Deployments[0].Dashboards,
			Dashboard{ID: 12, PublicID: "locked-board", Title: "Locked", Published: true, AllowEmbed: new(false)},
			Dashboard{ID: 13, PublicID: "open-board", Title: "Open", Published: true, AllowEmbed: new(true)})
	})
	sid, tok := embedToken(t, s, `{"deploymentId": 1, "externalId": "ana"}`)
	_, otherTok := embedToken(t, s, `{"deploymentId": 2, "externalId": "ana"}`)
	tests := []struct {
		name, publicID, token string
		status                int
	}{
		{"allowed by default", "sales-overview", tok, http.StatusOK},
		{"allowed explicitly", "open-board", tok, http.StatusOK},
		{"signed embedding off", "locked-board", tok, http.StatusForbidden},
		{"unpublished", "draft-board", tok, http.StatusNotFound},
		{"unknown", "nope", tok, http.StatusNotFound},
		{"other deployment's token", "sales-overview", otherTok, http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := serve(t, s, "GET", "/api/v1/embed/dashboard/"+tt.publicID, "Bearer "+tt.token, nil)
			body := readBody(t, res)
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tt.status, body)
			}
			if tt.status == http.StatusOK {
				var got embedDashboard
				mustJSON(t, []byte(body), &got)
				if got.PublicID != tt.publicID || got.Title == "" {
					t.Errorf("body %s", body)
				}
			} else if !strings.Contains(body, `"error"`) {
				t.Errorf("no error body: %s", body)
			}
			ctx := serve(t, s, "GET", "/embed/api/context?publicId="+tt.publicID, "Bearer "+tt.token, nil)
			if ctx.StatusCode != tt.status {
				t.Errorf("embed context: status %d, want %d", ctx.StatusCode, tt.status)
			}
		})
	}

	// An API key is not an embed token.
	if res := serve(t, s, "GET", "/api/v1/embed/dashboard/sales-overview", "Bearer "+pagesAdminKey, nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("API key: status %d, want 401", res.StatusCode)
	}
	// A revoked session's token is refused.
	serve(t, s, "POST", "/api/v1/embed/session/revoke", "Bearer "+pagesAdminKey, strings.NewReader(`{"sessionId":"`+sid+`"}`))
	if res := serve(t, s, "GET", "/api/v1/embed/dashboard/sales-overview", "Bearer "+tok, nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("revoked: status %d, want 401", res.StatusCode)
	}
}

// TestDateFollowsClock: every answer's Date header is the emulator's time,
// so moving its clock is a skew a client can measure.
func TestDateFollowsClock(t *testing.T) {
	s := newPagesServer(t)
	for _, step := range []time.Duration{0, 90 * time.Second, -time.Hour} {
		s.Advance(step)
		want := s.now().UTC().Format(http.TimeFormat)
		for _, path := range []string{"/api/v1/deployments", "/embed/dashboard/sales-overview", "/nope"} {
			res := serve(t, s, "GET", path, "Bearer "+pagesAdminKey, nil)
			if got := res.Header.Get("Date"); got != want {
				t.Errorf("after %v, %s: Date %q, want %q", step, path, got, want)
			}
		}
	}
}

// TestTestOnlyDashboardNotListed: the built-in fixture's broken-board,
// marked testOnly, opens at its address but is not in the navigation
// that people browsing the demo see.
func TestTestOnlyDashboardNotListed(t *testing.T) {
	s, err := New(nil, WithClock(func() time.Time { return pagesEpoch }))
	if err != nil {
		t.Fatal(err)
	}
	res := serve(t, s, "POST", "/api/v1/embed/generate-session", "Bearer ek_dev_only_admin_all", strings.NewReader(`{"deploymentId":1,"externalId":"ana"}`))
	var gen struct{ SessionID string }
	if err := json.Unmarshal([]byte(readBody(t, res)), &gen); err != nil {
		t.Fatal(err)
	}
	res = serve(t, s, "POST", "/api/v1/embed/session/token", "", strings.NewReader(`{"sessionId":"`+gen.SessionID+`"}`))
	var ex struct{ Token string }
	if err := json.Unmarshal([]byte(readBody(t, res)), &ex); err != nil {
		t.Fatal(err)
	}
	res = serve(t, s, "GET", "/embed/api/context?publicId=broken-board", "Bearer "+ex.Token, nil)
	body := readBody(t, res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("context of broken-board: %d %s", res.StatusCode, body)
	}
	var ctx embedContext
	if err := json.Unmarshal([]byte(body), &ctx); err != nil {
		t.Fatal(err)
	}
	if ctx.RenderError == "" {
		t.Error("broken-board no longer fails to render")
	}
	var listed []string
	for _, d := range ctx.Dashboards {
		listed = append(listed, d.PublicID)
	}
	if want := []string{"project-analytics", "regional-performance", "sales-overview"}; !reflect.DeepEqual(listed, want) {
		t.Errorf("navigation lists %v, want %v", listed, want)
	}
}
