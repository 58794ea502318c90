package oidcclaims_test

import (
	"encoding/json"
	"testing"

	"github.com/embedkit/embedkit/adapters/oidcclaims"
	"github.com/embedkit/embedkit/embedkit"
)

// fuzzMapping maps every field, nested paths and every attribute type.
var fuzzMapping = oidcclaims.Mapping{
	Tenant:      "https://example.com/claims.tenant",
	CreatorMode: "creator",
	Groups:      "realm_access.roles",
	Attributes: map[string]oidcclaims.Attribute{
		"s":  {Claim: "attrs.s", Type: embedkit.AttributeString},
		"n":  {Claim: "attrs.n", Type: embedkit.AttributeNumber},
		"b":  {Claim: "attrs.b", Type: embedkit.AttributeBoolean},
		"sa": {Claim: "attrs.sa", Type: embedkit.AttributeStringArray},
		"na": {Claim: `attrs.n\.a`, Type: embedkit.AttributeNumberArray},
	},
}

// FuzzMapClaims checks that any JSON object of claims gives a Viewer with a
// subject or an error, never a panic.
func FuzzMapClaims(f *testing.F) {
	f.Add([]byte(`{"sub":"u1","email":"a@example.com","groups":["a","b"]}`))
	f.Add([]byte(`{"sub":"u1","realm_access":{"roles":"a,b c"},"creator":true}`))
	f.Add([]byte(`{"sub":"u1","attrs":{"s":"x","n":1.5,"b":false,"sa":["x"],"n.a":[1,2]}}`))
	f.Add([]byte(`{"sub":"u1","https://example.com/claims":{"tenant":"acme"},"iat":1,"nonce":"n"}`))
	f.Add([]byte(`{"sub":7,"groups":{"a":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var claims map[string]any
		if err := json.Unmarshal(data, &claims); err != nil || claims == nil {
			return
		}
		for _, m := range []oidcclaims.Mapping{{}, fuzzMapping} {
			v, err := m.Viewer(claims)
			if (v == nil) == (err == nil) {
				t.Fatalf("Viewer = %v, %v: want exactly one of viewer and error", v, err)
			}
			if v != nil && v.Subject == "" {
				t.Fatalf("viewer without subject: %+v", v)
			}
		}
	})
}
