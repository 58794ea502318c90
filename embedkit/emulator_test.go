package embedkit_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
)

// These tests run the client against the in-memory platform, operation by
// operation: the client was written against the specification and tested
// with hand-written handlers, the emulator was written against the same
// specification and tested with raw HTTP. Here each one checks the other.

// The dev-only keys of the emulator's demo fixture.
const (
	keyAdminAll = "ek_dev_only_admin_all"
	keyAdminD1  = "ek_dev_only_admin_d1"
	keyPersonal = "ek_dev_only_personal"
	// keyAdminPersonal is a personal key of the admin user, added by
	// emuFixture: admin rights, but personal keys cannot mint sessions.
	keyAdminPersonal = "ek_test_admin_personal"
)

// emuClock is a virtual wall clock shared by the emulator (as its base
// clock) and the client, so expiries computed on both sides line up. It
// stands still unless a test moves it; the emulator's Advance moves only
// the emulator.
type emuClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *emuClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// emuEnv is an emulator behind an httptest server, with the shared clock.
type emuEnv struct {
	emu   *emulator.Server
	url   string
	clock *emuClock
}

// emuStart is the instant the shared clock shows in every test.
var emuStart = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

// emuFixture is the demo fixture with two more deployments, so that
// offset pagination has pages to turn and the d1-scoped key has a
// deployment outside its scope, and with a personal key of the admin.
func emuFixture() *emulator.Fixture {
	f := emulator.DemoFixture()
	f.APIKeys = append(f.APIKeys, emulator.APIKey{Key: keyAdminPersonal, User: "admin", Personal: true})
	f.Deployments = append(f.Deployments,
		emulator.Deployment{ID: 2, Name: "Finance", CreatedAt: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)},
		emulator.Deployment{ID: 3, Name: "Operations", CreatedAt: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)},
	)
	return f
}

// startEmulator serves a fresh emulator with emuFixture for one test.
func startEmulator(t *testing.T) *emuEnv {
	t.Helper()
	clk := &emuClock{now: emuStart}
	emu, err := emulator.New(emuFixture(), emulator.WithClock(clk.Now))
	if err != nil {
		t.Fatalf("emulator.New: %v", err)
	}
	ts := httptest.NewServer(emu)
	t.Cleanup(ts.Close)
	return &emuEnv{emu: emu, url: ts.URL, clock: clk}
}

// client returns a client of the emulator with key, sharing the clock,
// polling exports quickly and never retrying (every answer the tests
// expect is the first one).
func (e *emuEnv) client(t *testing.T, key string, opts ...embedkit.Option) *embedkit.Client {
	t.Helper()
	base := []embedkit.Option{
		embedkit.WithClock(e.clock.Now),
		embedkit.WithExportPollInterval(time.Millisecond, 5*time.Millisecond),
		embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 1}),
	}
	c, err := embedkit.New(e.url, key, append(base, opts...)...)
	if err != nil {
		t.Fatalf("embedkit.New: %v", err)
	}
	return c
}

// mustSession mints a session for an external viewer of deployment 1.
func (e *emuEnv) mustSession(t *testing.T, c *embedkit.Client, externalID string) *embedkit.Session {
	t.Helper()
	s, err := c.GenerateSession(context.Background(), &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: externalID})
	if err != nil {
		t.Fatalf("GenerateSession: %v", err)
	}
	return s
}

// sessionInfo returns the emulator's record of a session id.
func (e *emuEnv) sessionInfo(t *testing.T, id string) emulator.SessionInfo {
	t.Helper()
	for _, si := range e.emu.Sessions() {
		if si.SessionID == id {
			return si
		}
	}
	t.Fatalf("the emulator holds no session with the minted id (%d sessions)", len(e.emu.Sessions()))
	return emulator.SessionInfo{}
}

// wantAPIError checks that err is an *APIError with status and a message
// containing msg.
func wantAPIError(t *testing.T, err error, status int, msg string) *embedkit.APIError {
	t.Helper()
	var ae *embedkit.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error = %v (%T), want *embedkit.APIError %d", err, err, status)
	}
	if ae.StatusCode != status {
		t.Fatalf("status = %d (%s), want %d", ae.StatusCode, ae.Message, status)
	}
	if !strings.Contains(ae.Message, msg) {
		t.Fatalf("message = %q, want it to contain %q", ae.Message, msg)
	}
	return ae
}

// wantValidation checks that err is a *ValidationError naming field.
func wantValidation(t *testing.T, err error, field string) {
	t.Helper()
	var ve *embedkit.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v (%T), want *embedkit.ValidationError", err, err)
	}
	if !errors.Is(err, embedkit.ErrInvalidRequest) {
		t.Fatalf("errors.Is(%v, ErrInvalidRequest) = false", err)
	}
	if _, ok := ve.Field(field); !ok {
		t.Fatalf("validation error %v does not name %s", err, field)
	}
}

// jwtClaims decodes the payload of a signed token without verifying it;
// the tests read lifetimes out of it and never print it.
func jwtClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts, want 3", len(parts))
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("token payload is not base64url: %v", err)
	}
	var claims map[string]any
	if err := json.Unmarshal(raw, &claims); err != nil {
		t.Fatalf("token payload is not JSON: %v", err)
	}
	return claims
}

// lifetime is exp − iat of a token, in seconds.
func lifetime(t *testing.T, token string) int64 {
	t.Helper()
	c := jwtClaims(t, token)
	exp, _ := c["exp"].(float64)
	iat, _ := c["iat"].(float64)
	return int64(exp - iat)
}

var sessionIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

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

func TestClientAgainstEmulatorTenantGroups(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)
	creator := true
	desc := "Can edit"
	names := []string{"editors", "viewers", "auditors"}
	_, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{
		DeploymentID: 1, ExternalID: "tenant-admin", CreatorMode: &creator, EmbedTenantName: "globex",
		TenantGroups: names,
		TenantGroupDefinitions: []embedkit.GroupDefinition{
			{Name: "editors", Description: &desc}, {Name: "viewers"}, {Name: "auditors"},
		},
	})
	if err != nil {
		t.Fatalf("GenerateSession with tenantGroupDefinitions: %v", err)
	}

	// One group per page, following the cursor.
	var paged []embedkit.TenantGroup
	opts := embedkit.CursorOptions{First: 1}
	for range 10 {
		page, err := c.ListTenantGroups(ctx, "globex", opts)
		if err != nil {
			t.Fatalf("ListTenantGroups: %v", err)
		}
		if len(page.Items) != 1 {
			t.Fatalf("page has %d items, want 1", len(page.Items))
		}
		paged = append(paged, page.Items...)
		if !page.PageInfo.HasNextPage {
			break
		}
		if page.PageInfo.EndCursor == "" {
			t.Fatalf("page with a next page has no end cursor")
		}
		opts.After = page.PageInfo.EndCursor
	}
	var pagedNames []string
	for _, g := range paged {
		pagedNames = append(pagedNames, g.Name)
		if g.ID == "" || len(g.Raw) == 0 {
			t.Errorf("group %s: ID %q, Raw %d bytes; want both set", g.Name, g.ID, len(g.Raw))
		}
	}
	if !slices.Equal(pagedNames, names) {
		t.Fatalf("paged groups = %q, want %q", pagedNames, names)
	}
	if paged[0].Description != desc {
		t.Errorf("editors description = %q, want %q", paged[0].Description, desc)
	}

	var iterated []string
	for g, err := range c.TenantGroups(ctx, "globex") {
		if err != nil {
			t.Fatalf("TenantGroups: %v", err)
		}
		iterated = append(iterated, g.Name)
	}
	if !slices.Equal(iterated, names) {
		t.Fatalf("iterated groups = %q, want %q", iterated, names)
	}

	if err := c.DeleteTenantGroup(ctx, "globex", paged[1].ID); err != nil {
		t.Fatalf("DeleteTenantGroup: %v", err)
	}
	page, err := c.ListTenantGroups(ctx, "globex", embedkit.CursorOptions{})
	if err != nil {
		t.Fatalf("ListTenantGroups after delete: %v", err)
	}
	if len(page.Items) != 2 || page.Items[0].Name != "editors" || page.Items[1].Name != "auditors" || page.PageInfo.HasNextPage {
		t.Errorf("after delete: %d items, hasNextPage %v; want editors and auditors only", len(page.Items), page.PageInfo.HasNextPage)
	}

	errTests := []struct {
		name   string
		run    func() error
		status int
		msg    string
	}{
		{"delete an unknown group", func() error { return c.DeleteTenantGroup(ctx, "globex", paged[1].ID) }, http.StatusNotFound, "not found"},
		{"list an unknown tenant", func() error {
			_, err := c.ListTenantGroups(ctx, "initech", embedkit.CursorOptions{})
			return err
		}, http.StatusNotFound, "embed tenant initech not found"},
		{"list with a personal key", func() error {
			_, err := e.client(t, keyPersonal).ListTenantGroups(ctx, "globex", embedkit.CursorOptions{})
			return err
		}, http.StatusForbidden, "admin"},
		{"list with a foreign cursor", func() error {
			_, err := c.ListTenantGroups(ctx, "globex", embedkit.CursorOptions{After: "not-a-cursor"})
			return err
		}, http.StatusBadRequest, "after"},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, tt.run(), tt.status, tt.msg)
		})
	}

	t.Run("client refuses bad tenant names and ids before sending", func(t *testing.T) {
		before := len(e.emu.Requests())
		_, err := c.ListTenantGroups(ctx, "Globex", embedkit.CursorOptions{})
		wantValidation(t, err, "embedTenantName")
		wantValidation(t, c.DeleteTenantGroup(ctx, "globex", " "), "id")
		_, err = c.ListTenantGroups(ctx, "globex", embedkit.CursorOptions{First: -1})
		wantValidation(t, err, "first")
		if n := len(e.emu.Requests()) - before; n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
	})
}

func TestClientAgainstEmulatorDeployments(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)

	want := []embedkit.Deployment{
		{ID: 1, Name: "Sales analytics", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		{ID: 2, Name: "Finance", CreatedAt: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)},
		{ID: 3, Name: "Operations", CreatedAt: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)},
	}
	sameDeployment := func(a, b embedkit.Deployment) bool {
		return a.ID == b.ID && a.Name == b.Name && a.CreatedAt.Equal(b.CreatedAt)
	}

	t.Run("pages of one", func(t *testing.T) {
		var got []embedkit.Deployment
		for offset := 0; ; offset++ {
			page, err := c.ListDeployments(ctx, embedkit.ListOptions{Offset: offset, Limit: 1})
			if err != nil {
				t.Fatalf("ListDeployments offset %d: %v", offset, err)
			}
			if page.Pagination != (embedkit.Pagination{Offset: offset, Limit: 1, Total: 3}) {
				t.Errorf("pagination = %+v, want offset %d, limit 1, total 3", page.Pagination, offset)
			}
			if len(page.Deployments) == 0 {
				break
			}
			got = append(got, page.Deployments...)
		}
		if !slices.EqualFunc(got, want, sameDeployment) {
			t.Errorf("paged deployments = %+v, want %+v", got, want)
		}
	})

	t.Run("default page", func(t *testing.T) {
		page, err := c.ListDeployments(ctx, embedkit.ListOptions{})
		if err != nil {
			t.Fatalf("ListDeployments: %v", err)
		}
		if page.Pagination != (embedkit.Pagination{Offset: 0, Limit: 20, Total: 3}) || len(page.Deployments) != 3 {
			t.Errorf("default page = %d items, %+v; want 3 items, offset 0, limit 20, total 3", len(page.Deployments), page.Pagination)
		}
	})

	t.Run("iterator", func(t *testing.T) {
		before := len(e.emu.Requests())
		var got []embedkit.Deployment
		for d, err := range c.Deployments(ctx) {
			if err != nil {
				t.Fatalf("Deployments: %v", err)
			}
			got = append(got, d)
		}
		if !slices.EqualFunc(got, want, sameDeployment) {
			t.Errorf("iterated deployments = %+v, want %+v", got, want)
		}
		if n := len(e.emu.Requests()) - before; n != 1 {
			t.Errorf("the iterator sent %d requests for 3 deployments, want 1", n)
		}
	})

	t.Run("scoped key sees its deployment only", func(t *testing.T) {
		var got []int64
		for d, err := range e.client(t, keyAdminD1).Deployments(ctx) {
			if err != nil {
				t.Fatalf("Deployments: %v", err)
			}
			got = append(got, d.ID)
		}
		if !slices.Equal(got, []int64{1}) {
			t.Errorf("scoped key lists %v, want [1]", got)
		}
	})

	t.Run("iteration stops at the first error", func(t *testing.T) {
		n := 0
		for _, err := range e.client(t, "ek_unknown").Deployments(ctx) {
			n++
			if !errors.Is(err, embedkit.ErrUnauthorized) {
				t.Errorf("error = %v, want ErrUnauthorized", err)
			}
		}
		if n != 1 {
			t.Errorf("iterator yielded %d times, want once", n)
		}
	})
}

func TestClientAgainstEmulatorEnvironments(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)

	envIDs := func(t *testing.T, typ embedkit.EnvironmentType) []string {
		t.Helper()
		var ids []string
		for env, err := range c.Environments(ctx, 1, typ) {
			if err != nil {
				t.Fatalf("Environments: %v", err)
			}
			ids = append(ids, env.ID)
		}
		return ids
	}

	page, err := c.ListEnvironments(ctx, 1, embedkit.EnvironmentListOptions{})
	if err != nil {
		t.Fatalf("ListEnvironments: %v", err)
	}
	if len(page.Environments) != 2 || page.Pagination.Total != 2 {
		t.Fatalf("environments = %d, total %d; want 2, 2", len(page.Environments), page.Pagination.Total)
	}
	prod := page.Environments[0]
	if prod != (embedkit.Environment{ID: "env-prod", Name: "Production", Type: embedkit.EnvironmentProduction,
		RESTURL: "https://acme.example/api/data/v1", SQLHost: "sql.acme.example", SQLPort: 5432}) {
		t.Errorf("production environment = %+v", prod)
	}

	typeTests := []struct {
		typ  embedkit.EnvironmentType
		want []string
	}{
		{embedkit.EnvironmentProduction, []string{"env-prod"}},
		{embedkit.EnvironmentDevelopment, []string{"env-dev"}},
		{embedkit.EnvironmentStaging, nil},
	}
	for _, tt := range typeTests {
		t.Run("type "+string(tt.typ), func(t *testing.T) {
			if got := envIDs(t, tt.typ); !slices.Equal(got, tt.want) {
				t.Errorf("environments of type %s = %q, want %q", tt.typ, got, tt.want)
			}
		})
	}

	t.Run("page of one", func(t *testing.T) {
		page, err := c.ListEnvironments(ctx, 1, embedkit.EnvironmentListOptions{ListOptions: embedkit.ListOptions{Offset: 1, Limit: 1}})
		if err != nil {
			t.Fatalf("ListEnvironments: %v", err)
		}
		if len(page.Environments) != 1 || page.Environments[0].ID != "env-dev" || page.Pagination != (embedkit.Pagination{Offset: 1, Limit: 1, Total: 2}) {
			t.Errorf("page = %+v", page)
		}
	})

	t.Run("staging environment of a shared branch", func(t *testing.T) {
		br, err := c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: true, BranchName: "q3-metrics"})
		if err != nil {
			t.Fatalf("SetStagingEnvironment: %v", err)
		}
		if br.ID != 2 || br.Name != "q3-metrics" || !br.IsStagingEnvironmentEnabled {
			t.Errorf("branch = %+v, want id 2, q3-metrics, enabled", br)
		}
		page, err := c.ListEnvironments(ctx, 1, embedkit.EnvironmentListOptions{Type: embedkit.EnvironmentStaging})
		if err != nil {
			t.Fatalf("ListEnvironments staging: %v", err)
		}
		if len(page.Environments) != 1 {
			t.Fatalf("staging environments = %d, want 1", len(page.Environments))
		}
		if st := page.Environments[0]; st.Type != embedkit.EnvironmentStaging || st.ID != "staging-q3-metrics" || st.RESTURL == "" {
			t.Errorf("staging environment = %+v", st)
		}
		if got := envIDs(t, ""); !slices.Equal(got, []string{"env-prod", "env-dev", "staging-q3-metrics"}) {
			t.Errorf("all environments = %q", got)
		}
		// An enabled staging environment serves the branch, so sessions
		// may now query it.
		if _, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "v", BranchName: "q3-metrics"}); err != nil {
			t.Errorf("GenerateSession on the staging branch: %v", err)
		}
		// Metadata tokens can be issued for it.
		if _, err := c.CreateMetaToken(ctx, 1, "staging-q3-metrics", &embedkit.MetaTokenRequest{SecurityContext: map[string]any{}}); err != nil {
			t.Errorf("CreateMetaToken for the staging environment: %v", err)
		}

		br, err = c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: false, BranchID: 2})
		if err != nil {
			t.Fatalf("SetStagingEnvironment disable by id: %v", err)
		}
		if br.IsStagingEnvironmentEnabled {
			t.Errorf("branch still enabled after disable")
		}
		if got := envIDs(t, embedkit.EnvironmentStaging); got != nil {
			t.Errorf("staging environments after disable = %q, want none", got)
		}
	})

	errTests := []struct {
		name   string
		run    func() error
		status int
		msg    string
	}{
		{"personal branch", func() error {
			_, err := c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: true, BranchName: "dev-dana"})
			return err
		}, http.StatusBadRequest, "personal branch"},
		{"production branch", func() error {
			_, err := c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: true, BranchID: 1})
			return err
		}, http.StatusBadRequest, "production branch"},
		{"unknown branch", func() error {
			_, err := c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: true, BranchName: "nope"})
			return err
		}, http.StatusNotFound, "not a branch"},
		{"environments of an unknown deployment", func() error {
			_, err := c.ListEnvironments(ctx, 42, embedkit.EnvironmentListOptions{})
			return err
		}, http.StatusNotFound, "deployment 42"},
		{"environments outside the key's scope", func() error {
			_, err := e.client(t, keyAdminD1).ListEnvironments(ctx, 2, embedkit.EnvironmentListOptions{})
			return err
		}, http.StatusForbidden, "not scoped"},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, tt.run(), tt.status, tt.msg)
		})
	}

	t.Run("client refuses bad requests before sending", func(t *testing.T) {
		before := len(e.emu.Requests())
		_, err := c.ListEnvironments(ctx, 1, embedkit.EnvironmentListOptions{Type: "qa"})
		wantValidation(t, err, "type")
		_, err = c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: true, BranchName: "q3-metrics", BranchID: 2})
		wantValidation(t, err, "branchName")
		_, err = c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: true})
		wantValidation(t, err, "branchName")
		if n := len(e.emu.Requests()) - before; n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
	})
}

func TestClientAgainstEmulatorTokens(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)

	metaTests := []struct {
		name string
		req  embedkit.MetaTokenRequest
		want time.Duration
	}{
		{"default lifetime", embedkit.MetaTokenRequest{SecurityContext: map[string]any{}}, 86400 * time.Second},
		{"ten minutes", embedkit.MetaTokenRequest{SecurityContext: map[string]any{"tenant": "globex"}, ExpiresIn: 600}, 10 * time.Minute},
	}
	for _, tt := range metaTests {
		t.Run("meta token "+tt.name, func(t *testing.T) {
			tok, err := c.CreateMetaToken(ctx, 1, "env-prod", &tt.req)
			if err != nil {
				t.Fatalf("CreateMetaToken: %v", err)
			}
			if !tok.CreatedAt.Equal(emuStart) {
				t.Errorf("created_at = %v, want %v", tok.CreatedAt, emuStart)
			}
			if got := tok.ExpiresAt.Sub(tok.CreatedAt); got != tt.want {
				t.Errorf("expires_at − created_at = %v, want %v", got, tt.want)
			}
			if got := lifetime(t, tok.Token); got != int64(tt.want/time.Second) {
				t.Errorf("token lifetime = %ds, want %v", got, tt.want)
			}
			if strings.Contains(tok.String(), tok.Token) {
				t.Errorf("MetaToken.String prints the token")
			}
		})
	}

	dataTests := []struct {
		name string
		req  *embedkit.DataAPITokenRequest
		want int64
	}{
		{"no body", nil, 86400},
		{"lower bound", &embedkit.DataAPITokenRequest{ExpiresIn: 60}, 60},
		{"upper bound", &embedkit.DataAPITokenRequest{ExpiresIn: 86400}, 86400},
		{"default", &embedkit.DataAPITokenRequest{}, 86400},
	}
	for _, tt := range dataTests {
		t.Run("data token "+tt.name, func(t *testing.T) {
			tok, err := c.CreateDataAPIToken(ctx, 1, tt.req)
			if err != nil {
				t.Fatalf("CreateDataAPIToken: %v", err)
			}
			if got := lifetime(t, tok.Token); got != tt.want {
				t.Errorf("token lifetime = %ds, want %ds", got, tt.want)
			}
			if strings.Contains(tok.String(), tok.Token) {
				t.Errorf("DataAPIToken.String prints the token")
			}
		})
	}

	t.Run("data token survives session revocation", func(t *testing.T) {
		tok, err := c.CreateDataAPIToken(ctx, 1, nil)
		if err != nil {
			t.Fatalf("CreateDataAPIToken: %v", err)
		}
		s := e.mustSession(t, c, "data-user")
		if err := c.RevokeSession(ctx, s.SessionID); err != nil {
			t.Fatalf("RevokeSession: %v", err)
		}
		// A data token is not an embed token: it never authenticates a
		// management call.
		err = e.client(t, tok.Token).RevokeSession(ctx, s.SessionID)
		wantAPIError(t, err, http.StatusUnauthorized, "invalid credential")
	})

	errTests := []struct {
		name   string
		run    func() error
		status int
		msg    string
	}{
		{"meta token for an unknown environment", func() error {
			_, err := c.CreateMetaToken(ctx, 1, "env-nope", &embedkit.MetaTokenRequest{SecurityContext: map[string]any{}})
			return err
		}, http.StatusNotFound, "environment env-nope"},
		{"meta token outside the key's scope", func() error {
			_, err := e.client(t, keyAdminD1).CreateMetaToken(ctx, 2, "env-prod", &embedkit.MetaTokenRequest{SecurityContext: map[string]any{}})
			return err
		}, http.StatusForbidden, "not scoped"},
		{"data token for an unknown deployment", func() error {
			_, err := c.CreateDataAPIToken(ctx, 77, nil)
			return err
		}, http.StatusNotFound, "deployment 77"},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, tt.run(), tt.status, tt.msg)
		})
	}

	t.Run("client refuses bad lifetimes before sending", func(t *testing.T) {
		before := len(e.emu.Requests())
		_, err := c.CreateDataAPIToken(ctx, 1, &embedkit.DataAPITokenRequest{ExpiresIn: 59})
		wantValidation(t, err, "expiresIn")
		_, err = c.CreateDataAPIToken(ctx, 1, &embedkit.DataAPITokenRequest{ExpiresIn: 86401})
		wantValidation(t, err, "expiresIn")
		_, err = c.CreateMetaToken(ctx, 1, "env-prod", &embedkit.MetaTokenRequest{})
		wantValidation(t, err, "security_context")
		_, err = c.CreateMetaToken(ctx, 1, "env-prod", &embedkit.MetaTokenRequest{SecurityContext: map[string]any{}, ExpiresIn: -1})
		wantValidation(t, err, "expires_in")
		if n := len(e.emu.Requests()) - before; n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
		// The emulator agrees on the bounds when sent them directly.
		for _, v := range []int{59, 86401} {
			hreq, err := c.NewRequest(ctx, http.MethodPost, "/api/v1/deployments/1/token", map[string]int{"expiresIn": v})
			if err != nil {
				t.Fatalf("NewRequest: %v", err)
			}
			_, err = c.Do(hreq, nil)
			wantAPIError(t, err, http.StatusBadRequest, "expiresIn")
		}
	})
}

func TestClientAgainstEmulatorVersions(t *testing.T) {
	ctx := context.Background()

	current := func(t *testing.T, c *embedkit.Client) string {
		t.Helper()
		vs, err := c.ListVersions(ctx, 1)
		if err != nil {
			t.Fatalf("ListVersions: %v", err)
		}
		cur := ""
		for _, v := range vs {
			if v.IsCurrent {
				if cur != "" {
					t.Fatalf("two current versions: %s and %s", cur, v.Version)
				}
				cur = v.Version
			}
		}
		return cur
	}

	t.Run("list", func(t *testing.T) {
		e := startEmulator(t)
		vs, err := e.client(t, keyAdminAll).ListVersions(ctx, 1)
		if err != nil {
			t.Fatalf("ListVersions: %v", err)
		}
		want := []embedkit.DeploymentVersion{
			{ReleaseChannelVersion: "platform/runtime:v1.4.2", Version: "1.4.2", ReleaseChannel: "stable", IsLatestInChannel: true, IsCurrent: true},
			{ReleaseChannelVersion: "platform/runtime:v1.3.9", Version: "1.3.9", ReleaseChannel: "stable"},
			{ReleaseChannelVersion: "platform/runtime:v1.5.0-rc.1", Version: "1.5.0-rc.1", ReleaseChannel: "preview", IsLatestInChannel: true},
		}
		if !slices.Equal(vs, want) {
			t.Errorf("versions = %+v, want %+v", vs, want)
		}
	})

	switchTests := []struct {
		name     string
		version  string
		want     string
		wantHold bool
	}{
		{"bare semver", "1.3.9", "1.3.9", true},
		{"v prefix", "v1.5.0-rc.1", "1.5.0-rc.1", false},
		{"image reference", "platform/runtime:v1.3.9", "1.3.9", true},
	}
	for _, tt := range switchTests {
		t.Run("switch "+tt.name, func(t *testing.T) {
			e := startEmulator(t)
			c := e.client(t, keyAdminAll)
			s, err := c.SwitchVersion(ctx, 1, tt.version)
			if err != nil {
				t.Fatalf("SwitchVersion: %v", err)
			}
			if s.ID != 1 || s.Name != "Sales analytics" || !strings.HasSuffix(s.ReleaseChannelVersion, ":v"+tt.want) || s.ReleaseChannelVersionHold != tt.wantHold {
				t.Errorf("settings = id %d, %q, version %q, hold %v; want 1, Sales analytics, …:v%s, hold %v",
					s.ID, s.Name, s.ReleaseChannelVersion, s.ReleaseChannelVersionHold, tt.want, tt.wantHold)
			}
			if got := current(t, c); got != tt.want {
				t.Errorf("current version = %s, want %s", got, tt.want)
			}
		})
	}

	unlisted := []struct{ name, version string }{
		{"unknown version", "9.9.9"},
		{"listed version under another image repository", "other/image:v1.3.9"},
	}
	for _, tt := range unlisted {
		t.Run("switch refused: "+tt.name, func(t *testing.T) {
			e := startEmulator(t)
			c := e.client(t, keyAdminAll)
			_, err := c.SwitchVersion(ctx, 1, tt.version)
			wantAPIError(t, err, http.StatusBadRequest, "not in the versions list")
			if got := current(t, c); got != "1.4.2" {
				t.Errorf("current version after a refused switch = %s, want 1.4.2", got)
			}
		})
	}

	t.Run("switch refused before sending", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		for _, v := range []string{"", "latest", "1.4", "platform/runtime:1.4.2"} {
			_, err := c.SwitchVersion(ctx, 1, v)
			wantValidation(t, err, "releaseChannelVersion")
		}
		if n := len(e.emu.Requests()); n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
	})

	t.Run("channel alone moves to its latest", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		s, err := c.UpdateDeployment(ctx, 1, &embedkit.UpdateDeploymentRequest{ReleaseChannel: "preview"})
		if err != nil {
			t.Fatalf("UpdateDeployment: %v", err)
		}
		if s.ReleaseChannel != "preview" || current(t, c) != "1.5.0-rc.1" {
			t.Errorf("channel %q, current %s; want preview, 1.5.0-rc.1", s.ReleaseChannel, current(t, c))
		}
	})

	t.Run("template variables merge", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		steps := []struct {
			send map[string]any
			want map[string]any
		}{
			{map[string]any{"warehouse": "main", "schema": "sales"}, map[string]any{"warehouse": "main", "schema": "sales"}},
			{map[string]any{"schema": "sales_v2", "region": "eu"}, map[string]any{"warehouse": "main", "schema": "sales_v2", "region": "eu"}},
			{map[string]any{"warehouse": nil}, map[string]any{"schema": "sales_v2", "region": "eu"}},
		}
		for i, st := range steps {
			s, err := c.UpdateDeployment(ctx, 1, &embedkit.UpdateDeploymentRequest{TemplateVariables: st.send})
			if err != nil {
				t.Fatalf("step %d: UpdateDeployment: %v", i, err)
			}
			got, _ := json.Marshal(s.TemplateVariables)
			want, _ := json.Marshal(st.want)
			if !bytes.Equal(got, want) {
				t.Errorf("step %d: templateVariables = %s, want %s", i, got, want)
			}
			if len(s.Raw) == 0 {
				t.Errorf("step %d: Raw is empty", i)
			}
		}
		if got := current(t, c); got != "1.4.2" {
			t.Errorf("a template update changed the version to %s", got)
		}
	})

	t.Run("update refused", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		_, err := e.client(t, keyAdminD1).UpdateDeployment(ctx, 2, &embedkit.UpdateDeploymentRequest{Region: "eu-west-1"})
		wantAPIError(t, err, http.StatusForbidden, "not scoped")
		_, err = c.UpdateDeployment(ctx, 1, &embedkit.UpdateDeploymentRequest{})
		wantValidation(t, err, "request")
	})

	t.Run("spec", func(t *testing.T) {
		e := startEmulator(t)
		raw, err := e.client(t, keyAdminAll).Spec(ctx)
		if err != nil {
			t.Fatalf("Spec: %v", err)
		}
		var doc struct {
			OpenAPI string `json:"openapi"`
			Info    struct {
				Version string `json:"version"`
			} `json:"info"`
			Paths map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("spec is not an OpenAPI document: %v", err)
		}
		if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.0.0" {
			t.Errorf("openapi %q, info.version %q; want 3.1.0, 1.0.0", doc.OpenAPI, doc.Info.Version)
		}
		for _, p := range []string{"/api/v1/embed/generate-session", "/api/v1/deployments", "/api/v1/audit-logs/export"} {
			if _, ok := doc.Paths[p]; !ok {
				t.Errorf("spec has no path %s", p)
			}
		}
	})
}

func TestClientAgainstEmulatorAuditLog(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	plus2 := time.FixedZone("UTC+2", 2*60*60)

	tests := []struct {
		name string
		opts embedkit.AuditLogOptions
		want []string // event names, oldest first
	}{
		{"no filter", embedkit.AuditLogOptions{}, []string{"user.login", "dashboard.viewed", "user.login", "deployment.updated", "apikey.created"}},
		{"eventName", embedkit.AuditLogOptions{EventName: "user.login"}, []string{"user.login", "user.login"}},
		{"userEmail any case", embedkit.AuditLogOptions{UserEmail: "Admin@Acme.test"}, []string{"user.login", "deployment.updated", "apikey.created"}},
		{"search", embedkit.AuditLogOptions{Search: "203.0.113"}, []string{"user.login"}},
		{"start date", embedkit.AuditLogOptions{Start: day(2)}, []string{"user.login", "deployment.updated", "apikey.created"}},
		{"end date is inclusive", embedkit.AuditLogOptions{End: day(1)}, []string{"user.login", "dashboard.viewed"}},
		{"one day", embedkit.AuditLogOptions{Start: day(2), End: day(2)}, []string{"user.login", "deployment.updated"}},
		{"start time", embedkit.AuditLogOptions{Start: time.Date(2026, 3, 2, 8, 45, 0, 0, time.UTC)}, []string{"deployment.updated", "apikey.created"}},
		{"start time with an offset", embedkit.AuditLogOptions{Start: time.Date(2026, 3, 2, 10, 45, 0, 0, plus2)}, []string{"deployment.updated", "apikey.created"}},
		{"local midnight is an instant, not a date", embedkit.AuditLogOptions{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, plus2)}, []string{"user.login", "deployment.updated", "apikey.created"}},
		{"end time", embedkit.AuditLogOptions{End: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}, []string{"user.login"}},
		{"filters combined", embedkit.AuditLogOptions{Start: day(1), End: day(2), EventName: "user.login", UserEmail: "dana@acme.test"}, []string{"user.login"}},
		{"nothing matches", embedkit.AuditLogOptions{EventName: "no.such.event"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := c.ExportAuditLog(ctx, tt.opts)
			if err != nil {
				t.Fatalf("ExportAuditLog: %v", err)
			}
			defer a.Close()
			if !slices.Equal(a.Header(), []string{"time", "eventName", "userEmail", "data"}) {
				t.Errorf("header = %q", a.Header())
			}
			if a.Filename() != "audit-log.csv" {
				t.Errorf("filename = %q", a.Filename())
			}
			var got []string
			for row, err := range a.Rows() {
				if err != nil {
					t.Fatalf("Rows: %v", err)
				}
				if len(row) != 4 {
					t.Fatalf("row has %d columns, want 4", len(row))
				}
				if _, err := time.Parse(time.RFC3339, row[0]); err != nil {
					t.Errorf("time column %q is not RFC 3339", row[0])
				}
				if !json.Valid([]byte(row[3])) {
					t.Errorf("data column %q is not JSON", row[3])
				}
				got = append(got, row[1])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("events = %q, want %q", got, tt.want)
			}
			if _, err := a.Read(); err != io.EOF {
				t.Errorf("Read after the last row = %v, want io.EOF", err)
			}
			if err := a.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}

	t.Run("personal key lacks AuditLogManage", func(t *testing.T) {
		_, err := e.client(t, keyPersonal).ExportAuditLog(ctx, embedkit.AuditLogOptions{})
		wantAPIError(t, err, http.StatusForbidden, "AuditLogManage")
		if !errors.Is(err, embedkit.ErrForbidden) {
			t.Errorf("errors.Is(err, ErrForbidden) = false")
		}
	})

	t.Run("client refuses bad filters before sending", func(t *testing.T) {
		before := len(e.emu.Requests())
		_, err := c.ExportAuditLog(ctx, embedkit.AuditLogOptions{Start: day(3), End: day(1)})
		wantValidation(t, err, "end")
		_, err = c.ExportAuditLog(ctx, embedkit.AuditLogOptions{UserEmail: "not an address"})
		wantValidation(t, err, "userEmail")
		if n := len(e.emu.Requests()) - before; n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
	})
}

func TestClientAgainstEmulatorDashboardExports(t *testing.T) {
	ctx := context.Background()

	completed := []struct {
		name     string
		req      embedkit.DashboardExportRequest
		filename string
		wantName string
		wantType string
	}{
		{"png by id", embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG}, "", "dashboard.png", "image/png"},
		{"pdf by public id", embedkit.DashboardExportRequest{DashboardPublicID: "regional-performance", Format: embedkit.FormatPDF}, "", "dashboard.pdf", "application/pdf"},
		{"png with a file name", embedkit.DashboardExportRequest{DashboardPublicID: "sales-overview", Format: embedkit.FormatPNG}, "q3-report", "q3-report.png", "image/png"},
		{"pdf with a file name", embedkit.DashboardExportRequest{DashboardID: 13, Format: embedkit.FormatPDF}, "regions", "regions.pdf", "application/pdf"},
		{"file name with spaces", embedkit.DashboardExportRequest{DashboardID: 13, Format: embedkit.FormatPDF}, "Q3 report", "Q3_report.pdf", "application/pdf"},
		{"rendered as an embed user", embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG, RenderAs: &embedkit.RenderAs{
			Type: embedkit.SubjectEmbedUser, ExternalID: "render-subject", Groups: []string{"emea"},
		}}, "", "dashboard.png", "image/png"},
	}
	for _, tt := range completed {
		t.Run(tt.name, func(t *testing.T) {
			e := startEmulator(t)
			c := e.client(t, keyAdminAll)
			job, err := c.SubmitDashboardExport(ctx, 1, &tt.req)
			if err != nil {
				t.Fatalf("SubmitDashboardExport: %v", err)
			}
			if !job.ExpiresAt.Equal(emuStart.Add(5 * time.Minute)) {
				t.Errorf("expiresAt = %v, want submission + 5m", job.ExpiresAt)
			}
			st, err := c.WaitDashboardExport(ctx, 1, job)
			if err != nil {
				t.Fatalf("WaitDashboardExport: %v", err)
			}
			if st.Status != embedkit.ExportCompleted || st.ContentType != tt.wantType {
				t.Errorf("status %s, content type %q; want completed, %s", st.Status, st.ContentType, tt.wantType)
			}
			f, err := c.DownloadDashboardExport(ctx, 1, job.JobID, tt.filename)
			if err != nil {
				t.Fatalf("DownloadDashboardExport: %v", err)
			}
			defer f.Body.Close()
			if f.Filename != tt.wantName || f.ContentType != tt.wantType {
				t.Errorf("file %q, %q; want %q, %q", f.Filename, f.ContentType, tt.wantName, tt.wantType)
			}
			body, err := io.ReadAll(f.Body)
			if err != nil {
				t.Fatalf("reading the file: %v", err)
			}
			switch tt.req.Format {
			case embedkit.FormatPNG:
				img, err := png.Decode(bytes.NewReader(body))
				if err != nil {
					t.Fatalf("the PNG does not decode: %v", err)
				}
				if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
					t.Errorf("PNG is %dx%d, want a rendered page", b.Dx(), b.Dy())
				}
			case embedkit.FormatPDF:
				if !bytes.HasPrefix(body, []byte("%PDF-")) || !bytes.Contains(body, []byte("%%EOF")) {
					t.Errorf("the PDF does not start with %%PDF- and end with %%%%EOF (%d bytes)", len(body))
				}
			}
		})
	}

	t.Run("failed render", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		job, err := c.SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{DashboardPublicID: "broken-board", Format: embedkit.FormatPDF})
		if err != nil {
			t.Fatalf("SubmitDashboardExport: %v", err)
		}
		st, err := c.WaitDashboardExport(ctx, 1, job)
		var fe *embedkit.ExportFailedError
		if !errors.As(err, &fe) {
			t.Fatalf("error = %v, want *ExportFailedError", err)
		}
		if fe.Reason != "widget 3 failed to load" || fe.JobID != job.JobID {
			t.Errorf("ExportFailedError reason %q, right job %v; want the fixture's message", fe.Reason, fe.JobID == job.JobID)
		}
		if st == nil || st.Status != embedkit.ExportFailed {
			t.Errorf("status = %+v, want failed", st)
		}
		_, err = c.DownloadDashboardExport(ctx, 1, job.JobID, "")
		wantAPIError(t, err, http.StatusUnprocessableEntity, "")
		if !errors.Is(err, embedkit.ErrUnprocessable) {
			t.Errorf("errors.Is(err, ErrUnprocessable) = false")
		}
	})

	t.Run("download while rendering", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		job, err := c.SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG})
		if err != nil {
			t.Fatalf("SubmitDashboardExport: %v", err)
		}
		st, err := c.DashboardExportStatus(ctx, 1, job.JobID)
		if err != nil || st.Status != embedkit.ExportPending {
			t.Fatalf("first poll = %+v, %v; want pending", st, err)
		}
		_, err = c.DownloadDashboardExport(ctx, 1, job.JobID, "")
		wantAPIError(t, err, http.StatusConflict, "")
		if !errors.Is(err, embedkit.ErrConflict) {
			t.Errorf("errors.Is(err, ErrConflict) = false")
		}
		st, err = c.DashboardExportStatus(ctx, 1, job.JobID)
		if err != nil || st.Status != embedkit.ExportProcessing || st.Progress == nil || *st.Progress != 50 {
			t.Fatalf("second poll = %+v, %v; want processing at 50", st, err)
		}
	})

	t.Run("expired job", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		job, err := c.SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG})
		if err != nil {
			t.Fatalf("SubmitDashboardExport: %v", err)
		}
		e.emu.Advance(6 * time.Minute)
		_, err = c.WaitDashboardExport(ctx, 1, job)
		if !errors.Is(err, embedkit.ErrExportExpired) || !errors.Is(err, embedkit.ErrNotFound) {
			t.Errorf("WaitDashboardExport = %v, want ErrExportExpired wrapping ErrNotFound", err)
		}
		_, err = c.DownloadDashboardExport(ctx, 1, job.JobID, "")
		if !errors.Is(err, embedkit.ErrNotFound) {
			t.Errorf("DownloadDashboardExport = %v, want ErrNotFound", err)
		}
	})

	t.Run("expiry seen on the client clock", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		job, err := c.SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG})
		if err != nil {
			t.Fatalf("SubmitDashboardExport: %v", err)
		}
		e.clock.mu.Lock()
		e.clock.now = e.clock.now.Add(5 * time.Minute)
		e.clock.mu.Unlock()
		before := len(e.emu.Requests())
		_, err = c.WaitDashboardExport(ctx, 1, job)
		if !errors.Is(err, embedkit.ErrExportExpired) {
			t.Errorf("WaitDashboardExport = %v, want ErrExportExpired", err)
		}
		if n := len(e.emu.Requests()) - before; n != 0 {
			t.Errorf("%d polls after the job's expiry, want none", n)
		}
	})

	t.Run("exports in flight", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		req := &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG}
		var jobs []*embedkit.ExportJob
		for i := range 3 {
			job, err := c.SubmitDashboardExport(ctx, 1, req)
			if err != nil {
				t.Fatalf("submit %d: %v", i+1, err)
			}
			jobs = append(jobs, job)
		}
		_, err := c.SubmitDashboardExport(ctx, 1, req)
		wantAPIError(t, err, http.StatusTooManyRequests, "in flight")
		if !errors.Is(err, embedkit.ErrRateLimited) {
			t.Errorf("errors.Is(err, ErrRateLimited) = false")
		}
		// Another identity has its own budget.
		ra := &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG,
			RenderAs: &embedkit.RenderAs{Type: embedkit.SubjectEmbedUser, ExternalID: "someone-else"}}
		if _, err := c.SubmitDashboardExport(ctx, 1, ra); err != nil {
			t.Errorf("submit as another identity: %v", err)
		}
		// A finished job frees its slot.
		if _, err := c.WaitDashboardExport(ctx, 1, jobs[0]); err != nil {
			t.Fatalf("WaitDashboardExport: %v", err)
		}
		if _, err := c.SubmitDashboardExport(ctx, 1, req); err != nil {
			t.Errorf("submit after a job finished: %v", err)
		}
	})

	errTests := []struct {
		name   string
		key    string
		req    embedkit.DashboardExportRequest
		status int
		msg    string
	}{
		{"unpublished dashboard", keyAdminAll, embedkit.DashboardExportRequest{DashboardPublicID: "draft-board", Format: embedkit.FormatPNG}, http.StatusBadRequest, "only a published dashboard"},
		{"dashboard not in the deployment", keyAdminAll, embedkit.DashboardExportRequest{DashboardID: 999, Format: embedkit.FormatPNG}, http.StatusNotFound, "dashboard 999"},
		{"no manage access", keyPersonal, embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG}, http.StatusForbidden, "manage access"},
		{"renderAs by a non-administrator", keyPersonal, embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG,
			RenderAs: &embedkit.RenderAs{Type: embedkit.SubjectEmbedUser, ExternalID: "x"}}, http.StatusForbidden, "administrator"},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			e := startEmulator(t)
			_, err := e.client(t, tt.key).SubmitDashboardExport(ctx, 1, &tt.req)
			wantAPIError(t, err, tt.status, tt.msg)
		})
	}

	t.Run("only the submitter sees the job", func(t *testing.T) {
		e := startEmulator(t)
		job, err := e.client(t, keyAdminAll).SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG})
		if err != nil {
			t.Fatalf("SubmitDashboardExport: %v", err)
		}
		other := e.client(t, keyPersonal)
		_, err = other.DashboardExportStatus(ctx, 1, job.JobID)
		wantAPIError(t, err, http.StatusNotFound, "")
		_, err = other.DownloadDashboardExport(ctx, 1, job.JobID, "")
		wantAPIError(t, err, http.StatusNotFound, "")
	})

	t.Run("client refuses bad requests before sending", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		bad := []struct {
			req   embedkit.DashboardExportRequest
			field string
		}{
			{embedkit.DashboardExportRequest{DashboardID: 10, DashboardPublicID: "sales-overview", Format: embedkit.FormatPNG}, "dashboardId"},
			{embedkit.DashboardExportRequest{Format: embedkit.FormatPNG}, "dashboardId"},
			{embedkit.DashboardExportRequest{DashboardID: 10, Format: "svg"}, "format"},
			{embedkit.DashboardExportRequest{DashboardID: 10}, "format"},
		}
		for _, b := range bad {
			_, err := c.SubmitDashboardExport(ctx, 1, &b.req)
			wantValidation(t, err, b.field)
		}
		_, err := c.DownloadDashboardExport(ctx, 1, "job", "../etc/passwd")
		wantValidation(t, err, "filename")
		if n := len(e.emu.Requests()); n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
		// Sent directly, the emulator refuses the same bodies with 400.
		for _, b := range bad {
			hreq, err := c.NewRequest(ctx, http.MethodPost, "/api/v1/deployments/1/dashboard-exports", &b.req)
			if err != nil {
				t.Fatalf("NewRequest: %v", err)
			}
			_, err = c.Do(hreq, nil)
			wantAPIError(t, err, http.StatusBadRequest, b.field)
		}
	})
}

func TestClientAgainstEmulatorRawRequests(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)

	tests := []struct {
		name   string
		method string
		path   string
		body   any
		status int
		msg    string
	}{
		{"operation listed by path only", http.MethodGet, "/api/v1/users/me", nil, http.StatusNotImplemented, "not implemented by the emulator"},
		{"data model operation listed by path only", http.MethodGet, "/build/api/v1/deployments/1/data-model/files", nil, http.StatusNotImplemented, "not implemented by the emulator"},
		{"SCIM operation listed by path only", http.MethodGet, "/api/scim/v2/Users", nil, http.StatusNotImplemented, "not implemented by the emulator"},
		{"unknown path", http.MethodGet, "/api/v1/no-such-thing", nil, http.StatusNotFound, "not found"},
		{"wrong method", http.MethodDelete, "/api/v1/spec", nil, http.StatusMethodNotAllowed, "not allowed"},
		{"unknown body member", http.MethodPost, "/api/v1/deployments/1/token", map[string]any{"expiresIn": 60, "scope": "all"}, http.StatusBadRequest, "scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := c.NewRequest(ctx, tt.method, tt.path, tt.body)
			if err != nil {
				t.Fatalf("NewRequest: %v", err)
			}
			var v map[string]any
			resp, err := c.Do(req, &v)
			ae := wantAPIError(t, err, tt.status, tt.msg)
			if resp == nil {
				t.Errorf("Do returned no response with its APIError, want one with status %d", tt.status)
			} else if resp.StatusCode != tt.status {
				t.Errorf("Do returned a response with status %d, want %d", resp.StatusCode, tt.status)
			}
			if ae.Method != tt.method || ae.Path != tt.path {
				t.Errorf("APIError names %s %s, want %s %s", ae.Method, ae.Path, tt.method, tt.path)
			}
			if tt.status == http.StatusNotImplemented && !errors.Is(err, embedkit.ErrServer) {
				t.Errorf("a 501 does not match ErrServer")
			}
		})
	}

	t.Run("raw call of an implemented operation", func(t *testing.T) {
		req, err := c.NewRequest(ctx, http.MethodGet, "/api/v1/deployments/1/versions", nil)
		if err != nil {
			t.Fatalf("NewRequest: %v", err)
		}
		var out struct {
			Data []embedkit.DeploymentVersion `json:"data"`
		}
		resp, err := c.Do(req, &out)
		if err != nil {
			t.Fatalf("Do: %v", err)
		}
		if resp.StatusCode != http.StatusOK || len(out.Data) != 3 {
			t.Errorf("status %d, %d versions; want 200, 3", resp.StatusCode, len(out.Data))
		}
	})

	t.Run("501 is not retried", func(t *testing.T) {
		rc := e.client(t, keyAdminAll, embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 4, MinDelay: time.Millisecond, MaxDelay: time.Millisecond}))
		before := len(e.emu.Requests())
		req, err := rc.NewRequest(ctx, http.MethodGet, "/api/v1/users/me", nil)
		if err != nil {
			t.Fatalf("NewRequest: %v", err)
		}
		_, err = rc.Do(req, nil)
		wantAPIError(t, err, http.StatusNotImplemented, "")
		if n := len(e.emu.Requests()) - before; n != 1 {
			t.Errorf("a 501 was sent %d times, want once", n)
		}
	})
}
