package oidcclaims_test

import (
	"strings"
	"testing"

	"github.com/embedkit/embedkit/adapters/oidcclaims"
	"github.com/embedkit/embedkit/embedkit"
)

// splitClaim splits a claim name at its unescaped dots, reading `\.` as a
// dot and `\\` as a backslash (the package documentation's rule, written
// again here); ok is false for a name the rule refuses.
func splitClaim(name string) (segs []string, ok bool) {
	var cur strings.Builder
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '\\':
			if i+1 == len(name) || (name[i+1] != '.' && name[i+1] != '\\') {
				return nil, false
			}
			cur.WriteByte(name[i+1])
			i++
		case '.':
			if cur.Len() == 0 {
				return nil, false
			}
			segs = append(segs, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() == 0 {
		return nil, false
	}
	return append(segs, cur.String()), true
}

// FuzzMappingValidate holds Mapping.Validate to its documentation, with
// claim names, an attribute name and type from the fuzzer: it accepts a
// mapping exactly when every claim name follows the dotted-path rule
// (`\.` a dot, `\\` a backslash, no empty segment), Subject is not Off and
// the attribute has a name, a claim and a known type; its error starts
// with "oidcclaims: mapping: ", and Viewer refuses the same mapping with
// the same error. A subject claim name it accepts is one Viewer finds:
// claims nested along its segments give that subject.
func FuzzMappingValidate(f *testing.F) {
	f.Add("sub", "email", "https://example.com/claims.tenant", "region", "attrs.region", "string")
	f.Add(`user\.id`, "-", "", "", "", "")
	f.Add(`a\\.b`, "", "org.tenant", "n", `x\.y.z`, "number_array")
	f.Add("-", "", "", "", "", "")
	f.Add("a..b", "", "", "", "", "")
	f.Add(`trailing\`, "", "", "", "", "")
	f.Add(`bad\escape`, "", "", "", "", "")
	f.Add("sub", "", "", "x", "", "string")
	f.Add("sub", "", "", "", "claim", "string")
	f.Add("sub", "", "", "x", "claim", "date")
	f.Add(".sub", "email.", "", "", "", "")
	f.Fuzz(func(t *testing.T, subject, email, tenant, attrName, attrClaim, attrType string) {
		m := oidcclaims.Mapping{Subject: subject, Email: email, Tenant: tenant}
		withAttr := attrName != "" || attrClaim != "" || attrType != ""
		if withAttr {
			m.Attributes = map[string]oidcclaims.Attribute{attrName: {Claim: attrClaim, Type: embedkit.AttributeType(attrType)}}
		}
		// Empty is the default claim (or, for Tenant, none); Off is none.
		valid := func(name string) bool {
			_, ok := splitClaim(name)
			return ok || name == "" || name == oidcclaims.Off
		}
		want := subject != oidcclaims.Off && valid(subject) && valid(email) && valid(tenant)
		if withAttr {
			switch embedkit.AttributeType(attrType) {
			case embedkit.AttributeString, embedkit.AttributeNumber, embedkit.AttributeBoolean,
				embedkit.AttributeStringArray, embedkit.AttributeNumberArray:
			default:
				want = false
			}
			if _, ok := splitClaim(attrClaim); attrName == "" || !ok {
				want = false
			}
		}
		err := m.Validate()
		if (err == nil) != want {
			t.Fatalf("Validate(%+v) = %v, want valid %v", m, err, want)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "oidcclaims: mapping: ") {
				t.Fatalf("Validate error %q does not start with the package and what it checks", err)
			}
			if _, verr := m.Viewer(map[string]any{"sub": "u"}); verr == nil || verr.Error() != err.Error() {
				t.Fatalf("Viewer of a mapping Validate refuses (%v) gave %v", err, verr)
			}
			return
		}

		// The subject alone, at the path its name gives.
		only := oidcclaims.Mapping{Subject: subject, ProviderSID: oidcclaims.Off, Email: oidcclaims.Off,
			DisplayName: oidcclaims.Off, Picture: oidcclaims.Off, Locale: oidcclaims.Off,
			TimeZone: oidcclaims.Off, Groups: oidcclaims.Off}
		name := subject
		if name == "" {
			name = oidcclaims.DefaultSubject
		}
		segs, _ := splitClaim(name)
		claims := map[string]any{}
		obj := claims
		for _, s := range segs[:len(segs)-1] {
			next := map[string]any{}
			obj[s] = next
			obj = next
		}
		obj[segs[len(segs)-1]] = "viewer-1"
		v, err := only.Viewer(claims)
		if err != nil || v.Subject != "viewer-1" {
			t.Fatalf("subject claim %q in %v: viewer %+v, %v", name, claims, v, err)
		}
	})
}
