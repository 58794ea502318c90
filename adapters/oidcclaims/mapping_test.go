package oidcclaims_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/embedkit/embedkit/adapters/oidcclaims"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// claimsOf decodes a JSON object the way json.Unmarshal does for
// oidc.IDToken.Claims.
func claimsOf(t *testing.T, js string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatalf("claims %s: %v", js, err)
	}
	return m
}

func TestMappingViewer(t *testing.T) {
	full := oidcclaims.Mapping{
		Tenant:      "https://example.com/claims.tenant",
		CreatorMode: "creator",
		Groups:      "realm_access.roles",
		Attributes: map[string]oidcclaims.Attribute{
			"region":   {Claim: "region", Type: embedkit.AttributeString},
			"level":    {Claim: "level", Type: embedkit.AttributeNumber},
			"beta":     {Claim: "flags.beta", Type: embedkit.AttributeBoolean},
			"accounts": {Claim: "accounts", Type: embedkit.AttributeStringArray},
			"limits":   {Claim: "limits", Type: embedkit.AttributeNumberArray},
		},
	}
	tests := []struct {
		name    string
		mapping oidcclaims.Mapping
		claims  string
		want    *middleware.Viewer
		wantErr string
	}{
		{
			name:    "defaults",
			mapping: oidcclaims.Mapping{},
			claims: `{"sub":"u1","sid":"s1","email":"a@example.com","name":"Ann","picture":"https://img.example.com/a.png",
				"locale":"de-DE","zoneinfo":"Europe/Berlin","groups":["sales","eu"]}`,
			want: &middleware.Viewer{Subject: "u1", ProviderSID: "s1", Email: "a@example.com", DisplayName: "Ann",
				Picture: "https://img.example.com/a.png", Locale: "de-DE", TimeZone: "Europe/Berlin", Groups: []string{"sales", "eu"}},
		},
		// A picture the platform would refuse is left out, by embedkit's
		// rule (embedkit.IsPictureURL), as the Policy does; it does not
		// fail the sign-in.
		{name: "picture not http", mapping: oidcclaims.Mapping{}, claims: `{"sub":"u1","picture":"javascript:alert(1)"}`,
			want: &middleware.Viewer{Subject: "u1"}},
		{name: "picture relative", mapping: oidcclaims.Mapping{}, claims: `{"sub":"u1","picture":"/a.png"}`,
			want: &middleware.Viewer{Subject: "u1"}},
		{name: "picture with a port and no host", mapping: oidcclaims.Mapping{}, claims: `{"sub":"u1","picture":"http://:80/a.png"}`,
			want: &middleware.Viewer{Subject: "u1"}},
		{
			name:    "subject only",
			mapping: oidcclaims.Mapping{},
			claims:  `{"sub":"u1"}`,
			want:    &middleware.Viewer{Subject: "u1"},
		},
		{
			name:    "null claims count as absent",
			mapping: oidcclaims.Mapping{},
			claims:  `{"sub":"u1","email":null,"groups":null,"sid":null}`,
			want:    &middleware.Viewer{Subject: "u1"},
		},
		{
			name:    "every field, nested and namespaced claims",
			mapping: full,
			claims: `{"sub":"u1","sid":"s1","https://example.com/claims":{"tenant":"acme"},"creator":true,
				"realm_access":{"roles":["admin","viewer"]},"region":"eu","level":3,"flags":{"beta":false},
				"accounts":["a1","a2"],"limits":[1,2.5]}`,
			want: &middleware.Viewer{Subject: "u1", ProviderSID: "s1", Tenant: "acme", CreatorMode: true,
				Groups: []string{"admin", "viewer"},
				Attributes: map[string]any{"region": "eu", "level": 3.0, "beta": false,
					"accounts": []string{"a1", "a2"}, "limits": []float64{1, 2.5}}},
		},
		{
			name:    "literal top-level name with dots wins",
			mapping: oidcclaims.Mapping{Tenant: "https://example.com/tenant"},
			claims:  `{"sub":"u1","https://example.com/tenant":"acme"}`,
			want:    &middleware.Viewer{Subject: "u1", Tenant: "acme"},
		},
		{
			name:    "escaped dot inside a segment",
			mapping: oidcclaims.Mapping{Tenant: `ext.org\.example.tenant`},
			claims:  `{"sub":"u1","ext":{"org.example":{"tenant":"acme"}}}`,
			want:    &middleware.Viewer{Subject: "u1", Tenant: "acme"},
		},
		{
			name:    "longest existing key wins at each level",
			mapping: oidcclaims.Mapping{Tenant: "a.b.c"},
			claims:  `{"sub":"u1","a.b":{"c":"long"},"a":{"b":{"c":"short"}}}`,
			want:    &middleware.Viewer{Subject: "u1", Tenant: "long"},
		},
		{
			name:    "plain nesting",
			mapping: oidcclaims.Mapping{Tenant: "a.b.c"},
			claims:  `{"sub":"u1","a":{"b":{"c":"deep"}}}`,
			want:    &middleware.Viewer{Subject: "u1", Tenant: "deep"},
		},
		{
			name:    "escaped dot is never a level",
			mapping: oidcclaims.Mapping{Tenant: `a\.b`},
			claims:  `{"sub":"u1","a":{"b":"nested"}}`,
			want:    &middleware.Viewer{Subject: "u1"},
		},
		{
			name:    "escaped backslash",
			mapping: oidcclaims.Mapping{Tenant: `dom\\user`},
			claims:  `{"sub":"u1","dom\\user":"acme"}`,
			want:    &middleware.Viewer{Subject: "u1", Tenant: "acme"},
		},
		{
			name:    "groups as space separated string",
			mapping: oidcclaims.Mapping{},
			claims:  `{"sub":"u1","groups":"sales  eu sales"}`,
			want:    &middleware.Viewer{Subject: "u1", Groups: []string{"sales", "eu"}},
		},
		{
			name:    "groups as comma separated string",
			mapping: oidcclaims.Mapping{},
			claims:  `{"sub":"u1","groups":"sales, eu,,ops"}`,
			want:    &middleware.Viewer{Subject: "u1", Groups: []string{"sales", "eu", "ops"}},
		},
		{
			name:    "empty groups array",
			mapping: oidcclaims.Mapping{},
			claims:  `{"sub":"u1","groups":[]}`,
			want:    &middleware.Viewer{Subject: "u1", Groups: []string{}},
		},
		{
			name:    "field turned off",
			mapping: oidcclaims.Mapping{Email: oidcclaims.Off, Groups: oidcclaims.Off},
			claims:  `{"sub":"u1","email":42,"groups":7}`,
			want:    &middleware.Viewer{Subject: "u1"},
		},
		{
			name:    "custom subject claim",
			mapping: oidcclaims.Mapping{Subject: "oid"},
			claims:  `{"sub":"pairwise","oid":"u1"}`,
			want:    &middleware.Viewer{Subject: "u1"},
		},
		{
			name:    "missing optional attribute",
			mapping: full,
			claims:  `{"sub":"u1"}`,
			want:    &middleware.Viewer{Subject: "u1"},
		},
		{name: "missing subject", mapping: oidcclaims.Mapping{}, claims: `{"email":"a@example.com"}`,
			wantErr: `oidcclaims: claim "sub": missing; the subject is required`},
		{name: "empty subject", mapping: oidcclaims.Mapping{}, claims: `{"sub":""}`,
			wantErr: `oidcclaims: claim "sub": missing`},
		{name: "subject of wrong type", mapping: oidcclaims.Mapping{}, claims: `{"sub":12}`,
			wantErr: `oidcclaims: claim "sub": want string, got number`},
		{name: "groups a number", mapping: oidcclaims.Mapping{}, claims: `{"sub":"u1","groups":5}`,
			wantErr: `oidcclaims: claim "groups": want array of strings or string, got number`},
		{name: "groups with a number inside", mapping: oidcclaims.Mapping{}, claims: `{"sub":"u1","groups":["a",1]}`,
			wantErr: `oidcclaims: claim "groups": want array of strings or string, got array with number at index 1`},
		{name: "email an object", mapping: oidcclaims.Mapping{}, claims: `{"sub":"u1","email":{}}`,
			wantErr: `oidcclaims: claim "email": want string, got object`},
		{name: "picture of a wrong type", mapping: oidcclaims.Mapping{}, claims: `{"sub":"u1","picture":5}`,
			wantErr: `oidcclaims: claim "picture": want string, got number`},
		{name: "creator mode as string", mapping: full, claims: `{"sub":"u1","creator":"true"}`,
			wantErr: `oidcclaims: claim "creator": want boolean, got string`},
		{name: "number attribute as numeric string", mapping: full, claims: `{"sub":"u1","level":"3"}`,
			wantErr: `oidcclaims: claim "level": want number, got string`},
		{name: "boolean attribute as number", mapping: full, claims: `{"sub":"u1","flags":{"beta":1}}`,
			wantErr: `oidcclaims: claim "flags.beta": want boolean, got number`},
		{name: "string attribute as array", mapping: full, claims: `{"sub":"u1","region":["eu"]}`,
			wantErr: `oidcclaims: claim "region": want string, got array`},
		{name: "string array with a bool", mapping: full, claims: `{"sub":"u1","accounts":["a",true]}`,
			wantErr: `oidcclaims: claim "accounts": want array of strings, got array with boolean at index 1`},
		{name: "number array as string", mapping: full, claims: `{"sub":"u1","limits":"1,2"}`,
			wantErr: `oidcclaims: claim "limits": want array of numbers, got string`},
		{name: "number array with a string", mapping: full, claims: `{"sub":"u1","limits":[1,"2"]}`,
			wantErr: `oidcclaims: claim "limits": want array of numbers, got array with string at index 1`},
		{name: "nested path through a string", mapping: full, claims: `{"sub":"u1","realm_access":"admin"}`,
			wantErr: `oidcclaims: claim "realm_access.roles": "realm_access": want object, got string`},
		{name: "session claim of wrong type", mapping: oidcclaims.Mapping{}, claims: `{"sub":"u1","sid":7}`,
			wantErr: `oidcclaims: claim "sid": want string, got number`},
		{name: "bad claim name", mapping: oidcclaims.Mapping{Tenant: "a..b"}, claims: `{"sub":"u1"}`,
			wantErr: `oidcclaims: mapping: claim name "a..b": empty path segment`},
		{name: "bad escape", mapping: oidcclaims.Mapping{Tenant: `a\b`}, claims: `{"sub":"u1"}`,
			wantErr: `oidcclaims: mapping: claim name "a\\b": unknown escape \b`},
		{name: "unknown attribute type", mapping: oidcclaims.Mapping{Attributes: map[string]oidcclaims.Attribute{
			"x": {Claim: "x", Type: "date"}}}, claims: `{"sub":"u1"}`,
			wantErr: `oidcclaims: mapping: attribute "x": unknown type "date"`},
		{name: "subject turned off", mapping: oidcclaims.Mapping{Subject: oidcclaims.Off}, claims: `{"sub":"u1"}`,
			wantErr: `oidcclaims: mapping: Subject cannot be turned off`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.mapping.Viewer(claimsOf(t, tt.claims))
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Viewer = %+v, want error %q", got, tt.wantErr)
				}
				if !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error = %q, want prefix %q", err, tt.wantErr)
				}
				if got != nil {
					t.Errorf("Viewer returned %+v with an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Viewer: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Viewer =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

func TestMappingSessionKeyFallback(t *testing.T) {
	m := oidcclaims.Mapping{}
	key := func(js string) string {
		t.Helper()
		v, err := m.Viewer(claimsOf(t, js))
		if err != nil {
			t.Fatalf("Viewer(%s): %v", js, err)
		}
		return v.SessionKey
	}
	a := key(`{"sub":"u1","iat":1700000000,"nonce":"n1"}`)
	tests := []struct {
		name   string
		claims string
		same   bool
	}{
		{"same login", `{"sub":"u1","iat":1700000000,"nonce":"n1","email":"x@example.com"}`, true},
		{"another nonce", `{"sub":"u1","iat":1700000000,"nonce":"n2"}`, false},
		{"another iat", `{"sub":"u1","iat":1700000001,"nonce":"n1"}`, false},
		{"another subject", `{"sub":"u2","iat":1700000000,"nonce":"n1"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := key(tt.claims); (got == a) != tt.same {
				t.Errorf("key %q vs %q: same = %v, want %v", got, a, got == a, tt.same)
			}
		})
	}
	if a == "" || strings.Contains(a, "n1") || strings.Contains(a, "u1") {
		t.Errorf("fallback key %q should be a non-empty hash", a)
	}
	if got := key(`{"sub":"u1"}`); got != "" {
		t.Errorf("no sid, iat or nonce: key = %q, want empty (subject-wide)", got)
	}
	// The provider's sid is kept beside the key, never as it: a new
	// login in the same provider session (a sign-out at the host alone,
	// then a sign-in) gets a key of its own.
	first, err := m.Viewer(claimsOf(t, `{"sub":"u1","sid":"s1","iat":1700000000,"nonce":"n1"}`))
	if err != nil {
		t.Fatal(err)
	}
	again, err := m.Viewer(claimsOf(t, `{"sub":"u1","sid":"s1","iat":1700000060,"nonce":"n3"}`))
	if err != nil {
		t.Fatal(err)
	}
	if first.ProviderSID != "s1" || again.ProviderSID != "s1" {
		t.Errorf("ProviderSID %q, %q; want s1", first.ProviderSID, again.ProviderSID)
	}
	if first.SessionKey == "" || first.SessionKey == "s1" || first.SessionKey == again.SessionKey {
		t.Errorf("keys %q and %q of two logins in provider session s1: want two keys of their own, neither the sid", first.SessionKey, again.SessionKey)
	}
	if first.SessionKey == a {
		t.Error("a login with a sid has the key of one without")
	}
	if got := key(`{"sub":"u1","sid":"s1"}`); got != "" {
		t.Errorf("sid but no iat or nonce: key = %q, want empty (the Identity's own random key)", got)
	}
	named := oidcclaims.Mapping{SessionKey: "login_id"}
	if v, err := named.Viewer(claimsOf(t, `{"sub":"u1","sid":"s1","login_id":"L9","iat":1}`)); err != nil || v.SessionKey != "L9" || v.ProviderSID != "s1" {
		t.Errorf("named SessionKey claim: %+v, %v; want key L9 beside sid s1", v, err)
	}
	if _, err := m.Viewer(claimsOf(t, `{"sub":"u1","iat":"yesterday"}`)); err == nil || !strings.Contains(err.Error(), `claim "iat"`) {
		t.Errorf("iat of wrong type: err = %v, want one naming iat", err)
	}
}

func TestFromIDToken(t *testing.T) {
	clock := newFakeClock()
	iss, verifier := newTestIssuer(t, clock)
	now := clock.Now()
	raw := iss.sign(iss.key, "JWT", map[string]any{
		"iss": iss.URL, "aud": testClientID, "sub": "u1", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"nonce": "n1", "email": "a@example.com", "groups": []string{"sales"},
		"level": 12345678901234, "org": map[string]any{"id": "acme"},
	})
	tok, err := verifier.Verify(t.Context(), raw)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	m := oidcclaims.Mapping{
		Tenant:     "org.id",
		Attributes: map[string]oidcclaims.Attribute{"level": {Claim: "level", Type: embedkit.AttributeNumber}},
	}
	v, err := m.FromIDToken(tok)
	if err != nil {
		t.Fatalf("FromIDToken: %v", err)
	}
	if v.Subject != "u1" || v.Email != "a@example.com" || v.Tenant != "acme" || !reflect.DeepEqual(v.Groups, []string{"sales"}) {
		t.Errorf("viewer = %+v", v)
	}
	if v.Attributes["level"] != 12345678901234.0 {
		t.Errorf("level = %v (%T), want 12345678901234", v.Attributes["level"], v.Attributes["level"])
	}
	want, err := m.Viewer(map[string]any{"sub": "u1", "iat": float64(now.Unix()), "nonce": "n1"})
	if err != nil {
		t.Fatal(err)
	}
	if v.SessionKey == "" || v.SessionKey != want.SessionKey {
		t.Errorf("session key %q, want %q (same for decoded and map claims)", v.SessionKey, want.SessionKey)
	}
	if _, err := m.FromIDToken(nil); err == nil {
		t.Error("FromIDToken(nil): no error")
	}
	if _, err := m.FromIDToken(&oidc.IDToken{}); err == nil || !strings.HasPrefix(err.Error(), "oidcclaims: ") {
		t.Errorf("FromIDToken without claims: err = %v", err)
	}
}

func TestFromUserInfo(t *testing.T) {
	clock := newFakeClock()
	iss, _ := newTestIssuer(t, clock)
	m := oidcclaims.Mapping{Groups: "roles"}
	tests := []struct {
		name    string
		body    string
		want    *middleware.Viewer
		wantErr string
	}{
		{"profile", `{"sub":"u1","email":"a@example.com","name":"Ann","roles":"a b"}`,
			&middleware.Viewer{Subject: "u1", Email: "a@example.com", DisplayName: "Ann", Groups: []string{"a", "b"}}, ""},
		{"wrong type", `{"sub":"u1","roles":5}`, nil, `oidcclaims: claim "roles": want array of strings or string, got number`},
		{"no subject", `{"email":"a@example.com"}`, nil, `oidcclaims: claim "sub": missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := iss.fetchUserInfo(t, tt.body)
			got, err := m.FromUserInfo(u)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("viewer = %+v, want %+v", got, tt.want)
			}
		})
	}
	t.Run("nil", func(t *testing.T) {
		if _, err := m.FromUserInfo(nil); err == nil {
			t.Error("FromUserInfo(nil): no error")
		}
	})
	t.Run("without raw claims", func(t *testing.T) {
		if _, err := m.FromUserInfo(&oidc.UserInfo{Subject: "u1"}); err == nil {
			t.Error("no error")
		}
	})
}

func TestMappingValidate(t *testing.T) {
	tests := []struct {
		name    string
		mapping oidcclaims.Mapping
		wantErr bool
	}{
		{"zero", oidcclaims.Mapping{}, false},
		{"escaped names", oidcclaims.Mapping{Groups: `a\.b.c`, Tenant: `x\\y`}, false},
		{"trailing backslash", oidcclaims.Mapping{Groups: `a\`}, true},
		{"leading dot", oidcclaims.Mapping{Groups: ".a"}, true},
		{"trailing dot", oidcclaims.Mapping{Groups: "a."}, true},
		{"attribute without claim", oidcclaims.Mapping{Attributes: map[string]oidcclaims.Attribute{"a": {Type: embedkit.AttributeString}}}, true},
		{"attribute without name", oidcclaims.Mapping{Attributes: map[string]oidcclaims.Attribute{"": {Claim: "a", Type: embedkit.AttributeString}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.mapping.Validate()
			if (err != nil) != tt.wantErr {
				t.Fatalf("Validate() = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "oidcclaims: mapping: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}
