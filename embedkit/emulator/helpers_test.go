package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// testFixture is the account most tests run against.
const testFixture = `{"tenant":"acme","embedding":true,"creatorMode":true,"auditLog":true,"dataDownloadsRestricted":false,"revocationClaim":true,"maxExternalUsers":10000,
 "users":[{"username":"admin","email":"admin@acme.test","admin":true,"permissions":["AuditLogManage"]},
          {"username":"dana","email":"dana@acme.test","admin":false,"active":true},
          {"username":"ops","email":"ops@acme.test","admin":true},
          {"username":"gone","email":"gone@acme.test","admin":true,"active":false}],
 "apiKeys":[{"key":"ek_admin_all","user":"admin"},{"key":"ek_admin_d1","user":"admin","deployments":[1]},{"key":"ek_admin_d2","user":"admin","deployments":[2]},
            {"key":"ek_personal","user":"dana","personal":true},{"key":"ek_dana","user":"dana"},{"key":"ek_ops","user":"ops"},{"key":"ek_gone","user":"gone"},
            {"key":"ek_admin_personal","user":"admin","personal":true}],
 "groups":["sales","emea"],"userAttributes":[{"name":"region","type":"string"},{"name":"quota","type":"number"},{"name":"tags","type":"string_array"}],
 "embedTenants":[{"name":"globex","groups":[{"name":"g1"},{"name":"g2"},{"name":"g3"},{"name":"g4"},{"name":"g5"}],"userAttributes":[{"name":"tier","type":"string"}]}],
 "deployments":[{"id":1,"name":"Sales analytics","createdAt":"2026-01-02T03:04:05Z",
   "environments":[{"id":"env-prod","name":"Production","type":"production","restUrl":"https://acme.example/api/data/v1","sqlHost":"sql.acme.example","sqlPort":5432},
                   {"id":"env-dev","name":"Development","type":"development","restUrl":"https://acme.example/dev/api/data/v1","sqlHost":"sql-dev.acme.example","sqlPort":5433}],
   "branches":[{"id":1,"name":"main","kind":"production"},{"id":2,"name":"q3-metrics","kind":"shared","served":false},{"id":3,"name":"dev-dana","kind":"personal","served":true}],
   "versions":[{"releaseChannelVersion":"platform/runtime:v1.4.2","version":"1.4.2","releaseChannel":"stable","isLatestInChannel":true,"isCurrent":true},
               {"releaseChannelVersion":"platform/runtime:v1.3.9","version":"1.3.9","releaseChannel":"stable","isLatestInChannel":false,"isCurrent":false},
               {"releaseChannelVersion":"platform/runtime:v1.5.0-rc.1","version":"1.5.0-rc.1","releaseChannel":"preview","isLatestInChannel":true,"isCurrent":false}],
   "dashboards":[{"id":10,"publicId":"sales-overview","title":"Sales overview","published":true,"managers":["admin","dana"]},
                 {"id":11,"publicId":"draft-board","title":"Draft","published":false,"managers":["admin"]},
                 {"id":12,"publicId":"broken-board","title":"Broken","published":true,"managers":["admin"],"renderError":"widget 3 failed to load"},
                 {"id":14,"publicId":"ops-only","title":"Ops","published":true,"managers":["ops"]}]},
  {"id":2,"name":"Finance","createdAt":"2026-01-03T00:00:00Z","dashboards":[{"id":20,"publicId":"finance-board","title":"Finance","published":true,"managers":["admin"]}]},
  {"id":3,"name":"Marketing","createdAt":"2026-01-04T00:00:00Z"}],
 "auditEvents":[{"time":"2026-03-01T10:00:00Z","eventName":"user.login","userEmail":"dana@acme.test","data":{"ip":"203.0.113.7"}},
                {"time":"2026-03-02T11:00:00Z","eventName":"user.login","userEmail":"admin@acme.test","data":{"ip":"198.51.100.4"}},
                {"time":"2026-03-03T12:00:00Z","eventName":"dashboard.viewed","userEmail":"Dana@acme.test","data":{"dashboard":"sales-overview"}}]}`

// testEpoch is the base clock of tests.
var testEpoch = time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)

type env struct {
	t  *testing.T
	s  *Server
	ts *httptest.Server
}

func mustFixture(t testing.TB, src string) *Fixture {
	t.Helper()
	f, err := LoadFixture(strings.NewReader(src))
	if err != nil {
		t.Fatalf("LoadFixture: %v", err)
	}
	return f
}

// setup starts an emulator over the fixture src (testFixture when empty)
// with its base clock frozen at testEpoch.
func setup(t *testing.T, src ...string) *env {
	t.Helper()
	fx := testFixture
	if len(src) > 0 {
		fx = src[0]
	}
	s, err := New(mustFixture(t, fx), WithClock(func() time.Time { return testEpoch }))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return &env{t: t, s: s, ts: ts}
}

// do sends a request; cred "" sends no Authorization header, a value with a
// space is sent as is, anything else as "Bearer <cred>". body may be a
// string (sent raw) or a value (sent as JSON).
func (e *env) do(method, path, cred string, body any) (int, http.Header, []byte) {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.ts.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	switch {
	case cred == "":
	case strings.Contains(cred, " "):
		req.Header.Set("Authorization", cred)
	default:
		req.Header.Set("Authorization", "Bearer "+cred)
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, data
}

// expect sends a request and checks its status, returning the body.
func (e *env) expect(status int, method, path, cred string, body any) []byte {
	e.t.Helper()
	got, _, data := e.do(method, path, cred, body)
	if got != status {
		e.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, got, status, data)
	}
	return data
}

// generate mints a session and returns its id.
func (e *env) generate(body string) string {
	e.t.Helper()
	data := e.expect(http.StatusOK, "POST", "/api/v1/embed/generate-session", "ek_admin_all", body)
	var out struct {
		SessionID string `json:"sessionId"`
	}
	mustJSON(e.t, data, &out)
	return out.SessionID
}

// exchange exchanges a session id and returns the token's claims.
func (e *env) exchange(id string) (string, *tokenClaims) {
	e.t.Helper()
	data := e.expect(http.StatusOK, "POST", "/api/v1/embed/session/token", "", `{"sessionId":"`+id+`"}`)
	var out struct {
		Token string `json:"token"`
	}
	mustJSON(e.t, data, &out)
	c, err := parseToken(e.s.secret, out.Token)
	if err != nil {
		e.t.Fatalf("parseToken: %v", err)
	}
	return out.Token, c
}

func mustJSON(t testing.TB, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
}

// errorOf returns the error message of an error body.
func errorOf(t testing.TB, data []byte) string {
	t.Helper()
	var out struct {
		Error string `json:"error"`
	}
	mustJSON(t, data, &out)
	return out.Error
}
