package oidcclaims

import "testing"

// FuzzParseKeySet reads any document as the identity provider's JWK Set
// (it comes over the network): no input panics, and every key kept is a
// valid public signing key (RFC 7517 section 5: unreadable, symmetric and
// encryption keys are skipped).
func FuzzParseKeySet(f *testing.F) {
	for _, s := range []string{
		`{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","use":"sig","kid":"1"}]}`,
		`{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`,
		`{"keys":[{"kty":"RSA","n":"","e":"AQAB"}]}`,
		`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","use":"enc"}]}`,
		`{"keys":[null,1,"x",{}]}`,
		`{"keys":null}`, `{}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		keys, err := parseKeySet(body)
		if err != nil {
			if keys != nil {
				t.Fatalf("parseKeySet(%q) returned keys with its error %v", body, err)
			}
			return
		}
		for _, k := range keys {
			if !k.Valid() || !k.IsPublic() || (k.Use != "" && k.Use != "sig") {
				t.Fatalf("parseKeySet(%q) kept %+v: want only valid public signing keys", body, k)
			}
		}
	})
}
