package embedkit

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// valFuzzRequest builds a request from fuzzed parts. attrs and context are
// JSON; when they do not decode the field is left out.
func valFuzzRequest(id int64, externalID, internalID, email, tenant, picture, locale, timezone string,
	creator bool, groups, attrs, context string) *GenerateSessionRequest {
	r := &GenerateSessionRequest{
		DeploymentID:    id,
		ExternalID:      externalID,
		InternalID:      internalID,
		Email:           email,
		EmbedTenantName: tenant,
		CreatorMode:     &creator,
		Settings:        &EmbedSessionSettings{Locale: &locale, Timezone: &timezone},
	}
	if picture != "" {
		r.UserProfile = &EmbedUserProfile{Picture: picture}
	}
	if groups != "" {
		r.Groups = strings.Split(groups, ",")
		r.TenantGroups = r.Groups
	}
	var inputs []UserAttributeInput
	if json.Unmarshal([]byte(attrs), &inputs) == nil {
		r.UserAttributes = inputs
		for _, in := range inputs {
			r.UserAttributeDefinitions = append(r.UserAttributeDefinitions,
				UserAttributeDefinition{Name: in.Name, Type: AttributeType(in.Name)})
		}
	}
	var ctx map[string]any
	if json.Unmarshal([]byte(context), &ctx) == nil {
		r.SecurityContext = ctx
	}
	return r
}

// valFuzzCheck validates r twice and checks the invariants every request
// keeps: no panic, the same answer twice, no change to r, a well-formed
// *ValidationError, and a valid request encodes.
func valFuzzCheck(t *testing.T, r *GenerateSessionRequest, same *GenerateSessionRequest) {
	t.Helper()
	err1 := r.Validate()
	err2 := r.Validate()
	if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
		t.Fatalf("Validate is not deterministic: %v, then %v", err1, err2)
	}
	if same != nil && !reflect.DeepEqual(r, same) {
		t.Fatalf("Validate changed the request")
	}
	if err1 == nil {
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("valid request does not encode: %v", err)
		}
		return
	}
	var ve *ValidationError
	if !errors.As(err1, &ve) || !errors.Is(err1, ErrInvalidRequest) || len(ve.Problems) == 0 {
		t.Fatalf("error %v is not a *ValidationError with problems", err1)
	}
	for _, p := range ve.Problems {
		if p.Field == "" || p.Rule == "" {
			t.Fatalf("problem %+v lacks a field or rule", p)
		}
	}
}

func FuzzValidateGenerateSession(f *testing.F) {
	f.Add(int64(42), "User-42", "", "ada@acme.example.com", "acme-corp", "https://cdn.example.com/a.png", "de-DE",
		"Europe/Berlin", true, "sales,emea", `[{"name":"string","value":"emea"},{"name":"number","value":1.5}]`,
		`{"tenant":42,"regions":["emea"]}`, []byte(`{"deploymentId":1,"externalId":"u","settings":{"allowAi":false}}`))
	f.Add(int64(0), "", "ada", "x", "A", "javascript:alert(1)", "en_US", "", false, ",a,a",
		`[{"name":"number_array","value":[1,"a"]},{"name":"","value":{}}]`, `{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
		[]byte(`{"deploymentId":"1","settings":{"showDashboardHeader":false}}`))
	f.Add(int64(-1), " \t", "\x00", "\"a b\"@c", "ab", "//host", "", "\n", true, "x",
		`[{"name":"boolean","value":null},{"name":"string_array","value":[]}]`, `null`,
		[]byte(`{"deploymentId":1,"internalId":"a","groups":[],"securityContext":{}}`))
	f.Fuzz(func(t *testing.T, id int64, externalID, internalID, email, tenant, picture, locale, timezone string,
		creator bool, groups, attrs, context string, body []byte) {
		r := valFuzzRequest(id, externalID, internalID, email, tenant, picture, locale, timezone, creator, groups, attrs, context)
		same := valFuzzRequest(id, externalID, internalID, email, tenant, picture, locale, timezone, creator, groups, attrs, context)
		valFuzzCheck(t, r, same)
		if err := r.Validate(); err != nil {
			// Rules the platform does not have are never reported.
			var ve *ValidationError
			errors.As(err, &ve)
			for _, p := range ve.Problems {
				if strings.HasPrefix(p.Field, "groups[") && p.Rule != ruleRequired ||
					strings.HasPrefix(p.Field, "tenantGroups[") && p.Rule != ruleRequired ||
					p.Field == "email" && p.Rule == ruleEmail ||
					p.Field == "settings.timezone" && p.Rule == ruleNotEmpty ||
					strings.HasSuffix(p.Field, "Id") && strings.Contains(p.Rule, "at most") {
					t.Fatalf("reported a rule the platform does not have: %s: %s", p.Field, p.Rule)
				}
			}
		} else {
			if !IsTenantName(tenant) || NormalizeExternalID(externalID) == "" || internalID != "" {
				t.Fatalf("accepted a request with tenant %q, externalId %q, internalId %q", tenant, externalID, internalID)
			}
		}

		var decoded GenerateSessionRequest
		if json.Unmarshal(body, &decoded) == nil {
			valFuzzCheck(t, &decoded, nil)
		}
	})
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"1.7.20", "v1.7.20", "platform/runtime:v1.7.20", "registry.example.com:5000/org/img:v1.2.3-rc.1+b.5",
		"localhost:5000/img", "1.7", "01.2.3", "v", ":v1.0.0", "a:b:v1.0.0", "1.0.0-0A.is.legal+001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		v2, err2 := ParseVersion(s)
		if v != v2 || (err == nil) != (err2 == nil) {
			t.Fatalf("ParseVersion(%q) is not deterministic", s)
		}
		if err != nil {
			if v != "" || !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("ParseVersion(%q) = %q, %v", s, v, err)
			}
			return
		}
		if !semverPattern.MatchString(v) || !strings.HasSuffix(s, v) || strings.HasPrefix(v, "v") {
			t.Fatalf("ParseVersion(%q) = %q, not the bare version at its end", s, v)
		}
		for _, spelling := range []string{v, "v" + v, "org/image:v" + v} {
			if len(spelling) > maxVersionLength {
				// A longer spelling of an accepted version may pass the
				// length bound; that is the bound working.
				continue
			}
			if again, err := ParseVersion(spelling); err != nil || again != v {
				t.Fatalf("ParseVersion(%q) = %q, %v; want %q", spelling, again, err, v)
			}
		}
		if strings.Contains(s, ":") {
			repo := s[:strings.LastIndexByte(s, ':')]
			if !imageRepoPattern.MatchString(repo) {
				t.Fatalf("ParseVersion(%q) accepted repository %q", s, repo)
			}
		}
		if err := (&UpdateDeploymentRequest{ReleaseChannelVersion: s}).Validate(); err != nil {
			t.Fatalf("Validate refused a version ParseVersion accepts: %v", err)
		}
	})
}

func FuzzSettingsJSON(f *testing.F) {
	for _, s := range []string{
		`{"allowAi":false,"locale":"de-DE","timezone":"Europe/Berlin"}`,
		`{"allowAi":null}`, `null`, `{}`, `{"showHeader":true}`, `{"showDashboardHeader":false}`,
		`{"allowAi":"yes"}`, `{"locale":1}`, `[]`, `{"allowAi":true,"allowAi":false}`, `{"AllowAI":true}`,
		`{"locale":"\ud800"}`, `{} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var direct EmbedSessionSettings
		directErr := direct.UnmarshalJSON(data)

		var s EmbedSessionSettings
		err := json.Unmarshal(data, &s)
		if err != nil {
			var synErr *json.SyntaxError
			if !errors.Is(err, ErrInvalidRequest) && !errors.As(err, &synErr) {
				t.Fatalf("Unmarshal(%q) = %v: neither invalid request nor syntax error", data, err)
			}
			return
		}
		if directErr != nil {
			t.Fatalf("json.Unmarshal accepts %q but UnmarshalJSON says %v", data, directErr)
		}
		if !reflect.DeepEqual(s, direct) {
			t.Fatalf("json.Unmarshal and UnmarshalJSON disagree on %q", data)
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		var back EmbedSessionSettings
		if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(s, back) {
			t.Fatalf("round trip of %q through %s: %+v, %v", data, out, back, err)
		}
		var m map[string]any
		if json.Unmarshal(data, &m) == nil {
			parsed, err := ParseSettings(m)
			if err != nil {
				t.Fatalf("ParseSettings refuses what UnmarshalJSON accepts (%q): %v", data, err)
			}
			if !reflect.DeepEqual(parsed, &s) {
				t.Fatalf("ParseSettings and UnmarshalJSON disagree on %q", data)
			}
		}
	})
}
