package emulator

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNotImplementedAndUnknown(t *testing.T) {
	e := setup(t)
	for _, tt := range []struct {
		method, path string
		status       int
		msg          string
	}{
		{"GET", "/api/v1/deployments/1/settings", 501, "not implemented by the emulator"},
		{"DELETE", "/api/v1/deployments/1", 501, "not implemented"},
		{"POST", "/build/api/v1/deployments/", 501, "not implemented"},
		{"GET", "/build/api/v1/deployments/1/branches", 501, "not implemented"},
		{"POST", "/build/api/v1/deployments/1/data-model/upload/start", 501, "not implemented"},
		{"GET", "/api/v1/deployments/1/transform-sync/abc/generated-files", 501, "not implemented"},
		{"PUT", "/api/v1/deployments/1/workbooks/by-slug/q3", 501, "not implemented"},
		{"GET", "/api/v1/users/me", 501, "not implemented"},
		{"PATCH", "/api/v1/users/me/settings", 501, "not implemented"},
		{"GET", "/api/scim/v2/Users", 501, "not implemented"},
		{"GET", "/api/v1/embed-tenants/", 501, "not implemented"},
		{"GET", "/api/v1/embed-tenants/globex/user-attributes", 501, "not implemented"},
		{"DELETE", "/api/v1/embed-tenants/globex/user-attributes/3", 501, "not implemented"},
		{"POST", "/api/v1/usage-analytics/token", 501, "not implemented"},
		{"GET", "/api/v1/regions/", 501, "not implemented"},
		{"GET", "/api/v1/nothing-here", 404, "not found"},
		{"GET", "/", 404, "not found"},
		{"DELETE", "/api/v1/deployments", 405, "not allowed"},
		{"GET", "/api/v1/embed/generate-session", 405, "not allowed"},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			got, h, data := e.do(tt.method, tt.path, "ek_admin_all", nil)
			if got != tt.status || h.Get("Content-Type") != "application/json" || !strings.Contains(errorOf(t, data), tt.msg) {
				t.Fatalf("status %d (%s): %s", got, h.Get("Content-Type"), data)
			}
			if got == 405 && h.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
		})
	}
	e.expect(401, "GET", "/api/v1/deployments/1/settings", "", nil)
}

func TestBodyTooLarge(t *testing.T) {
	e := setup(t)
	big := `{"deploymentId":1,"externalId":"u","securityContext":{"pad":"` + strings.Repeat("x", maxBodyBytes) + `"}}`
	data := e.expect(413, "POST", "/api/v1/embed/generate-session", "ek_admin_all", big)
	if !strings.Contains(errorOf(t, data), "too large") {
		t.Errorf("message %s", data)
	}
}

func TestFaultStatusTimes(t *testing.T) {
	e := setup(t)
	e.expect(204, "POST", "/_emulator/faults", "", `{"faults":[{"method":"POST","path":"/api/v1/embed/generate-session","status":503,"times":2,"retryAfter":"1"}]}`)
	body := `{"deploymentId":1,"externalId":"u"}`
	for i := range 2 {
		got, h, data := e.do("POST", "/api/v1/embed/generate-session", "ek_admin_all", body)
		if got != 503 || h.Get("Retry-After") != "1" || errorOf(t, data) != "injected fault" {
			t.Fatalf("request %d: %d %v %s", i, got, h, data)
		}
	}
	e.expect(200, "POST", "/api/v1/embed/generate-session", "ek_admin_all", body)
	// Other methods and paths are untouched; a raw body is sent as is.
	e.expect(204, "POST", "/_emulator/faults", "", `{"faults":[{"path":"/api/v1/deployments","status":500,"body":"upstream exploded"}]}`)
	for range 3 {
		got, h, data := e.do("GET", "/api/v1/deployments", "ek_admin_all", nil)
		if got != 500 || string(data) != "upstream exploded" || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
			t.Fatalf("times 0 fault: %d %s", got, data)
		}
	}
	e.expect(200, "GET", "/api/v1/deployments/1/versions", "ek_admin_all", nil)
	// Control paths are never faulted; DELETE clears.
	e.expect(204, "POST", "/_emulator/faults", "", `{"faults":[{"status":500}]}`)
	e.expect(200, "GET", "/_emulator/sessions", "", nil)
	e.expect(204, "DELETE", "/_emulator/faults", "", nil)
	e.expect(200, "GET", "/api/v1/deployments", "ek_admin_all", nil)
	// Prefix match.
	e.s.InjectFault(Fault{Path: "/api/v1/deployments/*", Status: 502, Times: 1})
	e.expect(502, "GET", "/api/v1/deployments/1/versions", "ek_admin_all", nil)
	e.expect(200, "GET", "/api/v1/deployments/1/versions", "ek_admin_all", nil)
}

func TestFaultDelay(t *testing.T) {
	e := setup(t)
	e.expect(204, "POST", "/_emulator/faults", "", `{"faults":[{"path":"/api/v1/deployments","delay":"150ms","times":1}]}`)
	start := time.Now()
	e.expect(200, "GET", "/api/v1/deployments", "ek_admin_all", nil)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("delay not applied: %v", d)
	}
	// A delay ends when the client gives up.
	e.s.InjectFault(Fault{Path: "/api/v1/deployments", Delay: time.Minute, Times: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.ts.URL+"/api/v1/deployments", nil)
	start = time.Now()
	_, err := e.ts.Client().Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("delay outlived the request: %v", d)
	}
}

func TestFaultReset(t *testing.T) {
	e := setup(t)
	e.expect(204, "POST", "/_emulator/faults", "", `{"faults":[{"method":"POST","path":"/api/v1/embed/session/token","reset":true,"times":1}]}`)
	req, _ := http.NewRequest("POST", e.ts.URL+"/api/v1/embed/session/token", strings.NewReader(`{"sessionId":"x"}`))
	resp, err := e.ts.Client().Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("expected a dropped connection, got %d", resp.StatusCode)
	}
	e.expect(401, "POST", "/api/v1/embed/session/token", "", `{"sessionId":"x"}`)
	logs := e.s.Requests()
	if len(logs) != 2 || logs[0].Status != 0 || logs[1].Status != 401 {
		t.Errorf("request log %+v", logs)
	}
}

func TestFaultValidation(t *testing.T) {
	e := setup(t)
	for body, msg := range map[string]string{
		`{}`:                                     "faults: is required",
		`{"faults":[{"status":42}]}`:             "faults[0].status",
		`{"faults":[{"status":500,"times":-1}]}`: "faults[0].times",
		`{"faults":[{"status":500,"delay":"soon"}]}`: "faults[0].delay: must be a duration",
		`{"faults":[{"path":"/x"}]}`:                 "give status, reset or delay",
		`{"faults":[{"status":500,"colour":"red"}]}`: "faults[0].colour: unknown field",
	} {
		data := e.expect(400, "POST", "/_emulator/faults", "", body)
		if !strings.Contains(errorOf(t, data), msg) {
			t.Errorf("%s: %s", body, data)
		}
	}
}

func TestControlClockAndSessions(t *testing.T) {
	e := setup(t)
	id := e.generate(`{"deploymentId":1,"externalId":"clocked"}`)
	var out struct {
		Now string `json:"now"`
	}
	mustJSON(t, e.expect(200, "POST", "/_emulator/clock", "", `{"advance":"5m1s"}`), &out)
	if out.Now != "2026-04-01T12:05:01Z" {
		t.Errorf("now %s", out.Now)
	}
	mustJSON(t, e.expect(200, "GET", "/_emulator/clock", "", nil), &out)
	if out.Now != "2026-04-01T12:05:01Z" {
		t.Errorf("now %s", out.Now)
	}
	e.expect(401, "POST", "/api/v1/embed/session/token", "", `{"sessionId":"`+id+`"}`)
	var ss struct {
		Sessions []SessionInfo `json:"sessions"`
	}
	mustJSON(t, e.expect(200, "GET", "/_emulator/sessions", "", nil), &ss)
	if len(ss.Sessions) != 1 || ss.Sessions[0].SessionID != id || ss.Sessions[0].State != "expired" ||
		ss.Sessions[0].ExternalID != "clocked" || ss.Sessions[0].DeploymentID != 1 || !ss.Sessions[0].CreatedAt.Equal(testEpoch) {
		t.Errorf("sessions %+v", ss.Sessions)
	}
	for _, body := range []string{`{}`, `{"advance":"-1m"}`, `{"advance":"later"}`, `{"advance":5}`} {
		e.expect(400, "POST", "/_emulator/clock", "", body)
	}
}

func TestControlRequestsLog(t *testing.T) {
	e := setup(t)
	e.expect(200, "GET", "/api/v1/deployments?limit=1", "ek_admin_all", nil)
	e.expect(401, "GET", "/api/v1/deployments", "", nil)
	var out struct {
		Requests []RequestLog `json:"requests"`
	}
	mustJSON(t, e.expect(200, "GET", "/_emulator/requests", "", nil), &out)
	if len(out.Requests) != 2 || out.Requests[0].Path != "/api/v1/deployments" || out.Requests[0].Status != 200 ||
		out.Requests[1].Status != 401 || out.Requests[0].Method != "GET" || !out.Requests[0].Time.Equal(testEpoch) {
		t.Errorf("requests %+v", out.Requests)
	}
	// The ring keeps the newest entries.
	for range requestLogSize + 5 {
		e.s.reqlog.add(RequestLog{Path: "/x"})
	}
	if n := len(e.s.Requests()); n != requestLogSize {
		t.Errorf("ring holds %d", n)
	}
}

func TestControlReset(t *testing.T) {
	e := setup(t)
	e.generate(`{"deploymentId":1,"externalId":"before"}`)
	e.s.Advance(time.Hour)
	e.s.InjectFault(Fault{Path: "/api/v1/deployments", Status: 500})
	if err := e.s.AddAPIKey(APIKey{Key: "ek_added", User: "admin"}); err != nil {
		t.Fatal(err)
	}
	small := `{"tenant":"other","embedding":true,"users":[{"username":"admin","admin":true}],"apiKeys":[{"key":"ek_small","user":"admin"}],
		"deployments":[{"id":5,"name":"Five","createdAt":"2026-01-01T00:00:00Z"}]}`
	e.expect(204, "POST", "/_emulator/reset", "", small)
	if n := len(e.s.Sessions()); n != 0 {
		t.Errorf("%d sessions after reset", n)
	}
	if !e.s.now().Equal(testEpoch) {
		t.Errorf("clock %v after reset", e.s.now())
	}
	var p deploymentsPage
	mustJSON(t, e.expect(200, "GET", "/api/v1/deployments", "ek_small", nil), &p)
	if len(p.Data.Deployments) != 1 || p.Data.Deployments[0].ID != "5" {
		t.Errorf("deployments %+v", p)
	}
	e.expect(401, "GET", "/api/v1/deployments", "ek_admin_all", nil)
	e.expect(200, "GET", "/api/v1/deployments", "ek_added", nil) // added keys survive
	data := e.expect(400, "POST", "/_emulator/reset", "", `{"tenant":"x!"}`)
	if !strings.Contains(errorOf(t, data), "tenant: must match") {
		t.Errorf("message %s", data)
	}
	// Empty body: back to the Server's own fixture. The body is empty
	// but the Content-Type is still application/json.
	e.expect(204, "POST", "/_emulator/reset", "", "")
	e.expect(200, "GET", "/api/v1/deployments", "ek_admin_all", nil)
}

func TestAddAPIKey(t *testing.T) {
	e := setup(t)
	for _, k := range []APIKey{{Key: "", User: "admin"}, {Key: "ek_admin_all", User: "admin"}, {Key: "k", User: "nobody"}, {Key: "k", User: "admin", Deployments: []int64{9}}} {
		if err := e.s.AddAPIKey(k); err == nil {
			t.Errorf("AddAPIKey(%+v) succeeded", k)
		}
	}
	if err := e.s.AddAPIKey(APIKey{Key: "ek_new_d2", User: "admin", Deployments: []int64{2}}); err != nil {
		t.Fatal(err)
	}
	e.expect(403, "GET", "/api/v1/deployments/1/versions", "ek_new_d2", nil)
	e.expect(200, "GET", "/api/v1/deployments/2/versions", "ek_new_d2", nil)
}
