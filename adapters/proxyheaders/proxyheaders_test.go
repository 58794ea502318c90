package proxyheaders_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/adapters/proxyheaders"
	"github.com/embedkit/embedkit/middleware"
)

// newIdentity builds an Identity trusting 10.0.0.0/8 and fd00::/8, logging
// to the returned buffer.
func newIdentity(t *testing.T, change func(*proxyheaders.Config)) (*proxyheaders.Identity, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	cfg := proxyheaders.Config{
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")},
		Logger:         slog.New(slog.NewTextHandler(&logs, nil)),
	}
	if change != nil {
		change(&cfg)
	}
	id, err := proxyheaders.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return id, &logs
}

// request returns a request from remote carrying headers (repeated keys
// become repeated headers).
func request(t *testing.T, remote string, headers ...[2]string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/dash/1", nil)
	r.RemoteAddr = remote
	for _, h := range headers {
		r.Header.Add(h[0], h[1])
	}
	return r
}

func TestViewer(t *testing.T) {
	user := func(v string) [2]string { return [2]string{"X-Forwarded-User", v} }
	tests := []struct {
		name    string
		config  func(*proxyheaders.Config)
		remote  string
		headers [][2]string
		want    *middleware.Viewer
		wantErr string // "" with want == nil means ErrNoViewer
	}{
		{
			name:   "all headers from trusted proxy",
			remote: "10.1.2.3:5555",
			headers: [][2]string{user("jane"), {"X-Forwarded-Email", "jane@example.com"},
				{"X-Forwarded-Groups", "sales, emea,,sales"}, {"X-Forwarded-Preferred-Username", "Jane Doe"}},
			want: &middleware.Viewer{Subject: "jane", Email: "jane@example.com", Groups: []string{"sales", "emea"}, DisplayName: "Jane Doe"},
		},
		{name: "user only", remote: "10.1.2.3:5555", headers: [][2]string{user("jane")},
			want: &middleware.Viewer{Subject: "jane"}},
		{name: "ipv6 trusted proxy", remote: "[fd00::7]:443", headers: [][2]string{user("jane")},
			want: &middleware.Viewer{Subject: "jane"}},
		{name: "ipv4-mapped ipv6 address", remote: "[::ffff:10.0.0.9]:443", headers: [][2]string{user("jane")},
			want: &middleware.Viewer{Subject: "jane"}},
		{name: "bare address without port", remote: "10.0.0.9", headers: [][2]string{user("jane")},
			want: &middleware.Viewer{Subject: "jane"}},
		{name: "untrusted address", remote: "192.0.2.10:5555", headers: [][2]string{user("admin"), {"X-Forwarded-Groups", "admins"}}},
		{name: "untrusted ipv6", remote: "[2001:db8::1]:5555", headers: [][2]string{user("admin")}},
		{name: "loopback not trusted by default", remote: "127.0.0.1:5555", headers: [][2]string{user("admin")}},
		{name: "unparsable remote address", remote: "@", headers: [][2]string{user("admin")}},
		{name: "no user header", remote: "10.1.2.3:1", headers: [][2]string{{"X-Forwarded-Email", "a@example.com"}}},
		{name: "empty user header", remote: "10.1.2.3:1", headers: [][2]string{user("  ")}},
		{name: "user header twice", remote: "10.1.2.3:1", headers: [][2]string{user("jane"), user("admin")},
			wantErr: "proxyheaders: header X-Forwarded-User: sent 2 times"},
		{name: "control character in user", remote: "10.1.2.3:1", headers: [][2]string{user("jane\x00admin")},
			wantErr: "proxyheaders: header X-Forwarded-User: value holds a control character"},
		{name: "newline in groups", remote: "10.1.2.3:1", headers: [][2]string{user("jane"), {"X-Forwarded-Groups", "a\nb"}},
			wantErr: "proxyheaders: header X-Forwarded-Groups: value holds a control character"},
		{name: "C1 control in email", remote: "10.1.2.3:1", headers: [][2]string{user("jane"), {"X-Forwarded-Email", "a\u0085@example.com"}},
			wantErr: "proxyheaders: header X-Forwarded-Email: value holds a control character"},
		{name: "invalid UTF-8", remote: "10.1.2.3:1", headers: [][2]string{user("jane\xff")},
			wantErr: "proxyheaders: header X-Forwarded-User: value is not valid UTF-8"},
		{name: "oversized user", remote: "10.1.2.3:1", headers: [][2]string{user(strings.Repeat("j", 513))},
			wantErr: "proxyheaders: header X-Forwarded-User: value is 513 bytes, over the 512-byte limit"},
		{name: "oversized groups", remote: "10.1.2.3:1", headers: [][2]string{user("jane"), {"X-Forwarded-Groups", strings.Repeat("g,", 5000)}},
			wantErr: "proxyheaders: header X-Forwarded-Groups: value is 10000 bytes, over the 8192-byte limit"},
		{name: "groups within raised limit", remote: "10.1.2.3:1",
			config:  func(c *proxyheaders.Config) { c.MaxGroupsBytes = 20000 },
			headers: [][2]string{user("jane"), {"X-Forwarded-Groups", strings.Repeat("g,", 5000)}},
			want:    &middleware.Viewer{Subject: "jane", Groups: []string{"g"}}},
		{name: "custom header names", remote: "10.1.2.3:1",
			config: func(c *proxyheaders.Config) {
				c.UserHeader, c.EmailHeader, c.GroupsHeader, c.DisplayNameHeader = "x-auth-request-user", "X-Auth-Request-Email", "X-Auth-Request-Groups", "X-Auth-Request-Preferred-Username"
			},
			headers: [][2]string{{"X-Auth-Request-User", "jane"}, {"X-Auth-Request-Email", "j@example.com"},
				{"X-Auth-Request-Groups", "a,b"}, {"X-Auth-Request-Preferred-Username", "Jane"}, {"X-Forwarded-User", "admin"}},
			want: &middleware.Viewer{Subject: "jane", Email: "j@example.com", Groups: []string{"a", "b"}, DisplayName: "Jane"}},
		{name: "display name off", remote: "10.1.2.3:1",
			config:  func(c *proxyheaders.Config) { c.DisplayNameHeader = "-" },
			headers: [][2]string{user("jane"), {"X-Forwarded-Preferred-Username", "Jane"}},
			want:    &middleware.Viewer{Subject: "jane"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, logs := newIdentity(t, tt.config)
			got, err := id.Viewer(request(t, tt.remote, tt.headers...))
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want prefix %q", err, tt.wantErr)
				}
				if errors.Is(err, middleware.ErrNoViewer) {
					t.Errorf("error %v is ErrNoViewer; want a mapping error", err)
				}
			case tt.want == nil:
				if !errors.Is(err, middleware.ErrNoViewer) {
					t.Fatalf("Viewer = %+v, %v; want ErrNoViewer", got, err)
				}
			default:
				if err != nil {
					t.Fatalf("Viewer: %v", err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("Viewer = %+v, want %+v", got, tt.want)
				}
			}
			for _, h := range tt.headers {
				if len(h[1]) > 2 && strings.Contains(logs.String(), h[1]) {
					t.Errorf("log holds header value %q: %s", h[1], logs)
				}
			}
		})
	}
}

func TestUntrustedWarningOnce(t *testing.T) {
	id, logs := newIdentity(t, nil)
	quiet := request(t, "192.0.2.10:1")
	if _, err := id.Viewer(quiet); !errors.Is(err, middleware.ErrNoViewer) {
		t.Fatalf("err = %v", err)
	}
	if logs.Len() != 0 {
		t.Fatalf("request without identity headers logged: %s", logs)
	}
	for range 3 {
		id.Viewer(request(t, "192.0.2.10:1", [2]string{"X-Forwarded-User", "secret-admin"}))
	}
	if n := strings.Count(logs.String(), "untrusted address"); n != 1 {
		t.Errorf("warnings = %d, want 1: %s", n, logs)
	}
	if !strings.Contains(logs.String(), "192.0.2.10") || !strings.Contains(logs.String(), "X-Forwarded-User") {
		t.Errorf("warning lacks address or header name: %s", logs)
	}
	if strings.Contains(logs.String(), "secret-admin") {
		t.Errorf("warning holds the header value: %s", logs)
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		cfg     proxyheaders.Config
		wantErr string
	}{
		{"no trusted proxies", proxyheaders.Config{}, "proxyheaders: no trusted proxies configured"},
		{"trust everyone v4", proxyheaders.Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}},
			"proxyheaders: trusted proxy 1: 0.0.0.0/0 trusts every address"},
		{"trust everyone v6", proxyheaders.Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::/0")}},
			"proxyheaders: trusted proxy 2: ::/0 trusts every address"},
		{"zero prefix", proxyheaders.Config{TrustedProxies: []netip.Prefix{{}}}, "proxyheaders: trusted proxy 1: invalid prefix"},
		{"bad header name", proxyheaders.Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}, UserHeader: "X User"},
			`proxyheaders: invalid header name "X User"`},
		{"valid", proxyheaders.Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := proxyheaders.New(tt.cfg)
			if tt.wantErr == "" {
				if err != nil || id == nil {
					t.Fatalf("New = %v, %v", id, err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Fatalf("New error = %v, want prefix %q", err, tt.wantErr)
			}
		})
	}
}

func TestViewerThroughServer(t *testing.T) {
	// A real server sets RemoteAddr to the loopback peer; trusting only
	// 127.0.0.1/32 admits it.
	id, _ := newIdentity(t, func(c *proxyheaders.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := id.Viewer(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		w.Write([]byte(v.Subject))
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("X-Forwarded-User", "jane")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d", resp.StatusCode)
	}
}
