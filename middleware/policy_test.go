package middleware

import (
	"errors"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

func TestPolicyGroups(t *testing.T) {
	tests := []struct {
		name   string
		policy Policy
		groups []string
		want   []string
	}{
		{"nil allow-list sends as is", Policy{}, []string{"sales", "emea"}, []string{"emea", "sales"}},
		{"empty allow-list sends none", Policy{Groups: GroupOptions{Allowed: []string{}}}, []string{"sales"}, []string{}},
		{"allow-list drops unknown", Policy{Groups: GroupOptions{Allowed: []string{"sales"}}}, []string{"sales", "hr"}, []string{"sales"}},
		{"rename then allow", Policy{Groups: GroupOptions{Map: map[string]string{"Sales Team": "sales"}, Allowed: []string{"sales"}}}, []string{"Sales Team"}, []string{"sales"}},
		{"map to empty drops", Policy{Groups: GroupOptions{Map: map[string]string{"admins": ""}}}, []string{"admins", "emea"}, []string{"emea"}},
		{"dedupe", Policy{Groups: GroupOptions{Map: map[string]string{"a": "sales"}}}, []string{"a", "sales", " sales "}, []string{"sales"}},
		{"no groups clears", Policy{}, nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.policy.DeploymentID = 1
			req, err := tt.policy.Request(nil, &Viewer{Subject: "u1", Groups: tt.groups}, Target{Kind: KindDashboard, PublicID: "d"})
			if err != nil {
				t.Fatal(err)
			}
			if req.Groups == nil || !slices.Equal(req.Groups, tt.want) {
				t.Errorf("Groups = %#v, want %#v", req.Groups, tt.want)
			}
		})
	}
	t.Run("keep platform groups omits the field", func(t *testing.T) {
		p := Policy{DeploymentID: 1, Groups: GroupOptions{KeepPlatform: true}}
		req, err := p.Request(nil, &Viewer{Subject: "u1", Groups: []string{"sales"}}, Target{Kind: KindChat})
		if err != nil {
			t.Fatal(err)
		}
		if req.Groups != nil {
			t.Errorf("Groups = %#v, want nil", req.Groups)
		}
	})
}

func TestPolicyRequest(t *testing.T) {
	v := &Viewer{
		Subject:     "  User-42 ",
		Email:       "ana@example.com",
		DisplayName: "Ana",
		Picture:     "https://img.example.com/ana.png",
		Attributes:  map[string]any{"region": "emea", "level": 3.0, "secret": "x"},
		Tenant:      "Acme",
	}
	p := Policy{
		DeploymentID:    7,
		SecurityContext: map[string]any{"app": "crm"},
		SecurityContextFunc: func(_ *http.Request, v *Viewer) (map[string]any, error) {
			return map[string]any{"user": v.Subject}, nil
		},
		Settings:   &embedkit.EmbedSessionSettings{AllowAI: new(false), ShowMemberNames: new(false)},
		Theme:      &embedkit.EmbedTheme{PrimaryColor: "#123456"},
		BranchName: "feature-x",
		Attributes: AttributeOptions{Allowed: []string{"region", "level"}},
	}
	tgt := Target{Kind: KindDashboard, PublicID: "d", Settings: &embedkit.EmbedSessionSettings{AllowAI: new(true), Locale: new("de-DE")}}
	req, err := p.Request(nil, v, tgt)
	if err != nil {
		t.Fatal(err)
	}
	if req.DeploymentID != 7 || req.ExternalID != "user-42" || req.Email != "ana@example.com" || req.BranchName != "feature-x" {
		t.Errorf("basic fields wrong: %+v", req)
	}
	if req.UserProfile == nil || req.UserProfile.DisplayName != "Ana" || req.UserProfile.Picture != v.Picture {
		t.Errorf("UserProfile = %+v", req.UserProfile)
	}
	if req.EmbedTenantName != "acme" {
		t.Errorf("EmbedTenantName = %q, want acme", req.EmbedTenantName)
	}
	wantAttrs := []embedkit.UserAttributeInput{{Name: "level", Value: 3.0}, {Name: "region", Value: "emea"}}
	if !reflect.DeepEqual(req.UserAttributes, wantAttrs) {
		t.Errorf("UserAttributes = %#v, want %#v", req.UserAttributes, wantAttrs)
	}
	if !reflect.DeepEqual(req.SecurityContext, map[string]any{"app": "crm", "user": "  User-42 "}) {
		t.Errorf("SecurityContext = %#v", req.SecurityContext)
	}
	if req.Settings == nil || *req.Settings.AllowAI != true || *req.Settings.ShowMemberNames != false || *req.Settings.Locale != "de-DE" {
		t.Errorf("Settings not merged: %+v", req.Settings)
	}
	if *p.Settings.AllowAI != false {
		t.Error("merging changed the policy's own settings")
	}
	if req.EmbedTheme == nil || req.EmbedTheme.PrimaryColor != "#123456" {
		t.Errorf("EmbedTheme = %+v", req.EmbedTheme)
	}
	if req.CreatorMode != nil {
		t.Error("creator mode set for a tenant not allowed it")
	}
}

func TestPolicyDropsMalformedProfileData(t *testing.T) {
	p := Policy{DeploymentID: 1}
	req, err := p.Request(nil, &Viewer{Subject: "u", Email: "Ana <ana@example.com>", Picture: "javascript:alert(1)"}, Target{Kind: KindChat})
	if err != nil {
		t.Fatal(err)
	}
	if req.Email != "" || req.UserProfile != nil {
		t.Errorf("malformed email or picture sent: email %q profile %+v", req.Email, req.UserProfile)
	}
}

func TestPolicyCreatorMode(t *testing.T) {
	p := Policy{
		DeploymentID: 1,
		Tenants:      TenantOptions{Creator: []string{"acme"}, Groups: func(_ *http.Request, v *Viewer) []string { return []string{"editors", "editors", "viewers"} }, DefineGroups: true},
	}
	tests := []struct {
		name        string
		viewer      Viewer
		target      Target
		wantCreator bool
		wantErr     error
	}{
		{"app for allowed tenant", Viewer{Subject: "u", Tenant: "acme"}, Target{Kind: KindApp}, true, nil},
		{"app for other tenant denied", Viewer{Subject: "u", Tenant: "other"}, Target{Kind: KindApp}, false, ErrDenied},
		{"app without tenant denied", Viewer{Subject: "u"}, Target{Kind: KindApp}, false, ErrDenied},
		{"dashboard, viewer asks, allowed", Viewer{Subject: "u", Tenant: "acme", CreatorMode: true}, Target{Kind: KindDashboard, PublicID: "d"}, true, nil},
		{"dashboard, viewer asks, not allowed", Viewer{Subject: "u", Tenant: "other", CreatorMode: true}, Target{Kind: KindDashboard, PublicID: "d"}, false, nil},
		{"dashboard, viewer does not ask", Viewer{Subject: "u", Tenant: "acme"}, Target{Kind: KindDashboard, PublicID: "d"}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := p.Request(nil, &tt.viewer, tt.target)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			got := req.CreatorMode != nil && *req.CreatorMode
			if got != tt.wantCreator {
				t.Fatalf("creator mode = %v, want %v", got, tt.wantCreator)
			}
			if got {
				if !slices.Equal(req.TenantGroups, []string{"editors", "viewers"}) || len(req.TenantGroupDefinitions) != 2 {
					t.Errorf("tenant groups = %v, definitions = %v", req.TenantGroups, req.TenantGroupDefinitions)
				}
			} else if req.TenantGroups != nil {
				t.Errorf("tenant groups sent without creator mode: %v", req.TenantGroups)
			}
		})
	}
}

func TestPolicyErrors(t *testing.T) {
	boom := errors.New("directory down")
	tests := []struct {
		name    string
		policy  Policy
		viewer  Viewer
		wantErr error
	}{
		{"invalid tenant", Policy{DeploymentID: 1}, Viewer{Subject: "u", Tenant: "9 bad tenant"}, ErrMisconfigured},
		{"security context func fails", Policy{DeploymentID: 1, SecurityContextFunc: func(*http.Request, *Viewer) (map[string]any, error) { return nil, boom }}, Viewer{Subject: "u"}, boom},
		{"customize denies", Policy{DeploymentID: 1, Customize: func(*http.Request, *Viewer, Target, *embedkit.GenerateSessionRequest) error {
			return ErrDenied
		}}, Viewer{Subject: "u"}, ErrDenied},
		{"customize fails", Policy{DeploymentID: 1, Customize: func(*http.Request, *Viewer, Target, *embedkit.GenerateSessionRequest) error { return boom }}, Viewer{Subject: "u"}, ErrMisconfigured},
		{"validation fails before the wire", Policy{DeploymentID: 1, Customize: func(_ *http.Request, _ *Viewer, _ Target, r *embedkit.GenerateSessionRequest) error {
			r.TenantGroups = []string{"x"} // needs creator mode
			return nil
		}}, Viewer{Subject: "u"}, embedkit.ErrInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.policy.Request(nil, &tt.viewer, Target{Kind: KindChat})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !errors.Is(tt.wantErr, ErrDenied) && !errors.Is(err, ErrMisconfigured) {
				t.Errorf("err = %v, want it to wrap ErrMisconfigured", err)
			}
			if status, _ := ErrorStatus(err); errors.Is(tt.wantErr, ErrDenied) && status != 403 || !errors.Is(tt.wantErr, ErrDenied) && status != 500 {
				t.Errorf("ErrorStatus = %d", status)
			}
		})
	}
}
