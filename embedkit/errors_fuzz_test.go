package embedkit

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeError feeds the error decoder every kind of answer a broken or
// hostile platform could give: any status, any body, any Retry-After and
// request id. The decoder must never panic, must match the status's
// sentinel, must keep quoted text bounded and valid UTF-8, and must never
// repeat the API key or the request's session id.
func FuzzDecodeError(f *testing.F) {
	f.Add(403, []byte(`{"error":"embedding is not enabled"}`), "", "req-1")
	f.Add(400, []byte(`{"error":"Groups with names ghosts, zombies not found"}`), "", "")
	f.Add(400, []byte(`{"error":"User attributes not found"}`), "", "")
	f.Add(400, []byte(`{"error":{"message":"cannot change type"}}`), "", "")
	f.Add(429, []byte(`{"error":"slow down"}`), "3600", "")
	f.Add(503, []byte("<html><body>Bad gateway</body></html>"), "Wed, 21 Oct 2026 07:28:00 GMT", "")
	f.Add(500, []byte("\xff\xfe\x00\x1b[31mfuzz-api-key-0123456789\u2028"), "-1", "fuzz-api-key-0123456789")
	f.Add(401, []byte(`{"error":"key fuzz-api-key-0123456789 expired for 0123456789abcdef0123456789abcdef"}`), "", "")
	f.Add(404, []byte(strings.Repeat("é", 400)), "", strings.Repeat("x", 300))

	const apiKey = "fuzz-api-key-0123456789"
	const sessionID = "0123456789abcdef0123456789abcdef"
	c, err := New("https://platform.example.com", apiKey)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, status int, body []byte, retryAfter, requestID string) {
		if status < 400 || status > 599 {
			status = 400 + (status%200+200)%200
		}
		req := httptest.NewRequest(http.MethodPost, "https://platform.example.com/api/v1/embed/session/revoke", nil)
		req.Header.Set("Authorization", "Bearer "+apiKey)
		resp := &http.Response{
			StatusCode: status,
			Header:     http.Header{"Retry-After": {retryAfter}, "X-Request-Id": {requestID}},
			Body:       io.NopCloser(strings.NewReader(string(body))),
		}
		e := c.apiError(req, resp, call{secrets: []string{sessionID}})
		msg := e.Error()
		for _, secret := range []string{apiKey, sessionID} {
			if strings.Contains(msg, secret) || strings.Contains(e.Message, secret) || strings.Contains(e.Body, secret) || strings.Contains(e.RequestID, secret) {
				t.Fatalf("decoded error repeats a secret: %q", msg)
			}
		}
		if !utf8.ValidString(msg) {
			t.Fatalf("error text is not valid UTF-8: %q", msg)
		}
		// A quote escapes at most six bytes per input byte (\uXXXX).
		if bound := 6*maxQuote + 8; len(e.Message) > bound || len(e.Body) > bound {
			t.Fatalf("quoted text not bounded: message %d, body %d bytes", len(e.Message), len(e.Body))
		}
		if e.RetryAfter < 0 {
			t.Fatalf("negative Retry-After %v", e.RetryAfter)
		}
		sentinel := map[int]error{401: ErrUnauthorized, 403: ErrForbidden, 404: ErrNotFound, 409: ErrConflict, 422: ErrUnprocessable, 429: ErrRateLimited}[status]
		if status >= 500 {
			sentinel = ErrServer
		}
		if sentinel != nil && !errors.Is(e, sentinel) {
			t.Fatalf("status %d does not match its sentinel %v", status, sentinel)
		}
		var g *GroupsNotFoundError
		if errors.As(e, &g) {
			for _, n := range g.Names {
				if n == "" {
					t.Fatalf("empty group name parsed from %q", e.Message)
				}
			}
		}
	})
}
