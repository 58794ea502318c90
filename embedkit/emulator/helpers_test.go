package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// testFixture is the account most tests run against, and the standalone
// command's rules test (cmd/demo) too: testdata/rules-fixture.json.
var testFixture = func() string {
	b, err := os.ReadFile("testdata/rules-fixture.json")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

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
