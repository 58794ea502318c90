package embedkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	testKey     = "ek_live_0123456789SECRETKEYabcdef"
	testSession = "0123456789abcdef0123456789abcdef"
	testToken   = "eyJhbGciOiJIUzI1NiJ9.SECRET-TOKEN-PAYLOAD.sig"
)

// setup returns a Client talking to a fresh test server and the server's
// mux. Retries use millisecond delays and sleeps are recorded, not slept,
// unless the options say otherwise.
func setup(t *testing.T, opts ...Option) (*Client, *http.ServeMux, *httptest.Server) {
	t.Helper()
	return setupServer(t, nil, opts...)
}

// setupServer is setup with a hook to configure the server before it
// starts.
func setupServer(t *testing.T, configure func(*httptest.Server), opts ...Option) (*Client, *http.ServeMux, *httptest.Server) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	if configure != nil {
		configure(srv)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	all := append([]Option{WithRetry(RetryPolicy{MinDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond})}, opts...)
	c, err := New(srv.URL+"/", testKey, all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, mux, srv
}

// recordSleeps replaces the Client's sleep with one that records the
// delays and returns at once (or with ctx's error).
func recordSleeps(c *Client) *[]time.Duration {
	var mu sync.Mutex
	var delays []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		delays = append(delays, d)
		mu.Unlock()
		return ctx.Err()
	}
	return &delays
}

func testMethod(t *testing.T, r *http.Request, want string) {
	t.Helper()
	if r.Method != want {
		t.Errorf("method = %s, want %s", r.Method, want)
	}
}

func testHeader(t *testing.T, r *http.Request, name, want string) {
	t.Helper()
	if got := r.Header.Get(name); got != want {
		t.Errorf("header %s = %q, want %q", name, got, want)
	}
}

func testQuery(t *testing.T, r *http.Request, want string) {
	t.Helper()
	if got := r.URL.RawQuery; got != want {
		t.Errorf("query = %q, want %q", got, want)
	}
}

// testJSONBody compares the request body with want as JSON values.
func testJSONBody(t *testing.T, r *http.Request, want string) {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	var got, exp any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("body %q is not JSON: %v", b, err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatalf("want %q is not JSON: %v", want, err)
	}
	gb, _ := json.Marshal(got)
	eb, _ := json.Marshal(exp)
	if !bytes.Equal(gb, eb) {
		t.Errorf("body = %s, want %s", gb, eb)
	}
}

// testNoBody checks that the request has no body.
func testNoBody(t *testing.T, r *http.Request) {
	t.Helper()
	b, _ := io.ReadAll(r.Body)
	if len(b) != 0 {
		t.Errorf("body = %q, want none", b)
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		t.Errorf("Content-Type = %q on a request without body", ct)
	}
}

// testAuth checks the standard headers of an authenticated request.
func testAuth(t *testing.T, r *http.Request, scheme string) {
	t.Helper()
	testHeader(t, r, "Authorization", scheme+" "+testKey)
	testHeader(t, r, "Accept", "application/json")
	testHeader(t, r, "User-Agent", "embedkit-go/"+Version)
}

// writeJSON answers with status and a JSON body.
func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// noSecrets fails when s holds the API key, the session id or the token.
func noSecrets(t *testing.T, what, s string) {
	t.Helper()
	for _, sec := range []string{testKey, testSession, testToken, "SECRETKEY", "SECRET-TOKEN"} {
		if strings.Contains(s, sec) {
			t.Errorf("%s contains a secret (%s): %s", what, Redact(sec), s)
		}
	}
}

func TestNewBaseURL(t *testing.T) {
	tests := []struct {
		name, url string
		ok        bool
	}{
		{"https", "https://acme.example.com", true},
		{"https trailing slash", "https://acme.example.com/", true},
		{"https with prefix", "https://acme.example.com/platform/", true},
		{"http loopback v4", "http://127.0.0.1:8080", true},
		{"http loopback v4 range", "http://127.3.2.1:8080", true},
		{"http loopback v6", "http://[::1]:8080", true},
		{"http localhost", "http://localhost:8080", true},
		{"http remote", "http://acme.example.com", false},
		{"http private", "http://10.0.0.1", false},
		{"ftp", "ftp://acme.example.com", false},
		{"no scheme", "acme.example.com", false},
		{"empty", "", false},
		{"credentials", "https://user:pass@acme.example.com", false},
		{"query", "https://acme.example.com/?key=x", false},
		{"bad", "https://%zz", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.url, testKey)
			if (err == nil) != tt.ok {
				t.Fatalf("New(%q) error = %v, want ok=%v", tt.url, err, tt.ok)
			}
			if err != nil {
				noSecrets(t, "error", err.Error())
			}
		})
	}
}

func TestNewAPIKeyAndOptions(t *testing.T) {
	if _, err := New("https://a.example.com", ""); err == nil {
		t.Error("empty key accepted")
	}
	if _, err := New("https://a.example.com", "  "); err == nil {
		t.Error("blank key accepted")
	}
	if _, err := New("https://a.example.com", "a b"); err == nil {
		t.Error("key with space accepted")
	}
	bad := []Option{
		WithHTTPClient(nil),
		WithUserAgent("x\r\ny"),
		WithRetry(RetryPolicy{MaxAttempts: -1}),
		WithRetry(RetryPolicy{MinDelay: time.Second, MaxDelay: time.Millisecond}),
		WithLogger(nil),
		WithAPIKeyHeader("Basic"),
		WithCircuitBreaker(BreakerSettings{FailureThreshold: -1}),
		WithClock(nil),
		WithExportPollInterval(0, time.Second),
		WithExportPollInterval(time.Second, time.Millisecond),
	}
	for i, o := range bad {
		_, err := New("https://a.example.com", testKey, o)
		if err == nil {
			t.Errorf("bad option %d accepted", i)
			continue
		}
		noSecrets(t, "error", err.Error())
	}
	c, err := New("https://a.example.com", testKey, nil, WithUserAgent("portal/2"), WithExportPollInterval(time.Millisecond, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if c.userAgent != "portal/2 embedkit-go/"+Version {
		t.Errorf("user agent = %q", c.userAgent)
	}
	if c.BreakerState() != BreakerClosed {
		t.Error("breaker state without breaker")
	}
}

func TestDefaultHTTPClient(t *testing.T) {
	c, err := New("https://a.example.com", testKey)
	if err != nil {
		t.Fatal(err)
	}
	if c.httpClient.Timeout != 30*time.Second {
		t.Errorf("timeout = %v", c.httpClient.Timeout)
	}
	if c.streamHTTP.Timeout != 0 {
		t.Errorf("stream timeout = %v, want 0 (bounded by context)", c.streamHTTP.Timeout)
	}
	tr := c.httpClient.Transport.(*http.Transport)
	if tr.MaxIdleConnsPerHost < 100 || tr.ResponseHeaderTimeout == 0 || tr.TLSHandshakeTimeout == 0 || !tr.ForceAttemptHTTP2 {
		t.Errorf("transport not tuned: %+v", tr)
	}
	custom := &http.Client{Timeout: 5 * time.Second}
	c, _ = New("https://a.example.com", testKey, WithHTTPClient(custom))
	if c.httpClient != custom || c.streamHTTP.Timeout != 5*time.Second {
		t.Error("custom client not used as given")
	}
}

func TestRedirectPolicy(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("redirect followed to another origin, Authorization %q", r.Header.Get("Authorization"))
	}))
	defer other.Close()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/x", http.StatusFound)
	})
	n := 0
	mux.HandleFunc("GET /loop", func(w http.ResponseWriter, r *http.Request) {
		n++
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	for _, p := range []string{"/away", "/loop"} {
		req, _ := c.NewRequest(context.Background(), http.MethodGet, p, nil)
		if _, err := c.Do(req, nil); err == nil {
			t.Errorf("%s: redirect accepted", p)
		}
	}
	if n > 6 {
		t.Errorf("redirect loop followed %d times", n)
	}
}

func TestNewRequest(t *testing.T) {
	c, err := New("https://acme.example.com/prefix/", testKey, WithAPIKeyHeader("Api-Key"), WithUserAgent("portal/1"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req, err := c.NewRequest(ctx, http.MethodPost, "/api/v1/users?first=2", map[string]int{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := req.URL.String(); got != "https://acme.example.com/prefix/api/v1/users?first=2" {
		t.Errorf("url = %s", got)
	}
	testHeader(t, req, "Authorization", "Bearer "+testKey)
	testHeader(t, req, "Content-Type", "application/json")
	testHeader(t, req, "User-Agent", "portal/1 embedkit-go/"+Version)
	testJSONBody(t, req, `{"a":1}`)
	if req.GetBody == nil {
		t.Error("no GetBody: the body cannot be re-sent")
	}

	req, _ = c.NewRequest(ctx, http.MethodPost, "/api/v1/embed/generate-session", nil)
	testHeader(t, req, "Authorization", "Api-Key "+testKey)
	testHeader(t, req, "Content-Type", "")

	for _, p := range []string{"", "api/v1", "//evil.example.com/x", "/\\evil", "https://evil.example.com/"} {
		if _, err := c.NewRequest(ctx, http.MethodGet, p, nil); err == nil {
			t.Errorf("path %q accepted", p)
		}
	}
	if _, err := c.NewRequest(ctx, http.MethodPost, "/x", func() {}); err == nil {
		t.Error("unencodable body accepted")
	}
	//lint:ignore SA1012 checking the nil-context guard
	if _, err := c.NewRequest(nil, http.MethodGet, "/x", nil); err == nil {
		t.Error("nil context accepted")
	}
	if _, err := c.NewRequest(ctx, "BAD METHOD", "/x", nil); err == nil {
		t.Error("bad method accepted")
	}
}

func TestDo(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("/api/v1/users/bulk", func(w http.ResponseWriter, r *http.Request) {
		testMethod(t, r, http.MethodPost)
		testAuth(t, r, "Bearer")
		testHeader(t, r, "Content-Type", "application/json")
		testJSONBody(t, r, `{"users":["a"]}`)
		writeJSON(w, 200, `{"created":1}`)
	})
	mux.HandleFunc("DELETE /api/v1/users/7", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /api/v1/app-config", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "raw-bytes")
	})
	ctx := context.Background()
	req, _ := c.NewRequest(ctx, http.MethodPost, "/api/v1/users/bulk", map[string][]string{"users": {"a"}})
	var out struct{ Created int }
	resp, err := c.Do(req, &out)
	if err != nil || out.Created != 1 || resp.StatusCode != 200 {
		t.Fatalf("Do = %v, %+v", err, out)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != `{"created":1}` {
		t.Errorf("buffered body = %q", b)
	}

	req, _ = c.NewRequest(ctx, http.MethodDelete, "/api/v1/users/7", nil)
	if resp, err := c.Do(req, &out); err != nil || resp.StatusCode != 204 {
		t.Fatalf("delete = %v", err)
	}

	var buf bytes.Buffer
	req, _ = c.NewRequest(ctx, http.MethodGet, "/api/v1/app-config", nil)
	if _, err := c.Do(req, &buf); err != nil || buf.String() != "raw-bytes" {
		t.Fatalf("writer = %v %q", err, buf.String())
	}
	req, _ = c.NewRequest(ctx, http.MethodGet, "/api/v1/app-config", nil)
	if _, err := c.Do(req, &out); !errors.Is(err, ErrUnexpectedResponse) || !strings.Contains(err.Error(), `raw-bytes`) {
		t.Fatalf("non-JSON into struct = %v", err)
	}
	req, _ = c.NewRequest(ctx, http.MethodGet, "/api/v1/app-config", nil)
	if _, err := c.Do(req, failWriter{}); err == nil {
		t.Fatal("writer error lost")
	}
	req, _ = c.NewRequest(ctx, http.MethodGet, "/api/v1/missing", nil)
	resp, err = c.Do(req, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || resp == nil || resp.StatusCode != 404 {
		t.Fatalf("404 = %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestDoNonRewindableBodyIsNotRetried(t *testing.T) {
	c, mux, _ := setup(t)
	var calls atomic.Int32
	mux.HandleFunc("PUT /x", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(503)
	})
	req, _ := c.NewRequest(context.Background(), http.MethodPut, "/x", nil)
	req.Body = io.NopCloser(strings.NewReader("{}"))
	req.GetBody = nil
	if _, err := c.Do(req, nil); !errors.Is(err, ErrServer) {
		t.Fatalf("err = %v", err)
	}
	if calls.Load() != 1 {
		t.Errorf("calls = %d, want 1", calls.Load())
	}
}

// TestDoReadsBody reads 2xx bodies of known and unknown length, up to
// maxBody, and refuses longer or cut-short ones.
func TestDoReadsBody(t *testing.T) {
	tests := []struct {
		name    string
		length  string // Content-Length to announce; "" for chunked
		size    int64  // bytes sent
		wantErr error
	}{
		{"known length", "", 0, nil},
		{"known length, some bytes", "", 100, nil},
		{"chunked", "chunked", 100, nil},
		{"chunked, at the limit", "chunked", maxBody, nil},
		{"known length, at the limit", "", maxBody, nil},
		{"known length, too large", "", maxBody + 10, ErrUnexpectedResponse},
		{"chunked, too large", "chunked", maxBody + 10, ErrUnexpectedResponse},
		{"cut short", "200", 100, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _ := setup(t)
			mux.HandleFunc("GET /body", func(w http.ResponseWriter, r *http.Request) {
				switch tt.length {
				case "":
					w.Header().Set("Content-Length", strconv.FormatInt(tt.size, 10))
				case "chunked":
					w.(http.Flusher).Flush()
				default:
					w.Header().Set("Content-Length", tt.length)
				}
				io.CopyN(w, zeroReader{}, tt.size)
			})
			req, _ := c.NewRequest(context.Background(), http.MethodGet, "/body", nil)
			var got bytes.Buffer
			_, err := c.Do(req, &got)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || int64(got.Len()) != tt.size {
				t.Fatalf("read %d bytes, %v; want %d", got.Len(), err, tt.size)
			}
		})
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestConnectionReuse counts the connections sequential calls open,
// successes and error answers alike.
func TestConnectionReuse(t *testing.T) {
	var conns atomic.Int32
	c, mux, _ := setupServer(t, func(s *httptest.Server) {
		s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				conns.Add(1)
			}
		}
	})
	mux.HandleFunc("GET /api/v1/deployments/1/versions", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"data":[{"version":"1.0.0"}]}`)
	})
	mux.HandleFunc("GET /api/v1/deployments/2/versions", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 404, `{"error":"not found `+strings.Repeat("x", 10000)+`"}`)
	})
	mux.HandleFunc("GET /api/v1/deployments/3/versions", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 503, `{"error":"busy"}`)
	})
	ctx := context.Background()
	for range 5 {
		if _, err := c.ListVersions(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListVersions(ctx, 2); !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
		if _, err := c.ListVersions(ctx, 3); !errors.Is(err, ErrServer) {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("sequential calls opened %d connections, want 1", n)
	}
}

// TestPlatformNeverAnswers: the call returns within its deadline.
func TestPlatformNeverAnswers(t *testing.T) {
	c, mux, _ := setup(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	var calls atomic.Int32
	mux.HandleFunc("GET /api/v1/deployments", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.ListDeployments(ctx, ListOptions{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("returned after %v", d)
	}
	noSecrets(t, "error", err.Error())
}

// TestCancelStopsRetries: cancelling the context during the backoff
// stops at once.
func TestCancelStopsRetries(t *testing.T) {
	c, mux, _ := setup(t, WithRetry(RetryPolicy{MaxAttempts: 10, MinDelay: time.Hour, MaxDelay: time.Hour}))
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	mux.HandleFunc("GET /api/v1/deployments", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		cancel()
		w.WriteHeader(503)
	})
	start := time.Now()
	_, err := c.ListDeployments(ctx, ListOptions{})
	// The transport may see the cancellation before or after the 503
	// arrives; either way the error is the cancellation, and when the
	// answer arrived first it is kept too.
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.StatusCode != 503 {
		t.Errorf("kept answer = %d, want 503", apiErr.StatusCode)
	}
	if calls.Load() != 1 {
		t.Errorf("calls = %d", calls.Load())
	}
	if time.Since(start) > 5*time.Second {
		t.Error("cancel did not stop the wait")
	}
	// A context cancelled before the call sends nothing.
	if _, err := c.ListDeployments(ctx, ListOptions{}); !errors.Is(err, context.Canceled) || calls.Load() != 1 {
		t.Fatalf("pre-cancelled: %v, calls %d", err, calls.Load())
	}
}

// TestCancelAfterAnswerKeepsAnswer: when the caller's context ends after
// the platform answered a retryable status, the error is the
// cancellation and still carries the answer.
func TestCancelAfterAnswerKeepsAnswer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, mux, _ := setup(t,
		WithRetry(RetryPolicy{MaxAttempts: 10, MinDelay: time.Hour, MaxDelay: time.Hour}),
		WithHTTPClient(&http.Client{Transport: cancelAfter{http.DefaultTransport, cancel}}))
	var calls atomic.Int32
	mux.HandleFunc("GET /api/v1/deployments", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("X-Request-Id", "req-7")
		w.WriteHeader(503)
	})
	_, err := c.ListDeployments(ctx, ListOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	apiErr, ok := errors.AsType[*APIError](err)
	if !ok || apiErr.StatusCode != 503 {
		t.Fatalf("err = %v, want the 503 answer kept", err)
	}
	if !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "not retried: context canceled") {
		t.Errorf("message = %q", err)
	}
	if calls.Load() != 1 {
		t.Errorf("calls = %d, want 1", calls.Load())
	}
}

// cancelAfter cancels a context once a response is in hand.
type cancelAfter struct {
	next   http.RoundTripper
	cancel context.CancelFunc
}

func (c cancelAfter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	c.cancel()
	return resp, err
}

// TestRetryTable counts attempts per status and method.
func TestRetryTable(t *testing.T) {
	statuses := []int{400, 401, 403, 404, 409, 422, 429, 500, 501, 502, 503, 504}
	idempotentRetried := map[int]bool{429: true, 500: true, 502: true, 503: true, 504: true}
	type op struct {
		name       string
		idempotent bool
		call       func(c *Client) error
		pattern    string
	}
	ctx := context.Background()
	ops := []op{
		{"GET", true, func(c *Client) error { _, err := c.ListVersions(ctx, 1); return err }, "GET /api/v1/deployments/1/versions"},
		{"PUT", true, func(c *Client) error {
			_, err := c.UpdateDeployment(ctx, 1, &UpdateDeploymentRequest{Region: "eu"})
			return err
		}, "PUT /api/v1/deployments/1"},
		{"DELETE", true, func(c *Client) error { return c.DeleteTenantGroup(ctx, "acme", "g1") }, "DELETE /api/v1/embed-tenants/acme/groups/g1"},
		{"revoke", true, func(c *Client) error { return c.RevokeSession(ctx, testSession) }, "POST /api/v1/embed/session/revoke"},
		{"generate-session", false, func(c *Client) error {
			_, err := c.GenerateSession(ctx, &GenerateSessionRequest{DeploymentID: 1, ExternalID: "u"})
			return err
		}, "POST /api/v1/embed/generate-session"},
		{"meta token", false, func(c *Client) error {
			_, err := c.CreateMetaToken(ctx, 1, "2", &MetaTokenRequest{SecurityContext: map[string]any{}})
			return err
		}, "POST /api/v1/deployments/1/environments/2/tokens-for-meta-sync"},
		{"data token", false, func(c *Client) error { _, err := c.CreateDataAPIToken(ctx, 1, nil); return err }, "POST /api/v1/deployments/1/token"},
		{"export submit", false, func(c *Client) error {
			_, err := c.SubmitDashboardExport(ctx, 1, &DashboardExportRequest{DashboardID: 3, Format: FormatPDF})
			return err
		}, "POST /api/v1/deployments/1/dashboard-exports"},
	}
	for _, o := range ops {
		for _, st := range statuses {
			t.Run(fmt.Sprintf("%s/%d", o.name, st), func(t *testing.T) {
				c, mux, _ := setup(t, WithRetry(RetryPolicy{MaxAttempts: 3}))
				recordSleeps(c)
				var calls atomic.Int32
				mux.HandleFunc(o.pattern, func(w http.ResponseWriter, r *http.Request) {
					calls.Add(1)
					writeJSON(w, st, `{"error":"boom"}`)
				})
				err := o.call(c)
				var apiErr *APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != st {
					t.Fatalf("err = %v", err)
				}
				want := int32(1)
				if (o.idempotent && idempotentRetried[st]) || st == 429 {
					want = 3
				}
				if got := calls.Load(); got != want {
					t.Errorf("%s %d: %d attempts, want %d", o.name, st, got, want)
				}
			})
		}
	}
}

// TestRetryRecovers: a retried call that then succeeds returns the
// success, and the body is re-sent intact.
func TestRetryRecovers(t *testing.T) {
	c, mux, _ := setup(t)
	var calls atomic.Int32
	mux.HandleFunc("PUT /api/v1/deployments/5", func(w http.ResponseWriter, r *http.Request) {
		testJSONBody(t, r, `{"region":"eu"}`)
		if calls.Add(1) < 3 {
			writeJSON(w, 502, `<html>bad gateway</html>`)
			return
		}
		writeJSON(w, 200, `{"id":5,"name":"d"}`)
	})
	s, err := c.UpdateDeployment(context.Background(), 5, &UpdateDeploymentRequest{Region: "eu"})
	if err != nil || s.ID != 5 || calls.Load() != 3 {
		t.Fatalf("UpdateDeployment = %+v, %v after %d calls", s, err, calls.Load())
	}
}

// TestGenerateSessionNotRetriedAfterReset: a connection broken after the
// request was sent is not retried for generate-session (it may have
// minted), but is for an idempotent GET.
func TestGenerateSessionNotRetriedAfterReset(t *testing.T) {
	c, mux, _ := setup(t)
	recordSleeps(c)
	var gen, get atomic.Int32
	hangUp := func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"sess"))
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		conn.Close()
	}
	mux.HandleFunc("POST /api/v1/embed/generate-session", func(w http.ResponseWriter, r *http.Request) {
		gen.Add(1)
		hangUp(w, r)
	})
	mux.HandleFunc("GET /api/v1/deployments/1/versions", func(w http.ResponseWriter, r *http.Request) {
		if get.Add(1) == 1 {
			hangUp(w, r)
			return
		}
		writeJSON(w, 200, `{"items":[]}`)
	})
	_, err := c.GenerateSession(context.Background(), &GenerateSessionRequest{DeploymentID: 1, ExternalID: "u"})
	if err == nil {
		t.Fatal("broken response accepted")
	}
	if gen.Load() != 1 {
		t.Errorf("generate-session attempted %d times after a reset, want 1", gen.Load())
	}
	noSecrets(t, "error", err.Error())
	if _, err := c.ListVersions(context.Background(), 1); err != nil || get.Load() != 2 {
		t.Errorf("GET after reset: %v, %d attempts", err, get.Load())
	}
}

// TestGenerateSessionRetriedAfterDialError: when the connection cannot be
// opened nothing reached the platform, so the mint is retried.
func TestGenerateSessionRetriedAfterDialError(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var gen atomic.Int32
	mux.HandleFunc("POST /api/v1/embed/generate-session", func(w http.ResponseWriter, r *http.Request) {
		gen.Add(1)
		writeJSON(w, 200, `{"sessionId":"`+testSession+`"}`)
	})
	var dials atomic.Int32
	d := &net.Dialer{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connect: connection refused")}
		}
		return d.DialContext(ctx, network, addr)
	}}
	c, err := New(srv.URL, testKey, WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		t.Fatal(err)
	}
	recordSleeps(c)
	s, err := c.GenerateSession(context.Background(), &GenerateSessionRequest{DeploymentID: 1, ExternalID: "u"})
	if err != nil || s.SessionID != testSession {
		t.Fatalf("GenerateSession = %v", err)
	}
	if dials.Load() != 2 || gen.Load() != 1 {
		t.Errorf("dials %d, mints %d", dials.Load(), gen.Load())
	}

	// Refused for good: the error names the path and not the key.
	tr2 := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connect: connection refused")}
	}}
	c2, _ := New(srv.URL, testKey, WithHTTPClient(&http.Client{Transport: tr2}), WithRetry(RetryPolicy{MaxAttempts: 2}))
	recordSleeps(c2)
	_, err = c2.GenerateSession(context.Background(), &GenerateSessionRequest{DeploymentID: 1, ExternalID: "u"})
	if err == nil || !strings.Contains(err.Error(), "POST /api/v1/embed/generate-session") {
		t.Fatalf("err = %v", err)
	}
	noSecrets(t, "error", err.Error())
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		header     string
		wantCalls  int32
		wantSleep  time.Duration
		wantRetry  time.Duration
		checkSleep bool
	}{
		{"429 seconds honoured", 429, "2", 2, 2 * time.Second, 0, true},
		{"503 seconds honoured", 503, "1", 2, time.Second, 0, true},
		{"429 over cap returns at once", 429, "3600", 1, 0, time.Hour, false},
		{"503 over cap returns at once", 503, "31", 1, 0, 31 * time.Second, false},
		{"429 http date", 429, "DATE+5", 2, 5 * time.Second, 0, false},
		{"429 garbage uses backoff", 429, "soon", 2, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _ := setup(t, WithRetry(RetryPolicy{MaxAttempts: 2, MaxRetryAfter: 30 * time.Second}))
			sleeps := recordSleeps(c)
			var calls atomic.Int32
			mux.HandleFunc("GET /api/v1/deployments/1/versions", func(w http.ResponseWriter, r *http.Request) {
				h := tt.header
				if h == "DATE+5" {
					h = time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)
				}
				w.Header().Set("Retry-After", h)
				calls.Add(1)
				writeJSON(w, tt.status, `{"error":"slow down"}`)
			})
			start := time.Now()
			_, err := c.ListVersions(context.Background(), 1)
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.status {
				t.Fatalf("err = %v", err)
			}
			if calls.Load() != tt.wantCalls {
				t.Errorf("calls = %d, want %d", calls.Load(), tt.wantCalls)
			}
			if tt.wantRetry != 0 && apiErr.RetryAfter != tt.wantRetry {
				t.Errorf("RetryAfter = %v, want %v", apiErr.RetryAfter, tt.wantRetry)
			}
			if tt.checkSleep && (len(*sleeps) != 1 || (*sleeps)[0] != tt.wantSleep) {
				t.Errorf("sleeps = %v, want [%v]", *sleeps, tt.wantSleep)
			}
			if tt.header == "DATE+5" && (len(*sleeps) != 1 || (*sleeps)[0] < 3*time.Second || (*sleeps)[0] > 6*time.Second) {
				t.Errorf("date sleeps = %v", *sleeps)
			}
			for _, d := range *sleeps {
				if d > 30*time.Second {
					t.Errorf("slept %v, over the cap", d)
				}
			}
			if time.Since(start) > 5*time.Second {
				t.Error("took too long")
			}
		})
	}
}

// TestRetryNotPastDeadline: a retry whose delay would end after the
// context deadline is not attempted.
func TestRetryNotPastDeadline(t *testing.T) {
	c, mux, _ := setup(t)
	sleeps := recordSleeps(c)
	var calls atomic.Int32
	mux.HandleFunc("GET /api/v1/spec", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "10")
		writeJSON(w, 503, `{"error":"maintenance"}`)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := c.Spec(ctx)
	if !errors.Is(err, ErrServer) || calls.Load() != 1 || len(*sleeps) != 0 {
		t.Fatalf("err %v, calls %d, sleeps %v", err, calls.Load(), *sleeps)
	}
}

func TestSleepCtx(t *testing.T) {
	if err := sleepCtx(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := sleepCtx(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleepCtx(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// TestLogging checks one debug record per attempt, with the template and
// without secrets.
func TestLogging(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, mux, _ := setup(t, WithLogger(logger), WithRetry(RetryPolicy{MaxAttempts: 2}))
	recordSleeps(c)
	mux.HandleFunc("POST /api/v1/embed/session/revoke", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 503, `{"error":"session `+testSession+` busy"}`)
	})
	mux.HandleFunc("GET /api/v1/deployments/77/environments", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"data":{"environments":[]},"pagination":{"total":0}}`)
	})
	err := c.RevokeSession(context.Background(), testSession)
	if !errors.Is(err, ErrServer) {
		t.Fatal(err)
	}
	noSecrets(t, "error", err.Error())
	if !strings.Contains(err.Error(), Redact(testSession)) {
		t.Errorf("error does not show the redacted id: %v", err)
	}
	if _, err := c.ListEnvironments(context.Background(), 77, EnvironmentListOptions{}); err != nil {
		t.Fatal(err)
	}
	req, _ := c.NewRequest(context.Background(), http.MethodGet, "/api/v1/users/123456/tokens/abcdef0123456789abcdef?x=1", nil)
	c.Do(req, nil)
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	noSecrets(t, "log", out)
	if n := strings.Count(out, "msg=\"embedkit request\""); n != 4 {
		t.Errorf("%d attempt records, want 4:\n%s", n, out)
	}
	for _, want := range []string{"path=/api/v1/embed/session/revoke", "attempt=2", "status=503", "path=/api/v1/deployments/{deploymentId}/environments", "path=/api/v1/users/{id}/tokens/{id}", "latency="} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestSanitizePath(t *testing.T) {
	tests := map[string]string{
		"/api/v1/deployments/12/versions":     "/api/v1/deployments/{id}/versions",
		"/api/v1/users/me":                    "/api/v1/users/me",
		"/api/v1/x/0123456789abcdef01234?q=1": "/api/v1/x/{id}",
		"/api/scim/v2/Users":                  "/api/scim/v2/Users",
		"/a/b-c-d/some-long-name-without-num": "/a/b-c-d/some-long-name-without-num",
	}
	for in, want := range tests {
		if got := sanitizePath(in); got != want {
			t.Errorf("sanitizePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNoSecretsAnywhere runs success and failure paths of the
// secret-bearing operations with a debug logger and checks every error
// and every log line.
func TestNoSecretsAnywhere(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, mux, _ := setup(t, WithLogger(logger), WithCircuitBreaker(BreakerSettings{FailureThreshold: 100}), WithAPIKeyHeader("Api-Key"))
	recordSleeps(c)
	mode := atomic.Int32{}
	echo := func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		switch mode.Load() {
		case 0:
			if strings.Contains(r.URL.Path, "generate-session") {
				writeJSON(w, 200, `{"sessionId":"`+testSession+`"}`)
				return
			}
			writeJSON(w, 200, `{"token":"`+testToken+`","data":{"token":"`+testToken+`"}}`)
		case 1: // the platform echoes everything it got in an error
			writeJSON(w, 400, `{"error":"bad request `+auth+` `+strings.ReplaceAll(string(b), `"`, `'`)+`"}`)
		case 2:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(500)
			io.WriteString(w, "<pre>"+auth+string(b)+"</pre>")
		case 3: // broken success bodies that hold the secret
			writeJSON(w, 200, `{"sessionId":"`+testSession+`","token":"`+testToken)
		}
	}
	for _, p := range []string{"POST /api/v1/embed/generate-session", "POST /api/v1/embed/session/revoke", "POST /api/v1/embed/session/token",
		"POST /api/v1/deployments/1/environments/e/tokens-for-meta-sync", "POST /api/v1/deployments/1/token"} {
		mux.HandleFunc(p, echo)
	}
	ctx := context.Background()
	var errs []error
	for m := range int32(4) {
		mode.Store(m)
		_, err := c.GenerateSession(ctx, &GenerateSessionRequest{DeploymentID: 1, ExternalID: "u"})
		errs = append(errs, err)
		errs = append(errs, c.RevokeSession(ctx, testSession))
		_, err = c.ExchangeSession(ctx, testSession)
		errs = append(errs, err)
		_, err = c.CreateMetaToken(ctx, 1, "e", &MetaTokenRequest{SecurityContext: map[string]any{}})
		errs = append(errs, err)
		_, err = c.CreateDataAPIToken(ctx, 1, nil)
		errs = append(errs, err)
	}
	failures := 0
	for _, err := range errs {
		if err != nil {
			failures++
			noSecrets(t, "error", err.Error())
			noSecrets(t, "error %+v", fmt.Sprintf("%+v", err))
		}
	}
	if failures < 14 {
		t.Errorf("only %d failures", failures)
	}
	// A platform that cannot be reached.
	c2, _ := New("http://127.0.0.1:1", testKey, WithLogger(logger), WithRetry(RetryPolicy{MaxAttempts: 1}))
	_, err := c2.ExchangeSession(ctx, testSession)
	if err == nil {
		t.Fatal("unreachable platform answered")
	}
	noSecrets(t, "error", err.Error())
	mu.Lock()
	defer mu.Unlock()
	noSecrets(t, "log", buf.String())
	if !strings.Contains(buf.String(), `"path":"/api/v1/embed/session/token"`) {
		t.Errorf("log lacks records: %s", buf.String())
	}
}

// TestConcurrentUse shares one Client among goroutines (run with -race).
func TestConcurrentUse(t *testing.T) {
	c, mux, _ := setup(t, WithCircuitBreaker(BreakerSettings{}), WithRetry(RetryPolicy{Backoff: JitterBackoff(rand.NewPCG(1, 1))}))
	var n atomic.Int32
	mux.HandleFunc("POST /api/v1/embed/generate-session", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%5 == 0 {
			writeJSON(w, 429, `{"error":"slow down"}`)
			return
		}
		writeJSON(w, 200, `{"sessionId":"`+testSession+`"}`)
	})
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if _, err := c.GenerateSession(context.Background(), &GenerateSessionRequest{DeploymentID: 1, ExternalID: "u"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// TestBreakerIgnoresCallerCancel: a call the caller cancels while it is in
// flight does not count as a platform failure.
func TestBreakerIgnoresCallerCancel(t *testing.T) {
	c, mux, _ := setup(t, WithCircuitBreaker(BreakerSettings{FailureThreshold: 1}))
	started := make(chan struct{}, 1)
	mux.HandleFunc("GET /api/v1/spec", func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	if _, err := c.Spec(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if c.BreakerState() != BreakerClosed {
		t.Errorf("caller cancellation opened the circuit")
	}
}
