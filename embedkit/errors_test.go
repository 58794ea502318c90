package embedkit

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestErrorStatuses covers every status of the specification's Errors
// table on a real call.
func TestErrorStatuses(t *testing.T) {
	tests := []struct {
		status   int
		body     string
		sentinel error
		text     string
	}{
		{400, `{"error":"releaseChannelVersion is not in the versions list"}`, nil, "embedkit: POST /api/v1/embed/generate-session: 400 Bad Request: releaseChannelVersion is not in the versions list"},
		{401, `{"error":"Unauthorized"}`, ErrUnauthorized, "embedkit: POST /api/v1/embed/generate-session: 401 Unauthorized: Unauthorized (check the API key: it may be missing, malformed, expired or rotated)"},
		{403, `{"error":"embedding is not enabled"}`, ErrForbidden, "embedkit: POST /api/v1/embed/generate-session: 403 Forbidden: embedding is not enabled"},
		{404, `{"error":"branch not found"}`, ErrNotFound, "embedkit: POST /api/v1/embed/generate-session: 404 Not Found: branch not found"},
		{409, `{"error":"preview still running"}`, ErrConflict, "409 Conflict: preview still running"},
		{422, `{"error":"render failed"}`, ErrUnprocessable, "422 Unprocessable Entity: render failed"},
		{429, `{"error":"too many exports"}`, ErrRateLimited, "429 Too Many Requests: too many exports"},
		{500, `{"error":"internal"}`, ErrServer, "500 Internal Server Error: internal"},
		{503, ``, ErrServer, "embedkit: POST /api/v1/embed/generate-session: 503 Service Unavailable"},
	}
	sentinels := []error{ErrUnauthorized, ErrForbidden, ErrNotFound, ErrConflict, ErrUnprocessable, ErrRateLimited, ErrServer}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			c, mux, _ := setup(t, WithRetry(RetryPolicy{MaxAttempts: 1}))
			mux.HandleFunc("POST /api/v1/embed/generate-session", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Request-Id", "req-1")
				writeJSON(w, tt.status, tt.body)
			})
			_, err := c.GenerateSession(context.Background(), &GenerateSessionRequest{DeploymentID: 1, ExternalID: "u"})
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want *APIError", err)
			}
			if apiErr.StatusCode != tt.status || apiErr.RequestID != "req-1" || apiErr.Method != "POST" || apiErr.Path != "/api/v1/embed/generate-session" {
				t.Errorf("APIError = %+v", apiErr)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("Error() = %q, want it to contain %q", err, tt.text)
			}
			for _, s := range sentinels {
				if got := errors.Is(err, s); got != (s == tt.sentinel) {
					t.Errorf("errors.Is(err, %v) = %v", s, got)
				}
			}
			noSecrets(t, "error", err.Error())
		})
	}
}

// TestRevoke204 is the success row of the Errors table.
func TestRevoke204(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("POST /api/v1/embed/session/revoke", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	if err := c.RevokeSession(context.Background(), testSession); err != nil {
		t.Fatal(err)
	}
}

func TestNamedMessages(t *testing.T) {
	tests := []struct {
		msg    string
		is     error
		groups []string
	}{
		{"User attributes not found", ErrUserAttributesNotFound, nil},
		{"cannot change type", ErrCannotChangeType, nil},
		{"Attribute region: cannot change type from string to number", ErrCannotChangeType, nil},
		{"Groups with names sales, marketing not found", ErrGroupsNotFound, []string{"sales", "marketing"}},
		{"Groups with names 'sales','ops team' not found", ErrGroupsNotFound, []string{"sales", "ops team"}},
		{`Groups with names ["a","b,c"] not found`, ErrGroupsNotFound, []string{"a", "b,c"}},
		{"Groups with names [a, b] not found", ErrGroupsNotFound, []string{"a", "b"}},
		{`Groups with names "x" not found`, ErrGroupsNotFound, []string{"x"}},
		{"groups with names (x,y) were not found", ErrGroupsNotFound, []string{"x", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			c, mux, _ := setup(t)
			mux.HandleFunc("POST /api/v1/embed/generate-session", func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 400, `{"error":`+quoteJSON(tt.msg)+`}`)
			})
			_, err := c.GenerateSession(context.Background(), &GenerateSessionRequest{DeploymentID: 1, ExternalID: "u"})
			if !errors.Is(err, tt.is) {
				t.Fatalf("errors.Is(%v, %v) = false", err, tt.is)
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.Message != tt.msg {
				t.Errorf("APIError = %+v", apiErr)
			}
			var g *GroupsNotFoundError
			if errors.As(err, &g) != (tt.groups != nil) {
				t.Fatalf("errors.As GroupsNotFoundError = %v", !(tt.groups != nil))
			}
			if g != nil {
				if !reflect.DeepEqual(g.Names, tt.groups) {
					t.Errorf("Names = %q, want %q", g.Names, tt.groups)
				}
				if !strings.Contains(g.Error(), strings.Join(tt.groups, ", ")) {
					t.Errorf("Error() = %q", g.Error())
				}
			}
		})
	}
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestMalformedBodies: HTML, broken JSON and wrong shapes give a bounded
// quote and never a panic.
func TestMalformedBodies(t *testing.T) {
	html := "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>" + strings.Repeat("\x01<p>proxy é error</p>\n", 200) + "</body></html>"
	tests := []struct {
		name   string
		status int
		ctype  string
		body   string
	}{
		{"html error", 502, "text/html", html},
		{"html success", 200, "text/html", html},
		{"truncated json", 200, "application/json", `{"data":{"deployments":[{"id":`},
		{"wrong shape", 200, "application/json", `{"deployments":"nope"}`},
		{"json array", 200, "application/json", `[1,2,3]`},
		{"bad id", 200, "application/json", `{"items":[{"id":"abc"}]}`},
		{"error object", 400, "application/json", `{"error":{"message":"nested"}}`},
		{"error non-string", 400, "application/json", `{"error":42}`},
		{"invalid utf8", 500, "text/plain", "\xff\xfe\xfd bad bytes"},
		{"empty 200", 200, "application/json", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _ := setup(t, WithRetry(RetryPolicy{MaxAttempts: 1}))
			mux.HandleFunc("GET /api/v1/deployments", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ctype)
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			})
			_, err := c.ListDeployments(context.Background(), ListOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if len(msg) > 700 {
				t.Errorf("error of %d bytes: %q", len(msg), msg)
			}
			if !utf8.ValidString(msg) || strings.ContainsAny(msg, "\x01\n\r") {
				t.Errorf("error not printable: %q", msg)
			}
			if tt.status == 200 && !errors.Is(err, ErrUnexpectedResponse) {
				t.Errorf("err = %v, want ErrUnexpectedResponse", err)
			}
			if tt.name == "error object" && !strings.Contains(msg, ": nested") {
				t.Errorf("nested message lost: %q", msg)
			}
		})
	}
}

func TestQuoteBody(t *testing.T) {
	long := strings.Repeat("é", 300) // 600 bytes
	q := quoteBody([]byte(long))
	if !utf8.ValidString(q) || !strings.HasSuffix(q, "...") || len(q) > maxQuote+10 {
		t.Errorf("quoteBody(long) = %q", q)
	}
	if got := quoteBody([]byte("a\tb\x00\u2028\x7f")); got != `a\tb\u0000\u2028\u007f` {
		t.Errorf("control escaping = %q", got)
	}
	if got := quoteBody([]byte("ok\xffok")); got != `ok\ufffdok` {
		t.Errorf("invalid byte = %q", got)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := map[string]time.Duration{
		"":                              0,
		"0":                             0,
		"-5":                            0,
		"7":                             7 * time.Second,
		"99999999999":                   365 * 24 * time.Hour,
		"Wed, 01 Jan 2025 00:00:30 GMT": 30 * time.Second,
		"Tue, 31 Dec 2024 23:00:00 GMT": 0,
		"tomorrow":                      0,
	}
	for in, want := range tests {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestAPIErrorText(t *testing.T) {
	e := &APIError{StatusCode: 429, Method: "GET", Path: "/x", RetryAfter: time.Minute, Body: "<html>"}
	want := `embedkit: GET /x: 429 Too Many Requests: unexpected body "<html>" (retry after 1m0s)`
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	e = &APIError{StatusCode: 599, Method: "GET", Path: "/x"}
	if e.Error() != "embedkit: GET /x: 599" || !errors.Is(e, ErrServer) {
		t.Errorf("Error() = %q", e.Error())
	}
	if (&ExportFailedError{}).Error() != "embedkit: dashboard export failed" {
		t.Error("ExportFailedError without reason")
	}
	if errors.Is(e, ErrInvalidRequest) || e.Unwrap() != nil {
		t.Error("unexpected match")
	}
}

// TestErrorBodyScrubbed: an error body that echoes a secret does not
// carry it into the error.
func TestErrorBodyScrubbed(t *testing.T) {
	c, mux, _ := setup(t, WithRetry(RetryPolicy{MaxAttempts: 1}))
	mux.HandleFunc("POST /api/v1/embed/session/token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "id-"+testSession)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(401)
		w.Write([]byte("session " + testSession + " unknown; key " + testKey))
	})
	_, err := c.ExchangeSession(context.Background(), testSession)
	if !errors.Is(err, ErrUnauthorized) {
		t.Fatal(err)
	}
	noSecrets(t, "error", err.Error())
	if strings.Contains(err.Error(), "check the API key") {
		t.Errorf("exchange 401 blames the API key, which was not sent: %v", err)
	}
}
