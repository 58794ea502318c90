package embedkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
)

func TestClientAgainstEmulatorGenerateSession(t *testing.T) {
	ctx := context.Background()
	creator := true
	tierString := []embedkit.UserAttributeDefinition{{Name: "tier", Type: embedkit.AttributeString}}

	tests := []struct {
		name string
		key  string
		opts []embedkit.Option
		// before runs first (for example to create a catalog entry).
		before func(t *testing.T, c *embedkit.Client)
		req    embedkit.GenerateSessionRequest
		// check receives the result; nil means success is expected.
		check func(t *testing.T, e *emuEnv, s *embedkit.Session, err error)
	}{
		{
			name: "minted for an external viewer",
			key:  keyAdminAll,
			req: embedkit.GenerateSessionRequest{
				DeploymentID:   1,
				ExternalID:     "viewer-1",
				Groups:         []string{"sales", "emea"},
				UserAttributes: []embedkit.UserAttributeInput{{Name: "region", Value: "EMEA"}, {Name: "quota", Value: 12}},
				Settings:       &embedkit.EmbedSessionSettings{AllowAI: new(false), Locale: new("de-DE")},
				EmbedTheme:     &embedkit.EmbedTheme{PrimaryColor: "#0a84ff"},
			},
		},
		{
			name: "external id sent normalised",
			key:  keyAdminAll,
			req:  embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "  Dana.Smith@Example.COM \t"},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				if err != nil {
					t.Fatalf("GenerateSession: %v", err)
				}
				if got := e.sessionInfo(t, s.SessionID).ExternalID; got != "dana.smith@example.com" {
					t.Errorf("emulator recorded externalId %q, want the normalised dana.smith@example.com", got)
				}
			},
		},
		{
			name: "Api-Key scheme on the embed endpoints",
			key:  keyAdminAll,
			opts: []embedkit.Option{embedkit.WithAPIKeyHeader("Api-Key")},
			req:  embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "viewer-2"},
		},
		{
			name: "internal user",
			key:  keyAdminAll,
			req:  embedkit.GenerateSessionRequest{DeploymentID: 1, InternalID: "dana"},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				if err != nil {
					t.Fatalf("GenerateSession: %v", err)
				}
				if got := e.sessionInfo(t, s.SessionID).InternalID; got != "dana" {
					t.Errorf("emulator recorded internalId %q, want dana", got)
				}
			},
		},
		{
			name: "scoped key inside its scope",
			key:  keyAdminD1,
			req:  embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "viewer-3"},
		},
		{
			name: "served personal branch",
			key:  keyAdminAll,
			req:  embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "viewer-4", BranchName: "dev-dana"},
		},
		{
			name: "production branch by name",
			key:  keyAdminAll,
			req:  embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "viewer-5", BranchName: "main"},
		},
		{
			name: "unknown global groups",
			key:  keyAdminAll,
			req:  embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "viewer-6", Groups: []string{"sales", "ghosts", "zombies"}},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				wantAPIError(t, err, http.StatusBadRequest, "Groups with names")
				var gnf *embedkit.GroupsNotFoundError
				if !errors.As(err, &gnf) {
					t.Fatalf("errors.As(*GroupsNotFoundError) failed on %v", err)
				}
				if !slices.Equal(gnf.Names, []string{"ghosts", "zombies"}) {
					t.Errorf("missing names = %q, want [ghosts zombies]", gnf.Names)
				}
				if !errors.Is(err, embedkit.ErrGroupsNotFound) {
					t.Errorf("errors.Is(err, ErrGroupsNotFound) = false")
				}
			},
		},
		{
			name: "unknown tenant group",
			key:  keyAdminAll,
			req: embedkit.GenerateSessionRequest{
				DeploymentID: 1, ExternalID: "viewer-7", CreatorMode: &creator,
				EmbedTenantName: "globex", TenantGroups: []string{"nobody-made-this"},
			},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				var gnf *embedkit.GroupsNotFoundError
				if !errors.As(err, &gnf) || !slices.Equal(gnf.Names, []string{"nobody-made-this"}) {
					t.Fatalf("error = %v, want GroupsNotFoundError [nobody-made-this]", err)
				}
			},
		},
		{
			name: "unknown user attribute",
			key:  keyAdminAll,
			req: embedkit.GenerateSessionRequest{
				DeploymentID: 1, ExternalID: "viewer-8",
				UserAttributes: []embedkit.UserAttributeInput{{Name: "shoe_size", Value: 42}},
			},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				wantAPIError(t, err, http.StatusBadRequest, "User attributes not found")
				if !errors.Is(err, embedkit.ErrUserAttributesNotFound) {
					t.Errorf("errors.Is(err, ErrUserAttributesNotFound) = false")
				}
			},
		},
		{
			name: "creator-mode attribute type change",
			key:  keyAdminAll,
			before: func(t *testing.T, c *embedkit.Client) {
				_, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{
					DeploymentID: 1, ExternalID: "creator-1", CreatorMode: &creator,
					EmbedTenantName: "globex", UserAttributeDefinitions: tierString,
					UserAttributes: []embedkit.UserAttributeInput{{Name: "tier", Value: "gold"}},
				})
				if err != nil {
					t.Fatalf("defining tier as a string: %v", err)
				}
			},
			req: embedkit.GenerateSessionRequest{
				DeploymentID: 1, ExternalID: "creator-1", CreatorMode: &creator, EmbedTenantName: "globex",
				UserAttributeDefinitions: []embedkit.UserAttributeDefinition{{Name: "tier", Type: embedkit.AttributeNumber}},
			},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				wantAPIError(t, err, http.StatusBadRequest, "cannot change type")
				if !errors.Is(err, embedkit.ErrCannotChangeType) {
					t.Errorf("errors.Is(err, ErrCannotChangeType) = false")
				}
			},
		},
		{
			name: "personal key of a non-admin",
			key:  keyPersonal,
			req:  embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "viewer-9"},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				wantAPIError(t, err, http.StatusForbidden, "admin principal")
				if !errors.Is(err, embedkit.ErrForbidden) {
					t.Errorf("errors.Is(err, ErrForbidden) = false")
				}
			},
		},
		{
			name: "personal key of an admin",
			key:  keyAdminPersonal,
			req:  embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "viewer-9"},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				wantAPIError(t, err, http.StatusForbidden, "personal API key")
				if !errors.Is(err, embedkit.ErrForbidden) {
					t.Errorf("errors.Is(err, ErrForbidden) = false")
				}
			},
		},
		{
			name: "scoped key outside its scope",
			key:  keyAdminD1,
			req:  embedkit.GenerateSessionRequest{DeploymentID: 2, ExternalID: "viewer-10"},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				wantAPIError(t, err, http.StatusForbidden, "not scoped to deployment 2")
				if !errors.Is(err, embedkit.ErrForbidden) {
					t.Errorf("errors.Is(err, ErrForbidden) = false")
				}
			},
		},
		{
			name: "wrong key",
			key:  "ek_not_a_key_of_this_account",
			req:  embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "viewer-11"},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				wantAPIError(t, err, http.StatusUnauthorized, "invalid credential")
				if !errors.Is(err, embedkit.ErrUnauthorized) {
					t.Errorf("errors.Is(err, ErrUnauthorized) = false")
				}
				if strings.Contains(err.Error(), "ek_not_a_key_of_this_account") {
					t.Errorf("the error quotes the API key")
				}
			},
		},
		{
			name: "unknown deployment",
			key:  keyAdminAll,
			req:  embedkit.GenerateSessionRequest{DeploymentID: 99, ExternalID: "viewer-12"},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				wantAPIError(t, err, http.StatusNotFound, "deployment 99")
			},
		},
		{
			name: "unknown branch",
			key:  keyAdminAll,
			req:  embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "viewer-13", BranchName: "no-such-branch"},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				wantAPIError(t, err, http.StatusNotFound, "not a branch")
				if !errors.Is(err, embedkit.ErrNotFound) {
					t.Errorf("errors.Is(err, ErrNotFound) = false")
				}
			},
		},
		{
			name: "branch nothing serves",
			key:  keyAdminAll,
			req:  embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "viewer-14", BranchName: "q3-metrics"},
			check: func(t *testing.T, e *emuEnv, s *embedkit.Session, err error) {
				wantAPIError(t, err, http.StatusBadRequest, "not served")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startEmulator(t)
			c := e.client(t, tt.key, tt.opts...)
			if tt.before != nil {
				tt.before(t, c)
			}
			before := len(e.emu.Sessions())
			s, err := c.GenerateSession(ctx, &tt.req)
			if tt.check != nil {
				tt.check(t, e, s, err)
				if err != nil && len(e.emu.Sessions()) != before {
					t.Errorf("a failed request left %d sessions, want %d", len(e.emu.Sessions()), before)
				}
				return
			}
			if err != nil {
				t.Fatalf("GenerateSession: %v", err)
			}
			if !sessionIDPattern.MatchString(s.SessionID) {
				t.Errorf("session id is not 32 lower-case hex characters (length %d)", len(s.SessionID))
			}
			if want := emuStart.Add(embedkit.SessionLifetime); !s.ExpiresAt.Equal(want) {
				t.Errorf("ExpiresAt = %v, want %v", s.ExpiresAt, want)
			}
			si := e.sessionInfo(t, s.SessionID)
			if si.State != "unexchanged" || si.DeploymentID != tt.req.DeploymentID || !si.CreatedAt.Equal(emuStart) {
				t.Errorf("emulator session = state %s, deployment %d, created %v; want unexchanged, %d, %v",
					si.State, si.DeploymentID, si.CreatedAt, tt.req.DeploymentID, emuStart)
			}
			if strings.Contains(s.String(), s.SessionID) {
				t.Errorf("Session.String prints the id")
			}
		})
	}
}

// TestClientAgainstEmulatorSessionClaims follows what the client sends
// into the signed embed token: group memberships (omitted keeps, [] clears,
// a list replaces), tenant groups, attributes, settings, theme and the
// caller's security context.
func TestClientAgainstEmulatorSessionClaims(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)
	creator := true
	display := "Globex Corp"

	// claims mints a session, exchanges it and returns the token's claims.
	claims := func(t *testing.T, req *embedkit.GenerateSessionRequest) map[string]any {
		t.Helper()
		s, err := c.GenerateSession(ctx, req)
		if err != nil {
			t.Fatalf("GenerateSession: %v", err)
		}
		tok, err := c.ExchangeSession(ctx, s.SessionID)
		if err != nil {
			t.Fatalf("ExchangeSession: %v", err)
		}
		return jwtClaims(t, tok.Token)
	}
	groupsOf := func(c map[string]any) []string {
		sc, _ := c["securityContext"].(map[string]any)
		pc, _ := sc["platformCloud"].(map[string]any)
		list, _ := pc["groups"].([]any)
		out := []string{}
		for _, g := range list {
			out = append(out, g.(string))
		}
		return out
	}
	asJSON := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}

	t.Run("everything the request carries", func(t *testing.T) {
		got := claims(t, &embedkit.GenerateSessionRequest{
			DeploymentID:       1,
			ExternalID:         "Full.Viewer",
			Email:              "full.viewer@example.com",
			UserProfile:        &embedkit.EmbedUserProfile{DisplayName: "Full Viewer", Picture: "https://cdn.example.com/a.png"},
			EmbedTenantName:    "globex",
			EmbedTenantProfile: &embedkit.EmbedTenantProfile{DisplayName: &display},
			CreatorMode:        &creator,
			Groups:             []string{"sales"},
			UserAttributeDefinitions: []embedkit.UserAttributeDefinition{
				{Name: "beta", Type: embedkit.AttributeBoolean, DisplayName: "Beta"},
				{Name: "regions", Type: embedkit.AttributeStringArray},
				{Name: "limits", Type: embedkit.AttributeNumberArray},
			},
			UserAttributes: []embedkit.UserAttributeInput{
				{Name: "beta", Value: true},
				{Name: "regions", Value: []string{"emea", "apac"}},
				{Name: "limits", Value: []int{10, 20}},
			},
			SecurityContext: map[string]any{"tenant_id": 42, "platformCloud": map[string]any{"plan": "gold"}},
			Settings: &embedkit.EmbedSessionSettings{
				AllowAI: new(false), ShowMemberNames: new(true), Locale: new("de-DE"), Timezone: new("Europe/Berlin"),
			},
			EmbedTheme: &embedkit.EmbedTheme{
				PrimaryColor: "#0a84ff", Font: "Inter",
				Chat:          &embedkit.EmbedThemeChat{InputColor: "#fff"},
				AnalyticsChat: &embedkit.EmbedThemeAnalyticsChat{BackgroundColor: "#111", ChatInput: &embedkit.EmbedThemeChatInput{BackgroundColor: "#222", BorderColor: "#333"}},
			},
			IsEphemeral:       new(false),
			PublicDashboardID: "sales-overview",
			Roles:             []string{"viewer"},
			BranchName:        "dev-dana",
		})
		checks := []struct{ name, got, want string }{
			{"externalId", asJSON(got["externalId"]), `"full.viewer"`},
			{"email", asJSON(got["email"]), `"full.viewer@example.com"`},
			{"displayName", asJSON(got["displayName"]), `"Full Viewer"`},
			{"picture", asJSON(got["picture"]), `"https://cdn.example.com/a.png"`},
			{"tenant", asJSON(got["tenant"]), `"globex"`},
			{"creatorMode", asJSON(got["creatorMode"]), `true`},
			{"branchName", asJSON(got["branchName"]), `"dev-dana"`},
			{"attributes", asJSON(got["attributes"]), `{"beta":true,"limits":[10,20],"regions":["emea","apac"]}`},
			{"securityContext", asJSON(got["securityContext"]), `{"platformCloud":{"groups":["sales"],"plan":"gold"},"tenant_id":42}`},
			{"settings", asJSON(got["settings"]), `{"allowAi":false,"locale":"de-DE","showMemberNames":true,"timezone":"Europe/Berlin"}`},
			{"theme", asJSON(got["theme"]), `{"analyticsChat":{"backgroundColor":"#111","chatInput":{"backgroundColor":"#222","borderColor":"#333"}},"chat":{"inputColor":"#fff"},"font":"Inter","primaryColor":"#0a84ff"}`},
		}
		for _, ck := range checks {
			if ck.got != ck.want {
				t.Errorf("claim %s = %s, want %s", ck.name, ck.got, ck.want)
			}
		}
	})

	t.Run("unchecked settings fall through", func(t *testing.T) {
		// An unshipped language and a bare UTC offset do not fail the
		// session on either side.
		got := claims(t, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "tz",
			Settings: &embedkit.EmbedSessionSettings{Locale: new("tlh"), Timezone: new("+02:00")}})
		if s := asJSON(got["settings"]); s != `{"locale":"tlh","timezone":"+02:00"}` {
			t.Errorf("settings = %s", s)
		}
	})

	steps := []struct {
		name   string
		groups []string
		want   []string
	}{
		{"a list sets memberships", []string{"sales", "emea"}, []string{"sales", "emea"}},
		{"omitted keeps them", nil, []string{"sales", "emea"}},
		{"a list replaces them", []string{"apac"}, []string{"apac"}},
		{"an empty list clears them", []string{}, []string{}},
		{"omitted keeps them cleared", nil, []string{}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			got := groupsOf(claims(t, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "member", Groups: st.groups}))
			if !slices.Equal(got, st.want) {
				t.Errorf("platformCloud.groups = %q, want %q", got, st.want)
			}
		})
	}

	t.Run("tenant groups in the security context", func(t *testing.T) {
		got := groupsOf(claims(t, &embedkit.GenerateSessionRequest{
			DeploymentID: 1, ExternalID: "tenant-member", CreatorMode: &creator, EmbedTenantName: "globex",
			Groups: []string{"sales"}, TenantGroups: []string{"sales"},
			TenantGroupDefinitions: []embedkit.GroupDefinition{{Name: "sales"}},
		}))
		if want := []string{"sales", "system:tenant:globex:group:sales"}; !slices.Equal(got, want) {
			t.Errorf("platformCloud.groups = %q, want %q", got, want)
		}
	})

	t.Run("null attribute value clears it", func(t *testing.T) {
		first := claims(t, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "attr",
			UserAttributes: []embedkit.UserAttributeInput{{Name: "region", Value: "EMEA"}, {Name: "quota", Value: 7.5}}})
		if a := asJSON(first["attributes"]); a != `{"quota":7.5,"region":"EMEA"}` {
			t.Errorf("attributes = %s", a)
		}
		second := claims(t, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "attr",
			UserAttributes: []embedkit.UserAttributeInput{{Name: "region", Value: nil}}})
		if a := asJSON(second["attributes"]); a != `{"quota":7.5}` {
			t.Errorf("attributes after clearing region = %s", a)
		}
	})

	t.Run("attribute of the wrong type", func(t *testing.T) {
		_, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "attr",
			UserAttributes: []embedkit.UserAttributeInput{{Name: "quota", Value: "lots"}}})
		wantAPIError(t, err, http.StatusBadRequest, "userAttributes[0].value")
	})
}

// TestClientAgainstEmulatorAccountFlags runs the client against accounts
// whose plan or settings switch features off.
func TestClientAgainstEmulatorAccountFlags(t *testing.T) {
	ctx := context.Background()
	creator := true
	tests := []struct {
		name   string
		change func(f *emulator.Fixture)
		run    func(t *testing.T, e *emuEnv, c *embedkit.Client) error
		status int
		msg    string
	}{
		{"embedding off: generate", func(f *emulator.Fixture) { f.Embedding = false },
			func(t *testing.T, e *emuEnv, c *embedkit.Client) error {
				_, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "v"})
				return err
			}, http.StatusForbidden, "embedding is not enabled"},
		{"embedding off: revoke", func(f *emulator.Fixture) { f.Embedding = false },
			func(t *testing.T, e *emuEnv, c *embedkit.Client) error {
				return c.RevokeSession(ctx, strings.Repeat("a", 32))
			}, http.StatusForbidden, "embedding is not enabled"},
		{"creator mode off", func(f *emulator.Fixture) { f.CreatorMode = false },
			func(t *testing.T, e *emuEnv, c *embedkit.Client) error {
				_, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "v", CreatorMode: &creator})
				return err
			}, http.StatusBadRequest, "creatorMode"},
		{"audit log off", func(f *emulator.Fixture) { f.AuditLog = false },
			func(t *testing.T, e *emuEnv, c *embedkit.Client) error {
				_, err := c.ExportAuditLog(ctx, embedkit.AuditLogOptions{})
				return err
			}, http.StatusForbidden, "audit log feature"},
		{"data downloads restricted", func(f *emulator.Fixture) { f.DataDownloadsRestricted = true },
			func(t *testing.T, e *emuEnv, c *embedkit.Client) error {
				_, err := c.SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPDF})
				return err
			}, http.StatusForbidden, "restricted"},
		{"external user limit", func(f *emulator.Fixture) { f.MaxExternalUsers = 1 },
			func(t *testing.T, e *emuEnv, c *embedkit.Client) error {
				e.mustSession(t, c, "first")
				e.mustSession(t, c, "first")
				_, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "second"})
				return err
			}, http.StatusBadRequest, "limit of 1 external users"},
		{"tokens without the revocation claim outlive revoke", func(f *emulator.Fixture) { f.RevocationClaim = false },
			func(t *testing.T, e *emuEnv, c *embedkit.Client) error {
				s := e.mustSession(t, c, "old-token")
				tok, err := c.ExchangeSession(ctx, s.SessionID)
				if err != nil {
					t.Fatalf("ExchangeSession: %v", err)
				}
				if err := c.RevokeSession(ctx, s.SessionID); err != nil {
					t.Fatalf("RevokeSession: %v", err)
				}
				if got := e.sessionInfo(t, s.SessionID).State; got != "exchanged" {
					t.Errorf("state after revoke = %s, want exchanged", got)
				}
				// Still a valid credential (403: an external viewer is no
				// admin), not a revoked one (401).
				return e.client(t, tok.Token).RevokeSession(ctx, s.SessionID)
			}, http.StatusForbidden, "admin principal"},
	}
	e := startEmulator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := emuFixture()
			tt.change(f)
			if err := e.emu.Reset(f); err != nil {
				t.Fatalf("Reset: %v", err)
			}
			wantAPIError(t, tt.run(t, e, e.client(t, keyAdminAll)), tt.status, tt.msg)
		})
	}
}

// TestClientAgainstEmulatorGenerateSessionValidation checks that what the
// client refuses never reaches the platform, and that the emulator, sent
// the same body directly, refuses it too, naming the same field.
func TestClientAgainstEmulatorGenerateSessionValidation(t *testing.T) {
	ctx := context.Background()
	creator := true
	tests := []struct {
		name  string
		req   embedkit.GenerateSessionRequest
		field string
	}{
		{"deploymentId missing", embedkit.GenerateSessionRequest{ExternalID: "v"}, "deploymentId"},
		{"neither id", embedkit.GenerateSessionRequest{DeploymentID: 1}, "externalId"},
		{"both ids", embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "v", InternalID: "dana"}, "externalId"},
		{"blank external id", embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "   "}, "externalId"},
		{"groups with internalId", embedkit.GenerateSessionRequest{DeploymentID: 1, InternalID: "dana", Groups: []string{"sales"}}, "groups"},
		{"securityContext with internalId", embedkit.GenerateSessionRequest{DeploymentID: 1, InternalID: "dana", SecurityContext: map[string]any{"a": 1}}, "securityContext"},
		{"tenant name pattern", embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "v", EmbedTenantName: "Globex"}, "embedTenantName"},
		{"tenantGroups without creator mode", embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "v", EmbedTenantName: "globex", TenantGroups: []string{"editors"}}, "tenantGroups"},
		{"tenantGroupDefinitions without tenant", embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "v", CreatorMode: &creator, TenantGroupDefinitions: []embedkit.GroupDefinition{{Name: "editors"}}}, "tenantGroupDefinitions"},
		{"attribute definitions without creator mode", embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "v", UserAttributeDefinitions: []embedkit.UserAttributeDefinition{{Name: "tier", Type: embedkit.AttributeString}}}, "userAttributeDefinitions"},
		{"unknown attribute type", embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "v", CreatorMode: &creator, UserAttributeDefinitions: []embedkit.UserAttributeDefinition{{Name: "tier", Type: "date"}}}, "userAttributeDefinitions[0].type"},
		{"duplicate attribute names", embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "v", UserAttributes: []embedkit.UserAttributeInput{{Name: "region", Value: "a"}, {Name: "region", Value: "b"}}}, "userAttributes[1].name"},
		{"picture not a URL", embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "v", UserProfile: &embedkit.EmbedUserProfile{Picture: "avatar.png"}}, "userProfile.picture"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startEmulator(t)
			c := e.client(t, keyAdminAll)
			before := len(e.emu.Requests())
			_, err := c.GenerateSession(ctx, &tt.req)
			wantValidation(t, err, tt.field)
			if n := len(e.emu.Requests()); n != before {
				t.Fatalf("the client sent %d requests for an invalid session request, want none", n-before)
			}
			// The emulator, sent the body as it stands, agrees.
			hreq, err := c.NewRequest(ctx, http.MethodPost, "/api/v1/embed/generate-session", &tt.req)
			if err != nil {
				t.Fatalf("NewRequest: %v", err)
			}
			_, err = c.Do(hreq, nil)
			ae := wantAPIError(t, err, http.StatusBadRequest, "")
			// The emulator names the list where the client names the
			// element: compare up to the first index.
			list, _, _ := strings.Cut(tt.field, "[")
			if !strings.HasPrefix(ae.Message, list) {
				t.Errorf("emulator message %q does not name the field %s", ae.Message, list)
			}
			if len(e.emu.Sessions()) != 0 {
				t.Errorf("the emulator minted a session for an invalid request")
			}
		})
	}
}

func TestClientAgainstEmulatorSessionLifecycle(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// between runs after minting and before the exchange under test.
		between func(t *testing.T, e *emuEnv, c *embedkit.Client, id string)
		// wantToken says the exchange under test succeeds.
		wantToken bool
		state     string
	}{
		{name: "exchanged once", wantToken: true, state: "exchanged"},
		{
			name: "exchanged twice",
			between: func(t *testing.T, e *emuEnv, c *embedkit.Client, id string) {
				if _, err := c.ExchangeSession(ctx, id); err != nil {
					t.Fatalf("first exchange: %v", err)
				}
			},
			state: "exchanged",
		},
		{
			name: "exchanged just before the window closes",
			between: func(t *testing.T, e *emuEnv, c *embedkit.Client, id string) {
				e.emu.Advance(embedkit.SessionLifetime - time.Second)
			},
			wantToken: true,
			state:     "exchanged",
		},
		{
			name: "exchanged after five minutes",
			between: func(t *testing.T, e *emuEnv, c *embedkit.Client, id string) {
				e.emu.Advance(embedkit.SessionLifetime + time.Second)
			},
			state: "expired",
		},
		{
			name: "exchanged after revoke",
			between: func(t *testing.T, e *emuEnv, c *embedkit.Client, id string) {
				if err := c.RevokeSession(ctx, id); err != nil {
					t.Fatalf("RevokeSession: %v", err)
				}
			},
			state: "revoked",
		},
		{
			name: "revoked by a key scoped to another deployment",
			between: func(t *testing.T, e *emuEnv, c *embedkit.Client, id string) {
				if err := e.client(t, keyAdminD1).RevokeSession(ctx, id); err != nil {
					t.Fatalf("RevokeSession: %v", err)
				}
			},
			state: "revoked",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startEmulator(t)
			c := e.client(t, keyAdminAll)
			// Minted for deployment 2 so that the d1-scoped key's revoke
			// shows the scope is not checked.
			s, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 2, ExternalID: "lifecycle"})
			if err != nil {
				t.Fatalf("GenerateSession: %v", err)
			}
			if tt.between != nil {
				tt.between(t, e, c, s.SessionID)
			}
			tok, err := c.ExchangeSession(ctx, s.SessionID)
			if tt.wantToken {
				if err != nil {
					t.Fatalf("ExchangeSession: %v", err)
				}
				claims := jwtClaims(t, tok.Token)
				if claims["externalId"] != "lifecycle" || claims["deploymentId"] != float64(2) {
					t.Errorf("token claims externalId %v, deploymentId %v; want lifecycle, 2", claims["externalId"], claims["deploymentId"])
				}
				if got := lifetime(t, tok.Token); got != int64(embedkit.EmbedTokenLifetime/time.Second) {
					t.Errorf("token lifetime = %ds, want %v", got, embedkit.EmbedTokenLifetime)
				}
				if strings.Contains(tok.String(), tok.Token) {
					t.Errorf("EmbedToken.String prints the token")
				}
			} else {
				wantAPIError(t, err, http.StatusUnauthorized, "session is unknown, expired, already exchanged or revoked")
				if !errors.Is(err, embedkit.ErrUnauthorized) {
					t.Errorf("errors.Is(err, ErrUnauthorized) = false")
				}
				if strings.Contains(err.Error(), s.SessionID) {
					t.Errorf("the error quotes the session id")
				}
			}
			if got := e.sessionInfo(t, s.SessionID).State; got != tt.state {
				t.Errorf("emulator state = %s, want %s", got, tt.state)
			}
		})
	}

	t.Run("revoke of unknown, expired and revoked ids", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll, embedkit.WithAPIKeyHeader("Api-Key"))
		s := e.mustSession(t, c, "revoker")
		if err := c.RevokeSession(ctx, strings.Repeat("0", 32)); err != nil {
			t.Errorf("revoke of an unknown id: %v", err)
		}
		if err := c.RevokeSession(ctx, s.SessionID); err != nil {
			t.Errorf("revoke: %v", err)
		}
		if err := c.RevokeSession(ctx, s.SessionID); err != nil {
			t.Errorf("second revoke: %v", err)
		}
		e.emu.Advance(time.Hour)
		if err := c.RevokeSession(ctx, s.SessionID); err != nil {
			t.Errorf("revoke after expiry: %v", err)
		}
		for _, r := range e.emu.Requests() {
			if r.Path == "/api/v1/embed/session/revoke" && r.Status != http.StatusNoContent {
				t.Errorf("revoke answered %d, want 204", r.Status)
			}
		}
	})

	t.Run("revoke after exchange rejects the token", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		s := e.mustSession(t, c, "exchanged-then-revoked")
		tok, err := c.ExchangeSession(ctx, s.SessionID)
		if err != nil {
			t.Fatalf("ExchangeSession: %v", err)
		}
		if err := c.RevokeSession(ctx, s.SessionID); err != nil {
			t.Fatalf("RevokeSession: %v", err)
		}
		if got := e.sessionInfo(t, s.SessionID).State; got != "revoked" {
			t.Errorf("state = %s, want revoked", got)
		}
		// The revoked token no longer authenticates (revoke accepts embed
		// tokens as credentials).
		tc := e.client(t, tok.Token)
		err = tc.RevokeSession(ctx, s.SessionID)
		wantAPIError(t, err, http.StatusUnauthorized, "revoked")
	})

	t.Run("client refuses malformed ids before sending", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		for _, id := range []string{"", "ABCDEF0123456789ABCDEF0123456789", "short"} {
			wantValidation(t, c.RevokeSession(ctx, id), "sessionId")
			_, err := c.ExchangeSession(ctx, id)
			wantValidation(t, err, "sessionId")
		}
		if n := len(e.emu.Requests()); n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
	})
}
