package oidcclaims_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/embedkit/embedkit/adapters/oidcclaims"
	"github.com/embedkit/embedkit/middleware"
)

// TestMergeUserInfo: profile claims only the user info endpoint returns
// reach the viewer; the ID token's value wins where both have a claim;
// another user's answer is refused.
func TestMergeUserInfo(t *testing.T) {
	clock := newFakeClock()
	iss, _ := newTestIssuer(t, clock)
	m := oidcclaims.Mapping{Groups: "groups", Locale: "locale", TimeZone: "zoneinfo"}
	idClaims := map[string]any{"iss": iss.URL, "sub": "u1", "groups": []any{"sales"}}
	tests := []struct {
		name    string
		body    string
		want    *middleware.Viewer
		wantErr error
	}{
		{"profile from user info only", `{"sub":"u1","name":"Ann","email":"a@example.com","locale":"de-DE","zoneinfo":"Europe/Berlin"}`,
			&middleware.Viewer{Subject: "u1", DisplayName: "Ann", Email: "a@example.com", Locale: "de-DE", TimeZone: "Europe/Berlin", Groups: []string{"sales"}}, nil},
		{"the ID token's value wins", `{"sub":"u1","groups":["admins"],"name":"Ann"}`,
			&middleware.Viewer{Subject: "u1", DisplayName: "Ann", Groups: []string{"sales"}}, nil},
		{"another user's answer", `{"sub":"u2","name":"Eve"}`, nil, oidcclaims.ErrUserInfoSubject},
		{"no sub in the answer", `{"name":"Eve"}`, nil, oidcclaims.ErrUserInfoSubject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := iss.fetchUserInfo(t, tt.body)
			merged, err := oidcclaims.MergeUserInfo(idClaims, u)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Viewer(merged)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("viewer = %+v, want %+v", got, tt.want)
			}
			if len(idClaims) != 3 {
				t.Errorf("MergeUserInfo modified the ID token claims: %v", idClaims)
			}
		})
	}
	t.Run("bad arguments", func(t *testing.T) {
		if _, err := oidcclaims.MergeUserInfo(idClaims, nil); err == nil || !strings.HasPrefix(err.Error(), "oidcclaims: ") {
			t.Errorf("nil user info: %v", err)
		}
		if _, err := oidcclaims.MergeUserInfo(map[string]any{}, &oidc.UserInfo{Subject: "u1"}); err == nil || !strings.Contains(err.Error(), "sub") {
			t.Errorf("ID token claims without sub: %v", err)
		}
	})
}
