package emulator

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestControlAPIRefusesForeignRequests: the control API answers only to a
// loopback or configured Host, to its own Origin or none, and takes POSTs
// as application/json only. A refused request changes nothing.
func TestControlAPIRefusesForeignRequests(t *testing.T) {
	e := setup(t)
	port := e.ts.Listener.Addr().(*net.TCPAddr).Port
	own := e.ts.URL // http://127.0.0.1:PORT
	hostPort := func(h string) string { return net.JoinHostPort(h, strconv.Itoa(port)) }
	const fault = `{"faults":[{"path":"/api/v1/deployments","status":500}]}`
	for _, tc := range []struct {
		name        string
		method      string
		path        string
		host        string // "" keeps the server's own
		origin      string
		contentType string
		body        string
		status      int
		msg         string // in the error body of a refusal
	}{
		{"forged host reads sessions", "GET", "/_emulator/sessions", "evil.example:1234", "", "", "", 403, `Host "evil.example:1234" refused`},
		{"forged host on the emulator's port", "GET", "/_emulator/requests", hostPort("evil.example"), "", "", "", 403, "DNS rebinding"},
		{"forged host injects a fault", "POST", "/_emulator/faults", "evil.example:1234", "", "application/json", fault, 403, "Host"},
		{"rebinding name that starts with 127.0.0.1", "GET", "/_emulator/clock", hostPort("127.0.0.1.evil.example"), "", "", "", 403, "Host"},
		{"localhost.evil.example", "GET", "/_emulator/clock", hostPort("localhost.evil.example"), "", "", "", 403, "Host"},
		{"service name not configured", "GET", "/_emulator/clock", "emulator:7070", "", "", "", 403, "WithControlHosts"},
		{"unknown control path, forged host", "GET", "/_emulator/nothing", "evil.example", "", "", "", 403, "Host"},
		{"foreign origin POST", "POST", "/_emulator/faults", "", "https://evil.example", "application/json", fault, 403, `Origin "https://evil.example" refused`},
		{"sibling port origin POST", "POST", "/_emulator/faults", "", "http://127.0.0.1:1", "application/json", fault, 403, "Origin"},
		{"opaque origin POST", "POST", "/_emulator/reset", "", "null", "application/json", "", 403, "Origin"},
		{"foreign origin GET", "GET", "/_emulator/sessions", "", "https://evil.example", "", "", 403, "Origin"},
		{"foreign origin DELETE", "DELETE", "/_emulator/faults", "", "https://evil.example", "", "", 403, "Origin"},
		{"text/plain POST", "POST", "/_emulator/faults", "", "", "text/plain", fault, 415, "Content-Type: application/json"},
		{"form POST", "POST", "/_emulator/reset", "", "", "application/x-www-form-urlencoded", "", 415, "Content-Type"},
		{"POST without a type", "POST", "/_emulator/clock", "", "", "", `{"advance":"1h"}`, 415, "Content-Type"},
		{"empty POST without a type", "POST", "/_emulator/reset", "", "", "", "", 415, "even with an empty body"},

		{"loopback GET", "GET", "/_emulator/sessions", "", "", "", "", 200, ""},
		{"localhost", "GET", "/_emulator/clock", hostPort("localhost"), "", "", "", 200, ""},
		{"LOCALHOST without port", "GET", "/_emulator/clock", "LOCALHOST", "", "", "", 200, ""},
		{"IPv6 loopback", "GET", "/_emulator/clock", hostPort("::1"), "", "", "", 200, ""},
		{"other 127/8 address", "GET", "/_emulator/clock", "127.0.0.2:80", "", "", "", 200, ""},
		{"same-origin POST", "POST", "/_emulator/clock", "", own, "application/json", `{"advance":"0s"}`, 200, ""},
		{"same-origin POST via localhost", "POST", "/_emulator/clock", hostPort("localhost"), "http://" + hostPort("localhost"), "application/json; charset=utf-8", `{"advance":"0s"}`, 200, ""},
		{"DELETE without a type", "DELETE", "/_emulator/faults", "", "", "", "", 204, ""},
		{"JSON POST, empty body", "POST", "/_emulator/reset", "", "", "application/json", "", 204, ""},
		// The management API is guarded by its API key, not by Host.
		{"management API under any host", "GET", "/api/v1/deployments/1/versions", "evil.example", "https://evil.example", "", "", 401, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.s.ClearFaults()
			req, err := http.NewRequest(tc.method, e.ts.URL+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			resp, err := e.ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.status, data)
			}
			if tc.msg != "" {
				if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				if msg := errorOf(t, data); !strings.Contains(msg, tc.msg) || !strings.HasPrefix(msg, "control API: ") {
					t.Errorf("message %q, want it to contain %q", msg, tc.msg)
				}
				// Nothing happened: no fault is in force, the clock stands.
				e.expect(200, "GET", "/api/v1/deployments", "ek_admin_all", nil)
				if !e.s.now().Equal(testEpoch) {
					t.Errorf("a refused request moved the clock to %v", e.s.now())
				}
			}
		})
	}
}

// TestControlHosts: a host named with WithControlHosts, or the address a
// request's connection was accepted on, passes the Host rule.
func TestControlHosts(t *testing.T) {
	s, err := New(nil, WithControlHosts("Emulator:7070", "emulator.internal", "10.1.2.3", ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host  string
		local string // the connection's local address; "" for none
		want  int
	}{
		{"emulator:7070", "", 200},
		{"EMULATOR:9999", "", 200}, // ports are not compared
		{"emulator", "", 200},
		{"emulator.internal:80", "", 200},
		{"10.1.2.3:7070", "", 200},
		{"emulator.evil.example", "", 403},
		{"evil.example", "", 403},
		{"", "", 403},
		{"192.0.2.10:7070", "192.0.2.10:7070", 200}, // reached by its own IP address
		{"[2001:db8::1]:7070", "[2001:db8::1]:7070", 200},
		{"192.0.2.10:7070", "192.0.2.11:7070", 403}, // another address
		{"myhost.lan:7070", "192.0.2.10:7070", 403}, // a name is never vouched for by the address
	} {
		r := httptest.NewRequest("GET", "/_emulator/clock", nil)
		r.Host = tc.host
		if tc.local != "" {
			addr, err := net.ResolveTCPAddr("tcp", tc.local)
			if err != nil {
				t.Fatal(err)
			}
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("Host %q (local %q): %d, want %d; %s", tc.host, tc.local, w.Code, tc.want, w.Body)
		}
	}
}

// TestListenAndServeControlHosts: Config.ControlHosts reaches the Server
// ListenAndServe serves.
func TestListenAndServeControlHosts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- ListenAndServe(ctx, Config{Addr: "127.0.0.1:0", ControlHosts: []string{"emulator"}, Ready: func(u string) { ready <- u }})
	}()
	var base string
	select {
	case base = <-ready:
	case err := <-done:
		t.Fatalf("ListenAndServe: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("not ready")
	}
	for host, want := range map[string]int{"emulator:7070": 200, "other:7070": 403} {
		req, _ := http.NewRequest("GET", base+"/_emulator/clock", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("shutdown: %v", err)
	}
}
