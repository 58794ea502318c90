package emulator

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// fuzzedRoutes are the emulator's routes of the platform (not its
// /_emulator controls, whose faults answer 5xx on purpose), with "{}"
// where a client chooses a path parameter.
var fuzzedRoutes = []string{
	"GET /api/v1/embed-tenants/{}/groups",
	"GET /api/v1/deployments",
	"GET /api/v1/deployments/{}/environments",
	"GET /api/v1/deployments/{}/versions",
	"GET /api/v1/audit-logs/export",
	"GET /api/v1/deployments/1/dashboard-exports/{}",
	"GET /api/v1/deployments/{}/dashboard-exports/x/download",
	"GET /api/v1/embed/dashboard/{}",
	"GET /embed/dashboard/{}",
	"GET /embed/d/{}/dashboard/sales-overview",
	"GET /embed/d/1/app/{}",
	"GET /embed/chat",
	"GET /embed/api/context",
	"GET /embed/api/export",
	"POST /api/v1/embed/generate-session",
	"POST /api/v1/embed/session/token",
	"POST /api/v1/embed/session/revoke",
	"DELETE /api/v1/embed-tenants/acme/groups/{}",
	"PUT /api/v1/deployments/{}",
	"POST /api/v1/deployments/1/environments/{}/tokens-for-meta-sync",
	"POST /api/v1/deployments/{}/token",
	"PUT /build/api/v1/deployments/{}/branches/staging-environment",
	"POST /api/v1/deployments/{}/dashboard-exports",
}

// FuzzEmulatorRoutes sends the emulator's routes any path parameter, any
// query and any body, with an admin key: each answers with a 2xx, 3xx or
// 4xx, never a panic or a 5xx (the emulator runs in its users' CI, where
// a panic reads as a failure of the code under test).
func FuzzEmulatorRoutes(f *testing.F) {
	f.Add(uint8(1), "1", "offset=1&limit=9223372036854775807", "")
	f.Add(uint8(2), "1", "type=staging&offset=0&limit=2", "")
	f.Add(uint8(0), "acme", "first=100&after=a2V5OjE", "")
	f.Add(uint8(4), "", "startDate=2026-01-01&endDate=2026-13-40T99:00:00Z&search=%00&eventName=x", "")
	f.Add(uint8(4), "", "start=2026-01-01&end=2026-02-30T25:00:00%2B99:00&search=login", "")
	f.Add(uint8(4), "", "start=10000-01-01&end=-0001-12-31", "")
	f.Add(uint8(3), "9223372036854775808", "", "")
	f.Add(uint8(8), "sales-overview", "session=0123456789abcdef0123456789abcdef&locale=xx&timezone=Mars%2FOlympus", "")
	f.Add(uint8(12), "", "session=%ff", "")
	f.Add(uint8(15), "", "", `{"sessionId":"0123456789abcdef0123456789abcdef"}`)
	f.Add(uint8(18), "1", "", `{"name":"x","settings":{"a":[1e999]}}`)
	f.Add(uint8(18), "1", "", `{"creationMethod":"ftp","template":"single","releaseChannelVersion":"v1.4.2"}`)
	f.Add(uint8(22), "1", "", `{"format":"pdf","dashboardPublicId":"sales-overview","filters":[{"member":"a.b","values":[null]}]}`)
	f.Add(uint8(21), "1", "", `{"branchName":"","environment":{}}`)
	s, err := New(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, route uint8, param, query, body string) {
		method, path, _ := strings.Cut(fuzzedRoutes[int(route)%len(fuzzedRoutes)], " ")
		path = strings.Replace(path, "{}", url.PathEscape(param), 1)
		r, err := http.NewRequest(method, "http://platform.test"+path+"?"+query, strings.NewReader(body))
		if err != nil {
			return // not a request a client can send
		}
		r.Header.Set("Authorization", "Bearer ek_dev_only_admin_all")
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%s %s?%s with %q: %d %s", method, path, query, body, w.Code, w.Body.String())
		}
	})
}
