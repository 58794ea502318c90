package embedkit

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// valFullRequest is a creator-mode request with every field set, valid.
func valFullRequest() *GenerateSessionRequest {
	return &GenerateSessionRequest{
		DeploymentID: 42,
		ExternalID:   "user-42",
		Email:        "ada.lovelace@acme.example.com",
		UserProfile: &EmbedUserProfile{
			DisplayName: "Ada Lovelace",
			Picture:     "https://cdn.acme.example.com/avatars/42.png",
		},
		EmbedTenantName:    "acme-corp",
		EmbedTenantProfile: &EmbedTenantProfile{DisplayName: new("Acme Corp")},
		CreatorMode:        new(true),
		Groups:             []string{"sales", "emea"},
		TenantGroups:       []string{"analysts", "managers"},
		TenantGroupDefinitions: []GroupDefinition{
			{Name: "analysts", Description: new("Build reports")},
			{Name: "managers"},
		},
		GroupDefinitions: []GroupDefinition{{Name: "legacy"}},
		UserAttributes: []UserAttributeInput{
			{Name: "region", Value: "emea"},
			{Name: "quota", Value: 125000},
			{Name: "active", Value: true},
			{Name: "territories", Value: []string{"de", "fr"}},
			{Name: "targets", Value: []any{1.5, 2}},
			{Name: "manager", Value: nil},
		},
		UserAttributeDefinitions: []UserAttributeDefinition{
			{Name: "region", Type: AttributeString, DisplayName: "Region"},
			{Name: "quota", Type: AttributeNumber, DefaultValue: "0"},
			{Name: "active", Type: AttributeBoolean},
			{Name: "territories", Type: AttributeStringArray, Description: "Sales territories"},
			{Name: "targets", Type: AttributeNumberArray},
		},
		SecurityContext: map[string]any{
			"tenant_id": 42,
			"regions":   []any{"emea", "apac"},
			"flags":     map[string]any{"beta": true, "ratio": 0.5},
		},
		Settings: &EmbedSessionSettings{
			AllowAI:                     new(true),
			ShowDashboardChat:           new(true),
			ShowWorkbookChat:            new(false),
			ShowAIWidgets:               new(true),
			AllowChatWorkspaceAuthoring: new(false),
			ShowWorkbookShare:           new(false),
			ShowDashboardSettings:       new(true),
			ShowMemberNames:             new(false),
			ShowGroupByCube:             new(true),
			Locale:                      new("de-DE"),
			Timezone:                    new("Europe/Berlin"),
		},
		EmbedTheme: &EmbedTheme{
			PrimaryColor: "#0f62fe",
			Font:         "Inter, sans-serif",
			Chat:         &EmbedThemeChat{InputColor: "#ffffff"},
			AnalyticsChat: &EmbedThemeAnalyticsChat{
				BackgroundColor: "rgb(244, 244, 244)",
				ChatInput:       &EmbedThemeChatInput{BackgroundColor: "white", BorderColor: "#c6c6c6"},
			},
		},
		IsEphemeral:       new(false),
		PublicDashboardID: "d8f1c2",
		Roles:             []string{"viewer"},
		BranchName:        "feature/q3-targets",
	}
}

// valInternalRequest is a minimal valid request for an internal user.
func valInternalRequest() *GenerateSessionRequest {
	return &GenerateSessionRequest{DeploymentID: 7, InternalID: "ada@acme.example.com"}
}

type jsonRegion string

func (jsonRegion) MarshalJSON() ([]byte, error) { return []byte(`{"x":1}`), nil }

func TestGenerateSessionRequestValidate(t *testing.T) {
	long := strings.Repeat("é", 1000)
	deep := map[string]any{}
	for range MaxSecurityContextDepth - 1 {
		deep = map[string]any{"n": deep}
	}
	tooDeep := map[string]any{"n": deep}
	cyclic := map[string]any{}
	cyclic["self"] = cyclic

	tests := []struct {
		name string
		base func() *GenerateSessionRequest // nil means valFullRequest
		edit func(r *GenerateSessionRequest)
		want []FieldError
	}{
		{name: "full creator-mode request", edit: func(*GenerateSessionRequest) {}},
		{name: "internal user", base: valInternalRequest, edit: func(*GenerateSessionRequest) {}},
		{name: "nil request", base: func() *GenerateSessionRequest { return nil }, edit: func(*GenerateSessionRequest) {},
			want: []FieldError{fe("deploymentId", "is required"), fe("externalId", "give exactly one of externalId or internalId")}},

		// deploymentId
		{name: "deploymentId missing", edit: func(r *GenerateSessionRequest) { r.DeploymentID = 0 },
			want: []FieldError{fe("deploymentId", "is required")}},
		{name: "deploymentId negative", edit: func(r *GenerateSessionRequest) { r.DeploymentID = -3 },
			want: []FieldError{fe("deploymentId", "must be positive")}},

		// externalId and internalId
		{name: "neither id", edit: func(r *GenerateSessionRequest) { r.ExternalID = ""; r.Email = "" },
			want: []FieldError{fe("externalId", "give exactly one of externalId or internalId")}},
		{name: "both ids", base: valInternalRequest, edit: func(r *GenerateSessionRequest) { r.ExternalID = "user-1" },
			want: []FieldError{fe("externalId", "give exactly one of externalId or internalId")}},
		{name: "externalId normalised before checks", edit: func(r *GenerateSessionRequest) { r.ExternalID = "\r\n User-42\t" }},
		{name: "externalId blank", edit: func(r *GenerateSessionRequest) { r.ExternalID = " \t\r\n" },
			want: []FieldError{fe("externalId", "must not be blank")}},
		{name: "externalId with non-ASCII white space at an end", edit: func(r *GenerateSessionRequest) { r.ExternalID = "\u3000 user-42\t" },
			want: []FieldError{fe("externalId", ruleCaseFold)}},
		{name: "externalId with the Kelvin sign", edit: func(r *GenerateSessionRequest) { r.ExternalID = "\u212aate" },
			want: []FieldError{fe("externalId", ruleCaseFold)}},
		{name: "externalId control character", edit: func(r *GenerateSessionRequest) { r.ExternalID = "user\x00-42" },
			want: []FieldError{fe("externalId", "must not contain control characters")}},
		{name: "externalId C1 control character", edit: func(r *GenerateSessionRequest) { r.ExternalID = "user\u0085x" },
			want: []FieldError{fe("externalId", "must not contain control characters")}},
		{name: "externalId invalid UTF-8", edit: func(r *GenerateSessionRequest) { r.ExternalID = "user\xff" },
			want: []FieldError{fe("externalId", "must be valid UTF-8")}},
		// The platform states no length limit for ids (the client had one of
		// 256 characters).
		{name: "externalId long", edit: func(r *GenerateSessionRequest) { r.ExternalID = long }},
		{name: "internalId blank", base: valInternalRequest, edit: func(r *GenerateSessionRequest) { r.InternalID = "  " },
			want: []FieldError{fe("internalId", "must not be blank")}},
		{name: "internalId control character", base: valInternalRequest, edit: func(r *GenerateSessionRequest) { r.InternalID = "ada\n" },
			want: []FieldError{fe("internalId", "must not contain control characters")}},
		{name: "internalId long", base: valInternalRequest, edit: func(r *GenerateSessionRequest) { r.InternalID = long }},
		{name: "internalId forbids viewer fields", base: valInternalRequest, edit: func(r *GenerateSessionRequest) {
			r.UserProfile = &EmbedUserProfile{}
			r.CreatorMode = new(true)
			r.Groups = []string{}
			r.GroupDefinitions = []GroupDefinition{}
			r.UserAttributes = []UserAttributeInput{}
			r.UserAttributeDefinitions = []UserAttributeDefinition{}
			r.SecurityContext = map[string]any{}
		}, want: []FieldError{
			fe("userProfile", "not allowed with internalId"),
			fe("groups", "not allowed with internalId"),
			fe("groupDefinitions", "not allowed with internalId"),
			fe("userAttributes", "not allowed with internalId"),
			fe("userAttributeDefinitions", "not allowed with internalId"),
			fe("securityContext", "not allowed with internalId"),
		}},
		{name: "internalId allows settings, theme, tenant and creator mode", base: valInternalRequest, edit: func(r *GenerateSessionRequest) {
			full := valFullRequest()
			r.Settings, r.EmbedTheme, r.EmbedTenantName, r.CreatorMode = full.Settings, full.EmbedTheme, full.EmbedTenantName, full.CreatorMode
			r.TenantGroups, r.TenantGroupDefinitions, r.BranchName = full.TenantGroups, full.TenantGroupDefinitions, full.BranchName
		}},

		// email
		{name: "email with internalId", base: valInternalRequest, edit: func(r *GenerateSessionRequest) { r.Email = "ada@acme.example.com" },
			want: []FieldError{fe("email", "is used only with externalId")}},
		// The platform gives email no format: any string is sent as given.
		{name: "email not an address", edit: func(r *GenerateSessionRequest) { r.Email = "ada.lovelace" }},
		{name: "email with display name", edit: func(r *GenerateSessionRequest) { r.Email = "Ada <ada@acme.example.com>" }},
		{name: "email long", edit: func(r *GenerateSessionRequest) { r.Email = strings.Repeat("a", 250) + "@x.io" }},
		{name: "email with a control character", edit: func(r *GenerateSessionRequest) { r.Email = "ada@acme.example.com\r\nBcc: x@y.z" },
			want: []FieldError{fe("email", "must not contain control characters")}},
		{name: "email invalid UTF-8", edit: func(r *GenerateSessionRequest) { r.Email = "ada\xff@acme.example.com" },
			want: []FieldError{fe("email", "must be valid UTF-8")}},
		{name: "email quoted local part", edit: func(r *GenerateSessionRequest) { r.Email = `"ada lovelace"@acme.example.com` }},
		{name: "email international", edit: func(r *GenerateSessionRequest) { r.Email = "jörg@bücher.example" }},

		// userProfile
		{name: "picture javascript", edit: func(r *GenerateSessionRequest) { r.UserProfile.Picture = "javascript:alert(1)" },
			want: []FieldError{fe("userProfile.picture", "must be an absolute http:// or https:// URL with a host")}},
		{name: "picture relative", edit: func(r *GenerateSessionRequest) { r.UserProfile.Picture = "/avatars/42.png" },
			want: []FieldError{fe("userProfile.picture", "must be an absolute http:// or https:// URL with a host")}},
		{name: "picture scheme-relative", edit: func(r *GenerateSessionRequest) { r.UserProfile.Picture = "//cdn.example.com/a.png" },
			want: []FieldError{fe("userProfile.picture", "must be an absolute http:// or https:// URL with a host")}},
		{name: "picture other scheme", edit: func(r *GenerateSessionRequest) { r.UserProfile.Picture = "ftp://cdn.example.com/a.png" },
			want: []FieldError{fe("userProfile.picture", "must be an absolute http:// or https:// URL with a host")}},
		{name: "picture without host", edit: func(r *GenerateSessionRequest) { r.UserProfile.Picture = "https:///a.png" },
			want: []FieldError{fe("userProfile.picture", "must be an absolute http:// or https:// URL with a host")}},
		{name: "picture opaque", edit: func(r *GenerateSessionRequest) { r.UserProfile.Picture = "http:cdn.example.com" },
			want: []FieldError{fe("userProfile.picture", "must be an absolute http:// or https:// URL with a host")}},
		{name: "picture plain http with port", edit: func(r *GenerateSessionRequest) { r.UserProfile.Picture = "HTTP://localhost:8080/a.png?s=64" }},

		// embedTenantName
		{name: "tenant two characters", edit: func(r *GenerateSessionRequest) { r.EmbedTenantName = "ab" }},
		{name: "tenant 36 characters", edit: func(r *GenerateSessionRequest) { r.EmbedTenantName = "a" + strings.Repeat("0", 35) }},
		{name: "tenant 37 characters", edit: func(r *GenerateSessionRequest) { r.EmbedTenantName = "a" + strings.Repeat("0", 36) },
			want: []FieldError{fe("embedTenantName", "must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$")}},
		{name: "tenant upper case", edit: func(r *GenerateSessionRequest) { r.EmbedTenantName = "Acme" },
			want: []FieldError{fe("embedTenantName", "must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$")}},
		{name: "tenant trailing hyphen", edit: func(r *GenerateSessionRequest) { r.EmbedTenantName = "acme-" },
			want: []FieldError{fe("embedTenantName", "must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$")}},

		// creator-mode and tenant prerequisites
		{name: "tenant fields without creator mode", edit: func(r *GenerateSessionRequest) { r.CreatorMode = new(false) },
			want: []FieldError{
				fe("tenantGroups", "requires creatorMode: true"),
				fe("tenantGroupDefinitions", "requires creatorMode: true"),
				fe("userAttributeDefinitions", "requires creatorMode: true"),
			}},
		{name: "tenant fields without tenant", edit: func(r *GenerateSessionRequest) { r.EmbedTenantName = "" },
			want: []FieldError{
				fe("tenantGroups", "requires embedTenantName"),
				fe("tenantGroupDefinitions", "requires embedTenantName"),
			}},
		{name: "empty tenant groups still need creator mode", edit: func(r *GenerateSessionRequest) {
			r.CreatorMode, r.TenantGroupDefinitions, r.UserAttributeDefinitions = nil, nil, nil
			r.TenantGroups = []string{}
		}, want: []FieldError{fe("tenantGroups", "requires creatorMode: true")}},
		{name: "deprecated groupDefinitions without creator mode", edit: func(r *GenerateSessionRequest) {
			r.CreatorMode, r.TenantGroups, r.TenantGroupDefinitions, r.UserAttributeDefinitions = nil, nil, nil, nil
		}},

		// names
		{name: "groups empty slice clears", edit: func(r *GenerateSessionRequest) { r.Groups = []string{} }},
		{name: "group name blank", edit: func(r *GenerateSessionRequest) { r.Groups = []string{"sales", " "} },
			want: []FieldError{fe("groups[1]", "is required")}},
		// The platform has no rule against a repeated group name (only
		// against repeated definition names).
		{name: "group name repeated", edit: func(r *GenerateSessionRequest) { r.Groups = []string{"sales", "emea", "sales"} }},
		{name: "tenant group repeated", edit: func(r *GenerateSessionRequest) { r.TenantGroups = []string{"", "x", "x"} },
			want: []FieldError{fe("tenantGroups[0]", "is required")}},
		{name: "tenant group definitions", edit: func(r *GenerateSessionRequest) {
			r.TenantGroupDefinitions = []GroupDefinition{{Name: "analysts"}, {Name: ""}, {Name: "analysts"}}
		}, want: []FieldError{fe("tenantGroupDefinitions[1].name", "is required"), fe("tenantGroupDefinitions[2].name", `duplicate name "analysts"`)}},
		// groupDefinitions is deprecated: "accepted without error, has no
		// effect"; its items are sent as given.
		{name: "group definitions are not checked", edit: func(r *GenerateSessionRequest) {
			r.GroupDefinitions = []GroupDefinition{{Name: "a"}, {Name: "a"}, {}}
		}},
		{name: "many group definitions use a set", edit: func(r *GenerateSessionRequest) {
			r.TenantGroupDefinitions = nil
			for i := range 40 {
				r.TenantGroupDefinitions = append(r.TenantGroupDefinitions, GroupDefinition{Name: "g" + string(rune('a'+i%26)) + string(rune('a'+i/26))})
			}
			r.TenantGroupDefinitions = append(r.TenantGroupDefinitions, GroupDefinition{Name: "gzz"}, GroupDefinition{Name: "gab"})
		}, want: []FieldError{fe("tenantGroupDefinitions[41].name", `duplicate name "gab"`)}},
		{name: "long duplicate name is shortened", edit: func(r *GenerateSessionRequest) {
			n := strings.Repeat("n", 100)
			r.TenantGroupDefinitions = []GroupDefinition{{Name: n}, {Name: n}}
		}, want: []FieldError{fe("tenantGroupDefinitions[1].name", `duplicate name "`+strings.Repeat("n", 64)+`"...`)}},

		// attribute definitions
		{name: "definition name and type", edit: func(r *GenerateSessionRequest) {
			r.UserAttributes = nil
			r.UserAttributeDefinitions = []UserAttributeDefinition{
				{Name: "region", Type: "date"},
				{Name: "", Type: AttributeString},
				{Name: "region", Type: ""},
			}
		}, want: []FieldError{
			fe("userAttributeDefinitions[0].type", "must be one of string, number, boolean, string_array, number_array"),
			fe("userAttributeDefinitions[1].name", "is required"),
			fe("userAttributeDefinitions[2].name", `duplicate name "region"`),
			fe("userAttributeDefinitions[2].type", "is required"),
		}},

		// attribute values
		{name: "attribute values of every accepted kind", edit: func(r *GenerateSessionRequest) {
			r.UserAttributeDefinitions = nil
			r.UserAttributes = nil
			for i, v := range []any{
				"s", true, int8(1), int16(1), int32(1), int64(1), uint(1), uint8(1), uint16(1), uint32(1), uint64(1),
				float32(1.5), 2.5, json.Number("-1.5e3"), time.Second, []string{"a"}, []int{1}, []int64{1}, []float64{1.5},
				[]uint16{1}, []float32{1}, []json.Number{"1"}, []any{"a", "b"}, []any{1, 2.5, json.Number("3")},
				[]any{}, []string{}, []string(nil), nil, namedRegion("emea"), namedScore(0.5), []namedRegion{"emea"},
				[2]int{1, 2}, [...]string{"a"},
			} {
				r.UserAttributes = append(r.UserAttributes, UserAttributeInput{Name: "a" + string(rune('a'+i)), Value: v})
			}
		}},
		{name: "attribute values of refused kinds", edit: func(r *GenerateSessionRequest) {
			r.UserAttributeDefinitions = nil
			r.UserAttributes = nil
			for i, v := range []any{
				map[string]any{"a": 1}, []any{[]any{"a"}}, []any{"a", 1}, []any{nil}, math.NaN(), math.Inf(1),
				float32(math.Inf(-1)), []float64{math.NaN()}, json.Number("1x"), []json.Number{"x"}, []byte("ab"),
				struct{}{}, new("x"), jsonRegion("emea"), time.Time{}, []any{true}, []bool{true}, make(chan int),
				[]namedScore{namedScore(math.NaN())},
			} {
				r.UserAttributes = append(r.UserAttributes, UserAttributeInput{Name: "a" + string(rune('a'+i)), Value: v})
			}
		}, want: func() []FieldError {
			var w []FieldError
			for i := range 19 {
				w = append(w, fe("userAttributes["+strconv.Itoa(i)+"].value", ruleAttrValue))
			}
			return w
		}()},
		{name: "attribute name blank and repeated", edit: func(r *GenerateSessionRequest) {
			r.UserAttributes = []UserAttributeInput{{Name: "region", Value: "emea"}, {Name: "", Value: 1}, {Name: "region", Value: "apac"}}
		}, want: []FieldError{fe("userAttributes[1].name", "is required"), fe("userAttributes[2].name", `duplicate name "region"`)}},
		{name: "attribute values match definitions", edit: func(r *GenerateSessionRequest) {
			r.UserAttributes = []UserAttributeInput{
				{Name: "region", Value: 1},
				{Name: "quota", Value: "high"},
				{Name: "active", Value: "yes"},
				{Name: "territories", Value: []any{1, 2}},
				{Name: "targets", Value: []string{"1"}},
				{Name: "undefined", Value: map[string]any{}},
			}
		}, want: []FieldError{
			fe("userAttributes[0].value", "must be of type string to match its definition"),
			fe("userAttributes[1].value", "must be of type number to match its definition"),
			fe("userAttributes[2].value", "must be of type boolean to match its definition"),
			fe("userAttributes[3].value", "must be of type string_array to match its definition"),
			fe("userAttributes[4].value", "must be of type number_array to match its definition"),
			fe("userAttributes[5].value", "must be a string, number, boolean, array of strings, array of numbers, or null"),
		}},
		{name: "null and empty arrays match any definition", edit: func(r *GenerateSessionRequest) {
			r.UserAttributes = []UserAttributeInput{
				{Name: "region", Value: nil}, {Name: "quota", Value: nil}, {Name: "territories", Value: []any{}}, {Name: "targets", Value: []int{}},
			}
		}},
		{name: "values unchecked against an unknown definition type", edit: func(r *GenerateSessionRequest) {
			r.UserAttributeDefinitions[0].Type = "date"
		}, want: []FieldError{fe("userAttributeDefinitions[0].type", "must be one of string, number, boolean, string_array, number_array")}},

		// securityContext
		{name: "security context of any encodable shape", edit: func(r *GenerateSessionRequest) {
			r.SecurityContext = map[string]any{
				"deep": deep["n"], "raw": json.RawMessage(`{"a":[1]}`), "when": time.Unix(0, 0).UTC(),
				"s": struct {
					A []map[string]int `json:"a"`
				}{A: []map[string]int{{"x": 1}}}, "n": json.Number("12"), "f": []float64{1}, "m": map[string]string{"a": "b"},
			}
		}},
		{name: "security context at depth limit", edit: func(r *GenerateSessionRequest) { r.SecurityContext = deep }},
		{name: "security context too deep", edit: func(r *GenerateSessionRequest) { r.SecurityContext = tooDeep },
			want: []FieldError{fe("securityContext", "must nest at most 32 levels deep")}},
		{name: "security context containing itself", edit: func(r *GenerateSessionRequest) { r.SecurityContext = cyclic },
			want: []FieldError{fe("securityContext", "must nest at most 32 levels deep")}},
		{name: "security context raw JSON too deep", edit: func(r *GenerateSessionRequest) {
			r.SecurityContext = map[string]any{"raw": json.RawMessage(strings.Repeat("[", 32) + strings.Repeat("]", 32))}
		}, want: []FieldError{fe("securityContext", "must nest at most 32 levels deep")}},
		{name: "security context channel", edit: func(r *GenerateSessionRequest) { r.SecurityContext = map[string]any{"c": make(chan int)} },
			want: []FieldError{fe("securityContext", "must be JSON-encodable")}},
		{name: "security context func", edit: func(r *GenerateSessionRequest) { r.SecurityContext = map[string]any{"f": func() {}} },
			want: []FieldError{fe("securityContext", "must be JSON-encodable")}},
		{name: "security context NaN", edit: func(r *GenerateSessionRequest) {
			r.SecurityContext = map[string]any{"a": []any{1, math.NaN()}}
		}, want: []FieldError{fe("securityContext", "must be JSON-encodable")}},
		{name: "security context fails beats too deep", edit: func(r *GenerateSessionRequest) {
			r.SecurityContext = map[string]any{"a": tooDeep["n"], "b": map[string]any{"c": math.Inf(1)}, "d": tooDeep["n"]}
		}, want: []FieldError{fe("securityContext", "must be JSON-encodable")}},
		{name: "security context too many values", edit: func(r *GenerateSessionRequest) {
			level := []any{"x"}
			for range 24 {
				level = []any{level, level}
			}
			r.SecurityContext = map[string]any{"dag": level}
		}, want: []FieldError{fe("securityContext", "must hold at most 1048576 values")}},

		// settings
		{name: "locale forms", edit: func(r *GenerateSessionRequest) { r.Settings.Locale = new("zh-Hant-TW") }},
		{name: "locale short", edit: func(r *GenerateSessionRequest) { r.Settings.Locale = new("es") }},
		{name: "locale numeric region", edit: func(r *GenerateSessionRequest) { r.Settings.Locale = new("es-419") }},
		{name: "locale well-formed but unknown", edit: func(r *GenerateSessionRequest) { r.Settings.Locale = new("xx-YY") }},
		{name: "locale empty", edit: func(r *GenerateSessionRequest) { r.Settings.Locale = new("") },
			want: []FieldError{fe("settings.locale", "must not be empty")}},
		{name: "locale underscore", edit: func(r *GenerateSessionRequest) { r.Settings.Locale = new("en_US") },
			want: []FieldError{fe("settings.locale", "must be a well-formed BCP-47 language tag, such as de-DE")}},
		{name: "locale malformed", edit: func(r *GenerateSessionRequest) { r.Settings.Locale = new("english please") },
			want: []FieldError{fe("settings.locale", "must be a well-formed BCP-47 language tag, such as de-DE")}},
		{name: "locale trailing hyphen", edit: func(r *GenerateSessionRequest) { r.Settings.Locale = new("en-") },
			want: []FieldError{fe("settings.locale", "must be a well-formed BCP-47 language tag, such as de-DE")}},
		{name: "timezone unknown passes", edit: func(r *GenerateSessionRequest) { r.Settings.Timezone = new("Mars/Olympus_Mons") }},
		{name: "timezone offset passes", edit: func(r *GenerateSessionRequest) { r.Settings.Timezone = new("+02:00") }},
		// An unknown zone name falls through and does not fail the session
		// (EmbedSessionSettings.timezone); the empty name is one.
		{name: "timezone empty passes", edit: func(r *GenerateSessionRequest) { r.Settings.Timezone = new("") }},
		{name: "timezone control character", edit: func(r *GenerateSessionRequest) { r.Settings.Timezone = new("Europe/Berlin\r\n") },
			want: []FieldError{fe("settings.timezone", "must not contain control characters")}},
		{name: "timezone too long", edit: func(r *GenerateSessionRequest) { r.Settings.Timezone = new(strings.Repeat("z", 129)) },
			want: []FieldError{fe("settings.timezone", "must be at most 128 bytes")}},
		{name: "empty settings", edit: func(r *GenerateSessionRequest) { r.Settings = &EmbedSessionSettings{} }},

		// embedTheme
		{name: "theme free-form values", edit: func(r *GenerateSessionRequest) {
			r.EmbedTheme.PrimaryColor, r.EmbedTheme.Font = "hsl(210 100% 50% / 0.8)", `"Söhne", system-ui`
		}},
		{name: "theme control characters", edit: func(r *GenerateSessionRequest) {
			r.EmbedTheme.PrimaryColor = "#fff\n"
			r.EmbedTheme.Font = "Inter\x1b"
			r.EmbedTheme.Chat.InputColor = "\x7f"
			r.EmbedTheme.AnalyticsChat.BackgroundColor = "\t"
			r.EmbedTheme.AnalyticsChat.ChatInput.BackgroundColor = "a\x00"
			r.EmbedTheme.AnalyticsChat.ChatInput.BorderColor = "\u009b"
		}, want: []FieldError{
			fe("embedTheme.primaryColor", "must not contain control characters"),
			fe("embedTheme.font", "must not contain control characters"),
			fe("embedTheme.chat.inputColor", "must not contain control characters"),
			fe("embedTheme.analyticsChat.backgroundColor", "must not contain control characters"),
			fe("embedTheme.analyticsChat.chatInput.backgroundColor", "must not contain control characters"),
			fe("embedTheme.analyticsChat.chatInput.borderColor", "must not contain control characters"),
		}},

		// branchName
		{name: "branchName control character", edit: func(r *GenerateSessionRequest) { r.BranchName = "dev\x00" },
			want: []FieldError{fe("branchName", "must not contain control characters")}},
		{name: "branchName invalid UTF-8", edit: func(r *GenerateSessionRequest) { r.BranchName = "dev\xc3" },
			want: []FieldError{fe("branchName", "must be valid UTF-8")}},

		// everything at once
		{name: "every problem in field order", edit: func(r *GenerateSessionRequest) {
			r.DeploymentID = 0
			r.InternalID = "ada"
			r.Email = "nope"
			r.UserProfile.Picture = "javascript:void(0)"
			r.EmbedTenantName = "Acme"
			r.Groups = []string{"a", "a"}
			r.UserAttributes[0].Value = []any{[]any{}}
			r.SecurityContext["bad"] = math.NaN()
			r.Settings.Locale = new("")
			r.EmbedTheme.Font = "\x00"
		}, want: []FieldError{
			fe("deploymentId", "is required"),
			fe("externalId", "give exactly one of externalId or internalId"),
			fe("userProfile", "not allowed with internalId"),
			fe("userProfile.picture", "must be an absolute http:// or https:// URL with a host"),
			fe("embedTenantName", "must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$"),
			fe("groups", "not allowed with internalId"),
			fe("groupDefinitions", "not allowed with internalId"),
			fe("userAttributes", "not allowed with internalId"),
			fe("userAttributes[0].value", "must be a string, number, boolean, array of strings, array of numbers, or null"),
			fe("userAttributeDefinitions", "not allowed with internalId"),
			fe("securityContext", "not allowed with internalId"),
			fe("securityContext", "must be JSON-encodable"),
			fe("settings.locale", "must not be empty"),
			fe("embedTheme.font", "must not contain control characters"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := tt.base
			if base == nil {
				base = valFullRequest
			}
			r := base()
			if r != nil {
				tt.edit(r)
			}
			valCheck(t, "generate-session", r.Validate(), tt.want)
		})
	}
}

func TestGenerateSessionRequestValidateDoesNotMutate(t *testing.T) {
	for _, name := range []string{"valid", "invalid"} {
		t.Run(name, func(t *testing.T) {
			edit := func(r *GenerateSessionRequest) {
				r.ExternalID = "  User-42 "
				if name == "invalid" {
					r.Groups = append(r.Groups, "sales")
					r.UserAttributes[1].Value = []any{"x", 1}
					r.Settings.Locale = new("??")
				}
			}
			r, want := valFullRequest(), valFullRequest()
			edit(r)
			edit(want)
			before, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Validate(); (err != nil) != (name == "invalid") {
				t.Fatalf("Validate() = %v", err)
			}
			if !reflect.DeepEqual(r, want) {
				t.Errorf("Validate changed the request:\n got  %+v\n want %+v", r, want)
			}
			after, _ := json.Marshal(r)
			if string(before) != string(after) {
				t.Errorf("Validate changed the encoded request:\n%s\n%s", before, after)
			}
			if r.ExternalID != "  User-42 " {
				t.Errorf("ExternalID = %q, normalised in place", r.ExternalID)
			}
		})
	}
}

func TestValidationErrorsQuoteNoSecrets(t *testing.T) {
	r := valFullRequest()
	r.ExternalID = "ext-secret-7f3a\x01"
	r.InternalID = "int-secret-9b2c\x02"
	r.Email = "mail-secret-41d0"
	r.SecurityContext = map[string]any{"key": "ctx-secret-aa11", "bad": math.Inf(1)}
	err := r.Validate()
	if err == nil {
		t.Fatal("Validate() = nil")
	}
	for _, secret := range []string{"ext-secret", "int-secret", "mail-secret", "ctx-secret"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error quotes %s: %v", secret, err)
		}
	}
	id := "0123456789ABCDEF0123456789abcdef"
	if err := ValidateSessionID(id); err == nil || strings.Contains(err.Error(), "0123456789") {
		t.Errorf("ValidateSessionID() = %v", err)
	}
}

func TestNormalizeExternalID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"user-42", "user-42"},
		{"  User-42\t\n", "user-42"},
		{"\u00a0\u2003ÀDA\u3000", "àda"},
		{"", ""},
		{" \t ", ""},
		{"A B", "a b"},
	}
	for _, tt := range tests {
		if got := NormalizeExternalID(tt.in); got != tt.want {
			t.Errorf("NormalizeExternalID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestValidateSessionID(t *testing.T) {
	for _, id := range []string{"0123456789abcdef0123456789abcdef", strings.Repeat("0", 32)} {
		if err := ValidateSessionID(id); err != nil {
			t.Errorf("ValidateSessionID(%q) = %v", id, err)
		}
	}
	for _, id := range []string{"", "0123456789ABCDEF0123456789abcdef", "0123456789abcdef0123456789abcde",
		"0123456789abcdef0123456789abcdef0", "0123456789abcdef0123456789abcdeg", "../../../../etc/passwd"} {
		valCheck(t, "session", ValidateSessionID(id), []FieldError{fe("sessionId", "must match ^[0-9a-f]{32}$")})
	}
}

func BenchmarkValidate(b *testing.B) {
	r := valFullRequest()
	if err := r.Validate(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateInvalid(b *testing.B) {
	r := valFullRequest()
	r.Groups = []string{"a", "a"}
	r.Settings.Locale = new("")
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Validate(); err == nil {
			b.Fatal("Validate() = nil")
		}
	}
}

type namedRegion string

type namedScore float64
