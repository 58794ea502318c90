package emulator

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// BenchmarkEmulatorGenerateSession measures one generate-session through
// ServeHTTP (no network), on an empty account and with 100,000 sessions
// and 10,000 external users in memory.
func BenchmarkEmulatorGenerateSession(b *testing.B) {
	body := `{"deploymentId":1,"externalId":"bench-user","groups":["sales","emea"],"userAttributes":[{"name":"region","value":"EMEA"}],"securityContext":{"tenant":7},"settings":{"allowAi":false}}`
	run := func(b *testing.B, s *Server) {
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			req := httptest.NewRequest("POST", "/api/v1/embed/generate-session", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer ek_admin_all")
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}
	}
	newServer := func(b *testing.B) *Server {
		s, err := New(mustFixture(b, testFixture), WithClock(func() time.Time { return testEpoch }))
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	b.Run("empty", func(b *testing.B) { run(b, newServer(b)) })
	b.Run("100k-sessions", func(b *testing.B) {
		s := newServer(b)
		for i := range 100_000 {
			ext := fmt.Sprintf("preload-%d", i%9_999)
			req := httptest.NewRequest("POST", "/api/v1/embed/generate-session", strings.NewReader(`{"deploymentId":1,"externalId":"`+ext+`"}`))
			req.Header.Set("Authorization", "Bearer ek_admin_all")
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("preload %d: %d %s", i, rec.Code, rec.Body)
			}
		}
		run(b, s)
	})
}
