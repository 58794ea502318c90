package emulator

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func FuzzLoadFixture(f *testing.F) {
	f.Add([]byte(testFixture))
	f.Add(demoFixtureJSON)
	f.Add([]byte(`{"tenant":"acme"}`))
	f.Add([]byte(`{"tenant":"acme","predatesSessionRenewal":true,"sessionExpiringLead":"1h30m"}`))
	f.Add([]byte(`{"tenant":"acme","deployments":[{"id":1,"name":"x","createdAt":"2026-01-01T00:00:00Z","branches":[{"id":1,"name":"m","kind":"production"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fx, err := LoadFixture(bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "emulator: ") {
				t.Fatalf("error without package prefix: %v", err)
			}
			return
		}
		// What New does with a fixture, without building the router.
		if err := fx.validate(); err != nil {
			t.Fatalf("a loaded fixture fails validation: %v", err)
		}
		st := newState(fx.clone(), testEpoch)
		if len(st.deployments) != len(fx.Deployments) || len(st.keys) != len(fx.APIKeys) {
			t.Fatalf("state holds %d deployments and %d keys of %d and %d", len(st.deployments), len(st.keys), len(fx.Deployments), len(fx.APIKeys))
		}
	})
}

func FuzzGenerateSessionBody(f *testing.F) {
	for _, s := range []string{
		`{"deploymentId":1,"externalId":"u"}`,
		`{"deploymentId":1,"externalId":"u","groups":["sales"],"userAttributes":[{"name":"quota","value":[1,2]}]}`,
		`{"deploymentId":1,"internalId":"admin","settings":{"allowAi":false}}`,
		`{"deploymentId":1,"externalId":"c","creatorMode":true,"embedTenantName":"globex","tenantGroups":["g1"],"tenantGroupDefinitions":[{"name":"g1"}],"userAttributeDefinitions":[{"name":"tier","type":"number"}]}`,
		`{"deploymentId":1e400}`,
		`{"deploymentId":1,"externalId":"u","securityContext":{"a":{"b":[null,1,"x"]}},"branchName":"dev-dana"}`,
		`null`, ``, `[]`, `{"deploymentId":-1}`,
	} {
		f.Add(s)
	}
	s, err := New(mustFixture(f, testFixture), WithClock(func() time.Time { return testEpoch }))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest("POST", "/api/v1/embed/generate-session", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer ek_admin_all")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
		if rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("Content-Type %q", rec.Header().Get("Content-Type"))
		}
	})
}
