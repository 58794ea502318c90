package embedkit

import (
	"encoding/json"
	"errors"
	"math"
	"net/mail"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/language"
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

func fe(field, rule string) FieldError { return FieldError{Field: field, Rule: rule} }

// valProblems returns the problems of err, checking that it is a
// *ValidationError with op that matches ErrInvalidRequest.
func valProblems(t *testing.T, op string, err error) []FieldError {
	t.Helper()
	if err == nil {
		return nil
	}
	if !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("errors.Is(%v, ErrInvalidRequest) = false", err)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %T is not a *ValidationError", err)
	}
	if ve.Op != op {
		t.Errorf("Op = %q, want %q", ve.Op, op)
	}
	if !strings.HasPrefix(err.Error(), "embedkit: ") {
		t.Errorf("error %q does not start with embedkit:", err)
	}
	return ve.Problems
}

// valCheck compares the problems of err with want.
func valCheck(t *testing.T, op string, err error, want []FieldError) {
	t.Helper()
	got := valProblems(t, op, err)
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n got  %q\n want %q", got, want)
	}
}

type namedRegion string

type namedScore float64

type jsonRegion string

func (jsonRegion) MarshalJSON() ([]byte, error) { return []byte(`{"x":1}`), nil }

func TestGenerateSessionRequestValidate(t *testing.T) {
	long := strings.Repeat("é", MaxIDLength)
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
		{name: "externalId at length limit", edit: func(r *GenerateSessionRequest) { r.ExternalID = long }},
		{name: "externalId too long", edit: func(r *GenerateSessionRequest) { r.ExternalID = long + "x" },
			want: []FieldError{fe("externalId", "must be at most 256 characters")}},
		{name: "internalId blank", base: valInternalRequest, edit: func(r *GenerateSessionRequest) { r.InternalID = "  " },
			want: []FieldError{fe("internalId", "must not be blank")}},
		{name: "internalId control character", base: valInternalRequest, edit: func(r *GenerateSessionRequest) { r.InternalID = "ada\n" },
			want: []FieldError{fe("internalId", "must not contain control characters")}},
		{name: "internalId too long", base: valInternalRequest, edit: func(r *GenerateSessionRequest) { r.InternalID = long + "x" },
			want: []FieldError{fe("internalId", "must be at most 256 characters")}},
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
			want: []FieldError{fe("email", "only allowed with externalId")}},
		{name: "email not an address", edit: func(r *GenerateSessionRequest) { r.Email = "ada.lovelace" },
			want: []FieldError{fe("email", "must be an email address")}},
		{name: "email with display name", edit: func(r *GenerateSessionRequest) { r.Email = "Ada <ada@acme.example.com>" },
			want: []FieldError{fe("email", "must be an email address")}},
		{name: "email too long", edit: func(r *GenerateSessionRequest) { r.Email = strings.Repeat("a", 250) + "@x.io" },
			want: []FieldError{fe("email", "must be an email address")}},
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
		{name: "group name repeated", edit: func(r *GenerateSessionRequest) { r.Groups = []string{"sales", "emea", "sales"} },
			want: []FieldError{fe("groups[2]", `duplicate name "sales"`)}},
		{name: "tenant group repeated", edit: func(r *GenerateSessionRequest) { r.TenantGroups = []string{"", "x", "x"} },
			want: []FieldError{fe("tenantGroups[0]", "is required"), fe("tenantGroups[2]", `duplicate name "x"`)}},
		{name: "tenant group definitions", edit: func(r *GenerateSessionRequest) {
			r.TenantGroupDefinitions = []GroupDefinition{{Name: "analysts"}, {Name: ""}, {Name: "analysts"}}
		}, want: []FieldError{fe("tenantGroupDefinitions[1].name", "is required"), fe("tenantGroupDefinitions[2].name", `duplicate name "analysts"`)}},
		{name: "group definitions", edit: func(r *GenerateSessionRequest) {
			r.GroupDefinitions = []GroupDefinition{{Name: "a"}, {Name: "a"}, {}}
		}, want: []FieldError{fe("groupDefinitions[1].name", `duplicate name "a"`), fe("groupDefinitions[2].name", "is required")}},
		{name: "many groups use a set", edit: func(r *GenerateSessionRequest) {
			r.Groups = nil
			for i := range 40 {
				r.Groups = append(r.Groups, "g"+string(rune('a'+i%26))+string(rune('a'+i/26)))
			}
			r.Groups = append(r.Groups, "gzz", "gab")
		}, want: []FieldError{fe("groups[41]", `duplicate name "gab"`)}},
		{name: "long duplicate name is shortened", edit: func(r *GenerateSessionRequest) {
			n := strings.Repeat("n", 100)
			r.Groups = []string{n, n}
		}, want: []FieldError{fe("groups[1]", `duplicate name "`+strings.Repeat("n", 64)+`"...`)}},

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
		{name: "timezone empty", edit: func(r *GenerateSessionRequest) { r.Settings.Timezone = new("") },
			want: []FieldError{fe("settings.timezone", "must not be empty")}},
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
			fe("email", "must be an email address"),
			fe("userProfile", "not allowed with internalId"),
			fe("userProfile.picture", "must be an absolute http:// or https:// URL with a host"),
			fe("embedTenantName", "must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$"),
			fe("groups", "not allowed with internalId"),
			fe("groups[1]", `duplicate name "a"`),
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

func TestEmbedSessionSettingsUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    EmbedSessionSettings
		wantErr string
		wantAs  any // pointer to an error type errors.As must find
	}{
		{name: "every key", in: `{"allowAi":false,"showDashboardChat":true,"showWorkbookChat":false,"showAiWidgets":true,
			"allowChatWorkspaceAuthoring":false,"showWorkbookShare":true,"showDashboardSettings":false,"showMemberNames":true,
			"showGroupByCube":false,"locale":"de-DE","timezone":"Europe/Berlin"}`,
			want: EmbedSessionSettings{AllowAI: new(false), ShowDashboardChat: new(true), ShowWorkbookChat: new(false),
				ShowAIWidgets: new(true), AllowChatWorkspaceAuthoring: new(false), ShowWorkbookShare: new(true),
				ShowDashboardSettings: new(false), ShowMemberNames: new(true), ShowGroupByCube: new(false),
				Locale: new("de-DE"), Timezone: new("Europe/Berlin")}},
		{name: "empty object", in: `{}`},
		{name: "nulls are omitted", in: `{"allowAi":null,"locale":null}`},
		{name: "null object", in: `null`},
		{name: "later key wins", in: `{"allowAi":true,"allowAi":false}`, want: EmbedSessionSettings{AllowAI: new(false)}},
		{name: "unknown key", in: `{"allowAi":true,"showHeader":false}`, wantErr: `embedkit: settings: unknown key "showHeader"`},
		{name: "keys are case-sensitive", in: `{"AllowAI":true}`, wantErr: `embedkit: settings: unknown key "AllowAI"`},
		{name: "iframe chrome key", in: `{"showDashboardHeader":false}`,
			wantErr: `embedkit: settings: "showDashboardHeader" is an iframe URL parameter, not a session setting; set it on the embed URL`},
		{name: "iframe grant key", in: `{"allowExport":true}`,
			wantErr: `embedkit: settings: "allowExport" is an iframe URL parameter, not a session setting; set it on the embed URL`},
		{name: "first problem in document order", in: `{"zzz":1,"aaa":2}`, wantErr: `embedkit: settings: unknown key "zzz"`},
		{name: "bool key given a string", in: `{"allowAi":"false"}`,
			wantErr: `embedkit: settings: "allowAi" must be a boolean or null: json: cannot unmarshal string into Go value of type bool`,
			wantAs:  new(*json.UnmarshalTypeError)},
		{name: "string key given a number", in: `{"locale":1}`,
			wantErr: `embedkit: settings: "locale" must be a string or null: json: cannot unmarshal number into Go value of type string`},
		{name: "not an object", in: `[]`, wantErr: `embedkit: settings: must be a JSON object`},
		{name: "malformed", in: `{"allowAi":tru}`, wantAs: new(*json.SyntaxError)},
		{name: "trailing data", in: `{} {}`, wantErr: `embedkit: settings: unexpected data after the settings object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := EmbedSessionSettings{ShowGroupByCube: new(true)} // left as is on error
			err := s.UnmarshalJSON([]byte(tt.in))
			if tt.wantErr == "" && tt.wantAs == nil {
				if err != nil {
					t.Fatalf("UnmarshalJSON() = %v", err)
				}
				if tt.in == "null" {
					tt.want = EmbedSessionSettings{ShowGroupByCube: new(true)}
				}
				if !reflect.DeepEqual(s, tt.want) {
					t.Errorf("got %+v, want %+v", s, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatal("UnmarshalJSON() = nil")
			}
			if !errors.Is(err, ErrInvalidRequest) {
				t.Errorf("errors.Is(%v, ErrInvalidRequest) = false", err)
			}
			if tt.wantErr != "" && err.Error() != tt.wantErr {
				t.Errorf("error:\n got  %s\n want %s", err, tt.wantErr)
			}
			if tt.wantAs != nil && !errors.As(err, tt.wantAs) {
				t.Errorf("errors.As(%v, %T) = false", err, tt.wantAs)
			}
			if !reflect.DeepEqual(s, EmbedSessionSettings{ShowGroupByCube: new(true)}) {
				t.Errorf("settings changed on error: %+v", s)
			}
		})
	}
}

func TestSettingsInsideRequestJSON(t *testing.T) {
	var r GenerateSessionRequest
	err := json.Unmarshal([]byte(`{"deploymentId":1,"externalId":"u","settings":{"showDashboardTitle":false}}`), &r)
	if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), `"showDashboardTitle" is an iframe URL parameter`) {
		t.Errorf("Unmarshal() = %v", err)
	}
	err = json.Unmarshal([]byte(`{"deploymentId":1,"externalId":"u","settings":{"locale":"fr-FR","allowAi":null}}`), &r)
	if err != nil || r.Settings == nil || *r.Settings.Locale != "fr-FR" || r.Settings.AllowAI != nil {
		t.Errorf("Unmarshal() = %v, settings %+v", err, r.Settings)
	}
	if err := r.Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
}

func TestParseSettings(t *testing.T) {
	tests := []struct {
		name    string
		in      map[string]any
		want    *EmbedSessionSettings
		wantErr string
	}{
		{name: "nil map", in: nil, want: &EmbedSessionSettings{}},
		{name: "values", in: map[string]any{"allowAi": false, "showMemberNames": true, "locale": "fr-FR", "timezone": "UTC", "showWorkbookChat": nil},
			want: &EmbedSessionSettings{AllowAI: new(false), ShowMemberNames: new(true), Locale: new("fr-FR"), Timezone: new("UTC")}},
		{name: "unknown key", in: map[string]any{"showHeader": false}, wantErr: `embedkit: settings: unknown key "showHeader"`},
		{name: "iframe chrome key", in: map[string]any{"showWorkbookBackButton": false},
			wantErr: `embedkit: settings: "showWorkbookBackButton" is an iframe URL parameter, not a session setting; set it on the embed URL`},
		{name: "first problem in key order", in: map[string]any{"zeta": 1, "alpha": 2, "allowAi": true},
			wantErr: `embedkit: settings: unknown key "alpha"`},
		{name: "bool key given a string", in: map[string]any{"allowAi": "false"}, wantErr: `embedkit: settings: "allowAi" must be a bool or nil`},
		{name: "bool key given a number", in: map[string]any{"allowAi": 0}, wantErr: `embedkit: settings: "allowAi" must be a bool or nil`},
		{name: "string key given a bool", in: map[string]any{"locale": true}, wantErr: `embedkit: settings: "locale" must be a string or nil`},
		{name: "string key given a number", in: map[string]any{"timezone": 2}, wantErr: `embedkit: settings: "timezone" must be a string or nil`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSettings(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrInvalidRequest) || got != nil {
					t.Errorf("ParseSettings() = %+v, %v; want error %s", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSettings() = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestMetaTokenRequestValidate(t *testing.T) {
	tests := []struct {
		name string
		r    *MetaTokenRequest
		want []FieldError
	}{
		{name: "empty context", r: &MetaTokenRequest{SecurityContext: map[string]any{}}},
		{name: "context and lifetime", r: &MetaTokenRequest{SecurityContext: map[string]any{"team": "a"}, ExpiresIn: 1}},
		{name: "nil request", r: nil, want: []FieldError{fe("security_context", "is required")}},
		{name: "context missing", r: &MetaTokenRequest{ExpiresIn: 60}, want: []FieldError{fe("security_context", "is required")}},
		{name: "context not encodable", r: &MetaTokenRequest{SecurityContext: map[string]any{"f": func() {}}},
			want: []FieldError{fe("security_context", "must be JSON-encodable")}},
		{name: "negative lifetime", r: &MetaTokenRequest{SecurityContext: map[string]any{}, ExpiresIn: -1},
			want: []FieldError{fe("expires_in", "must be at least 1")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { valCheck(t, "tokens-for-meta-sync", tt.r.Validate(), tt.want) })
	}
}

func TestDataAPITokenRequestValidate(t *testing.T) {
	rule := []FieldError{fe("expiresIn", "must be between 60 and 86400")}
	tests := []struct {
		name string
		r    *DataAPITokenRequest
		want []FieldError
	}{
		{name: "nil request", r: nil},
		{name: "default", r: &DataAPITokenRequest{}},
		{name: "minimum", r: &DataAPITokenRequest{ExpiresIn: 60}},
		{name: "maximum", r: &DataAPITokenRequest{ExpiresIn: 86400}},
		{name: "too short", r: &DataAPITokenRequest{ExpiresIn: 59}, want: rule},
		{name: "too long", r: &DataAPITokenRequest{ExpiresIn: 86401}, want: rule},
		{name: "negative", r: &DataAPITokenRequest{ExpiresIn: -60}, want: rule},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { valCheck(t, "deployment-token", tt.r.Validate(), tt.want) })
	}
}

func TestStagingEnvironmentRequestValidate(t *testing.T) {
	one := fe("branchName", "give exactly one of branchName or branchId")
	tests := []struct {
		name string
		r    *StagingEnvironmentRequest
		want []FieldError
	}{
		{name: "by name", r: &StagingEnvironmentRequest{Enabled: true, BranchName: "shared/q3"}},
		{name: "by id", r: &StagingEnvironmentRequest{Enabled: false, BranchID: 12}},
		{name: "nil request", r: nil, want: []FieldError{one}},
		{name: "neither", r: &StagingEnvironmentRequest{Enabled: true}, want: []FieldError{one}},
		{name: "both", r: &StagingEnvironmentRequest{BranchName: "a", BranchID: 1}, want: []FieldError{one}},
		{name: "negative id", r: &StagingEnvironmentRequest{BranchID: -1}, want: []FieldError{fe("branchId", "must not be negative")}},
		{name: "blank name", r: &StagingEnvironmentRequest{BranchName: " "}, want: []FieldError{fe("branchName", "must not be blank")}},
		{name: "control character", r: &StagingEnvironmentRequest{BranchName: "a\nb"},
			want: []FieldError{fe("branchName", "must not contain control characters")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { valCheck(t, "staging-environment", tt.r.Validate(), tt.want) })
	}
}

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in, want string
		rule     string
	}{
		{in: "1.7.20", want: "1.7.20"},
		{in: "v1.7.20", want: "1.7.20"},
		{in: "platform/runtime:v1.7.20", want: "1.7.20"},
		{in: "platform/runtime:v0.0.0", want: "0.0.0"},
		{in: "registry.example.com:5000/org/img:v1.2.3", want: "1.2.3"},
		{in: "localhost:5000/img:v10.20.30-rc.1+build.5", want: "10.20.30-rc.1+build.5"},
		{in: "my_org/sub-img__x/a.b:v1.0.0-alpha-1", want: "1.0.0-alpha-1"},
		{in: "1.0.0-0A.is.legal", want: "1.0.0-0A.is.legal"},
		{in: "1.0.0+001", want: "1.0.0+001"},
		{in: "", rule: ruleVersion},
		{in: "v", rule: ruleVersion},
		{in: "1.7", rule: ruleVersion},
		{in: "1.7.20.1", rule: ruleVersion},
		{in: "01.7.20", rule: ruleVersion},
		{in: "1.7.20-01", rule: ruleVersion},
		{in: "1.7.20-", rule: ruleVersion},
		{in: "1.7.20+", rule: ruleVersion},
		{in: "V1.7.20", rule: ruleVersion},
		{in: "vv1.7.20", rule: ruleVersion},
		{in: " 1.7.20", rule: ruleVersion},
		{in: "platform/runtime:1.7.20", rule: ruleVersion},
		{in: "platform/runtime:latest", rule: ruleVersion},
		{in: "registry.example.com:5000/org/img", rule: ruleVersion},
		{in: ":v1.7.20", rule: ruleVersionImage},
		{in: "Platform/Runtime:v1.7.20", rule: ruleVersionImage},
		{in: "platform//runtime:v1.7.20", rule: ruleVersionImage},
		{in: "platform/runtime/:v1.7.20", rule: ruleVersionImage},
		{in: "host:port/img:v1.7.20", rule: ruleVersionImage},
		{in: "1.2.3-" + strings.Repeat("a", 600), rule: ruleVersion},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseVersion(tt.in)
			if tt.rule == "" {
				if err != nil || got != tt.want {
					t.Errorf("ParseVersion(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
				}
				return
			}
			if got != "" {
				t.Errorf("ParseVersion(%q) = %q", tt.in, got)
			}
			valCheck(t, "version", err, []FieldError{fe("releaseChannelVersion", tt.rule)})
		})
	}
}

func TestUpdateDeploymentRequestValidate(t *testing.T) {
	tests := []struct {
		name string
		r    *UpdateDeploymentRequest
		want []FieldError
	}{
		{name: "version", r: &UpdateDeploymentRequest{ReleaseChannelVersion: "platform/runtime:v1.7.20"}},
		{name: "channel only", r: &UpdateDeploymentRequest{ReleaseChannel: "release"}},
		{name: "hold only", r: &UpdateDeploymentRequest{ReleaseChannelVersionHold: new(false)}},
		{name: "clear launchpad tabs", r: &UpdateDeploymentRequest{LaunchpadTabs: []string{}}},
		{name: "template variables", r: &UpdateDeploymentRequest{TemplateVariables: map[string]any{"replicas": 2}}},
		{name: "nil request", r: nil, want: []FieldError{fe("request", "must set at least one field to update")}},
		{name: "nothing to update", r: &UpdateDeploymentRequest{TemplateVariables: map[string]any{}},
			want: []FieldError{fe("request", "must set at least one field to update")}},
		{name: "bad version", r: &UpdateDeploymentRequest{ReleaseChannelVersion: "1.7"},
			want: []FieldError{fe("releaseChannelVersion", ruleVersion)}},
		{name: "empty variable name", r: &UpdateDeploymentRequest{TemplateVariables: map[string]any{"": 1, "ok": math.NaN()}},
			want: []FieldError{fe("templateVariables", "keys must not be empty"), fe("templateVariables", "must be JSON-encodable")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { valCheck(t, "update-deployment", tt.r.Validate(), tt.want) })
	}
}

func TestAuditLogOptionsValidate(t *testing.T) {
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		o    *AuditLogOptions
		want []FieldError
	}{
		{name: "nil options", o: nil},
		{name: "no filters", o: &AuditLogOptions{}},
		{name: "range and email", o: &AuditLogOptions{Start: day, End: day.AddDate(0, 1, 0), UserEmail: "ada@acme.example.com"}},
		{name: "same day", o: &AuditLogOptions{Start: day, End: day}},
		{name: "open end", o: &AuditLogOptions{Start: day}},
		{name: "end before start", o: &AuditLogOptions{Start: day, End: day.Add(-time.Second)},
			want: []FieldError{fe("end", "must not be before start")}},
		{name: "bad email", o: &AuditLogOptions{UserEmail: "ada@"}, want: []FieldError{fe("userEmail", "must be an email address")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { valCheck(t, "audit-log-export", tt.o.Validate(), tt.want) })
	}
}

func TestDashboardExportRequestValidate(t *testing.T) {
	valid := func() *DashboardExportRequest {
		return &DashboardExportRequest{
			DashboardPublicID: "q3-sales",
			Format:            FormatPDF,
			RenderAs: &RenderAs{
				Type: SubjectEmbedUser, EmbedTenantName: "acme", ExternalID: "user-42",
				Groups: []string{"sales"}, SecurityContext: map[string]any{"region": "emea"},
				UserAttributes: []UserAttributeInput{{Name: "region", Value: "emea"}},
			},
			Filters: []DashboardFilter{
				{Member: "orders.status", Operator: "equals", Value: "completed"},
				{Member: "orders.amount", Operator: "between", Value: []any{10, 20}},
				{Member: "orders.note", Operator: "is_null"},
			},
			TimeGrains:      []DashboardTimeGrain{{Member: "orders.created_at", Grain: "week"}},
			MemberSwitchers: []DashboardMemberSwitcher{{Member: "orders.country", Selected: "city"}},
		}
	}
	tests := []struct {
		name string
		edit func(r *DashboardExportRequest)
		want []FieldError
	}{
		{name: "embed subject", edit: func(*DashboardExportRequest) {}},
		{name: "by id as console user", edit: func(r *DashboardExportRequest) {
			r.DashboardPublicID, r.DashboardID, r.Format = "", 9, FormatPNG
			r.RenderAs = &RenderAs{Type: SubjectUser, Email: "ada@acme.example.com"}
		}},
		{name: "console user by id", edit: func(r *DashboardExportRequest) { r.RenderAs = &RenderAs{Type: SubjectUser, UserID: 3} }},
		{name: "no subject", edit: func(r *DashboardExportRequest) { r.RenderAs = nil }},
		{name: "embed subject without tenant", edit: func(r *DashboardExportRequest) { r.RenderAs.EmbedTenantName = "" }},
		{name: "neither dashboard", edit: func(r *DashboardExportRequest) { r.DashboardPublicID = "" },
			want: []FieldError{fe("dashboardId", "give exactly one of dashboardId or dashboardPublicId")}},
		{name: "both dashboards", edit: func(r *DashboardExportRequest) { r.DashboardID = 4 },
			want: []FieldError{fe("dashboardId", "give exactly one of dashboardId or dashboardPublicId")}},
		{name: "negative dashboard id", edit: func(r *DashboardExportRequest) { r.DashboardPublicID, r.DashboardID = "", -4 },
			want: []FieldError{fe("dashboardId", "must not be negative")}},
		{name: "format missing", edit: func(r *DashboardExportRequest) { r.Format = "" },
			want: []FieldError{fe("format", "is required")}},
		{name: "format unknown", edit: func(r *DashboardExportRequest) { r.Format = "csv" },
			want: []FieldError{fe("format", "must be png or pdf")}},
		{name: "subject type missing", edit: func(r *DashboardExportRequest) { r.RenderAs.Type = "" },
			want: []FieldError{fe("renderAs.type", "is required")}},
		{name: "subject type unknown", edit: func(r *DashboardExportRequest) { r.RenderAs.Type = "user" },
			want: []FieldError{fe("renderAs.type", "must be USER or EMBED_USER")}},
		{name: "console user with both", edit: func(r *DashboardExportRequest) {
			r.RenderAs = &RenderAs{Type: SubjectUser, UserID: 3, Email: "ada@acme.example.com"}
		}, want: []FieldError{fe("renderAs.userId", "give exactly one of userId or email with type USER")}},
		{name: "console user with neither", edit: func(r *DashboardExportRequest) { r.RenderAs = &RenderAs{Type: SubjectUser} },
			want: []FieldError{fe("renderAs.userId", "give exactly one of userId or email with type USER")}},
		{name: "console user with embed fields", edit: func(r *DashboardExportRequest) {
			r.RenderAs = &RenderAs{Type: SubjectUser, UserID: 3, EmbedTenantName: "acme", ExternalID: "u"}
		}, want: []FieldError{
			fe("renderAs.embedTenantName", "not allowed with type USER"),
			fe("renderAs.externalId", "not allowed with type USER"),
		}},
		{name: "embed user without external id", edit: func(r *DashboardExportRequest) { r.RenderAs.ExternalID = "" },
			want: []FieldError{fe("renderAs.externalId", "is required")}},
		{name: "embed user with user id", edit: func(r *DashboardExportRequest) { r.RenderAs.UserID = 5 },
			want: []FieldError{fe("renderAs.userId", "not allowed with type EMBED_USER")}},
		{name: "embed user fields", edit: func(r *DashboardExportRequest) {
			r.RenderAs.Email = "x"
			r.RenderAs.EmbedTenantName = "-acme"
			r.RenderAs.ExternalID = "\x01"
			r.RenderAs.Groups = []string{"a", "a"}
			r.RenderAs.SecurityContext = map[string]any{"c": make(chan int)}
			r.RenderAs.UserAttributes = append(r.RenderAs.UserAttributes, UserAttributeInput{Name: "region", Value: 1})
		}, want: []FieldError{
			fe("renderAs.email", "must be an email address"),
			fe("renderAs.embedTenantName", "must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$"),
			fe("renderAs.externalId", "must not contain control characters"),
			fe("renderAs.groups[1]", `duplicate name "a"`),
			fe("renderAs.securityContext", "must be JSON-encodable"),
			fe("renderAs.userAttributes[1].name", `duplicate name "region"`),
		}},
		{name: "negative user id", edit: func(r *DashboardExportRequest) { r.RenderAs = &RenderAs{Type: SubjectUser, UserID: -1} },
			want: []FieldError{fe("renderAs.userId", "must not be negative")}},
		{name: "members", edit: func(r *DashboardExportRequest) {
			r.Filters[0].Member = "status"
			r.Filters[1].Member = ""
			r.TimeGrains[0].Member = ".created_at"
			r.MemberSwitchers[0].Member = "orders."
		}, want: []FieldError{
			fe("filters[0].member", `must match .+\..+ (view.member)`),
			fe("filters[1].member", "is required"),
			fe("timeGrains[0].member", `must match .+\..+ (view.member)`),
			fe("memberSwitchers[0].member", `must match .+\..+ (view.member)`),
		}},
		{name: "member with newline", edit: func(r *DashboardExportRequest) { r.Filters[0].Member = "orders\n.status" },
			want: []FieldError{fe("filters[0].member", `must match .+\..+ (view.member)`)}},
		{name: "filter operator and value", edit: func(r *DashboardExportRequest) {
			r.Filters[0].Operator = "eq"
			r.Filters[1].Value = []any{math.NaN()}
			r.Filters[2].Operator = ""
		}, want: []FieldError{fe("filters[0].operator", ruleFilterOp), fe("filters[1].value", "must be JSON-encodable")}},
		{name: "grain and selected", edit: func(r *DashboardExportRequest) {
			r.TimeGrains[0].Grain = ""
			r.MemberSwitchers[0].Selected = " "
		}, want: []FieldError{fe("timeGrains[0].grain", "is required"), fe("memberSwitchers[0].selected", "is required")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := valid()
			tt.edit(r)
			valCheck(t, "dashboard-export", r.Validate(), tt.want)
		})
	}
	t.Run("nil request", func(t *testing.T) {
		var r *DashboardExportRequest
		valCheck(t, "dashboard-export", r.Validate(), []FieldError{
			fe("dashboardId", "give exactly one of dashboardId or dashboardPublicId"), fe("format", "is required"),
		})
	})
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

func TestValidateTenantName(t *testing.T) {
	for _, name := range []string{"ab", "acme", "acme-corp-2", "a1", "a-" + strings.Repeat("b", 34)} {
		if err := ValidateTenantName(name); err != nil {
			t.Errorf("ValidateTenantName(%q) = %v", name, err)
		}
	}
	for _, name := range []string{"", "a", "1acme", "-acme", "acme-", "Acme", "acme_corp", "acme.corp", "a" + strings.Repeat("b", 36), "äcme"} {
		valCheck(t, "embed-tenant", ValidateTenantName(name), []FieldError{fe("embedTenantName", "must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$")})
	}
}

var (
	valTenantRE    = regexp.MustCompile(tenantNameRule)
	valSessionIDRE = regexp.MustCompile(sessionIDRule)
)

// TestHandWrittenMatchersEqualPatterns holds the hand-written matchers
// equal to the specification's expressions on every string of up to three
// bytes from a small alphabet, and on a few longer ones.
func TestHandWrittenMatchersEqualPatterns(t *testing.T) {
	alphabet := []string{"", "a", "z", "0", "9", "-", "A", "_", "f", "g"}
	var inputs []string
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				inputs = append(inputs, a+b+c)
			}
		}
	}
	inputs = append(inputs, strings.Repeat("a", 36), strings.Repeat("a", 37), "a"+strings.Repeat("-", 34)+"a",
		strings.Repeat("0123456789abcdef", 2), strings.Repeat("0123456789abcdef", 2)+"\n")
	for _, s := range inputs {
		if got, want := IsTenantName(s), valTenantRE.MatchString(s); got != want {
			t.Errorf("IsTenantName(%q) = %v, pattern says %v", s, got, want)
		}
		if got, want := isSessionID(s), valSessionIDRE.MatchString(s); got != want {
			t.Errorf("isSessionID(%q) = %v, pattern says %v", s, got, want)
		}
	}
}

// TestSimpleEmailAgreesWithNetMail checks that every address the fast
// path accepts, net/mail accepts unchanged.
func TestSimpleEmailAgreesWithNetMail(t *testing.T) {
	for _, s := range []string{"a@b", "a.b@c.d", "a+tag@x-y.example", "a%b_c-d@e", "A@B", "a..b@c", ".a@b", "a.@b",
		"a@b.", "a@.b", "a@b..c", "@b", "a@", "a@b@c", "a b@c", "a@b_c", "ab", "a@-", "a-@-b-"} {
		if !isSimpleEmail(s) {
			continue
		}
		a, err := mail.ParseAddress(s)
		if err != nil || a.Name != "" || a.Address != s {
			t.Errorf("isSimpleEmail(%q) = true, net/mail says %v, %v", s, a, err)
		}
	}
}

// TestSimpleLocaleAgreesWithParse checks that every tag the fast path
// accepts is well-formed for language.Parse: every two and three letter
// language, with and without a region.
func TestSimpleLocaleAgreesWithParse(t *testing.T) {
	var langs []string
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			langs = append(langs, string(a)+string(b))
			for c := 'a'; c <= 'z'; c++ {
				langs = append(langs, string(a)+string(b)+string(c))
			}
		}
	}
	for i, l := range langs {
		for _, s := range []string{l, strings.ToUpper(l), l + "-" + []string{"US", "zz", "419", "000"}[i%4]} {
			if !isSimpleLocale(s) {
				t.Fatalf("isSimpleLocale(%q) = false", s)
			}
			_, err := language.Parse(s)
			var unknown language.ValueError
			if err != nil && !errors.As(err, &unknown) {
				t.Errorf("language.Parse(%q) = %v, but the fast path accepts it", s, err)
			}
		}
	}
}

func TestHasControlChar(t *testing.T) {
	for s, want := range map[string]bool{
		"": false, "plain": false, "ünïcødé ✓": false, "tab\t": true, "del\x7f": true, "nul\x00": true,
		"c1\u0080": true, "c1\u009f": true, "nbsp\u00a0": false, "line\u2028": false,
	} {
		if got := hasControlChar(s); got != want {
			t.Errorf("hasControlChar(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestIsJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "1e9": true, "-1.5E-3": true, "1e+2": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "1e": false, "1e+": false, "+1": false,
		"NaN": false, "0x10": false, "1 ": false,
	} {
		if got := isJSONNumber(s); got != want {
			t.Errorf("isJSONNumber(%q) = %v, want %v", s, got, want)
		}
		if want {
			if !json.Valid([]byte(s)) {
				t.Errorf("json.Valid(%q) = false", s)
			}
		}
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
