package middleware

import (
	"net/http"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

// TestProfileFieldsFollowThePlatformRule: the Policy keeps a viewer's
// picture and email exactly when the platform's rule (embedkit's, which
// Validate applies) accepts them, so a request it builds never fails
// validation for them; through the frame handler, a viewer with a picture
// or email the platform would refuse is minted without it, never refused
// with 500.
func TestProfileFieldsFollowThePlatformRule(t *testing.T) {
	long := "https://cdn.example.com/" + strings.Repeat("p", 3000) + ".png"
	for _, tc := range []struct {
		name, picture, email string
	}{
		{"ordinary", "https://cdn.example.com/ana.png", "ana@example.com"},
		{"a 3 KB picture URL", long, "ana@example.com"},
		{"a relative picture", "/ana.png", "ana@example.com"},
		{"a data: picture", "data:image/png;base64,AAAA", "ana@example.com"},
		{"a display-name email", "https://cdn.example.com/ana.png", "Ana <ana@example.com>"},
		{"an email over 254 bytes", "https://cdn.example.com/ana.png", strings.Repeat("a", 250) + "@example.com"},
		{"a quoted local part", "", `"ana lima"@example.com`},
		{"spaces around the email", "", "  ana@example.com "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Policy{DeploymentID: 1}
			v := &Viewer{Subject: "ana", DisplayName: "Ana", Picture: tc.picture, Email: tc.email}
			req, err := p.Request(nil, v, Target{Kind: KindDashboard, PublicID: "sales"})
			if err != nil {
				t.Fatalf("Request: %v", err)
			}
			if err := req.Validate(); err != nil {
				t.Fatalf("the Policy built a request that fails validation: %v", err)
			}
			wantPicture := embedkit.IsPictureURL(tc.picture)
			if got := req.UserProfile != nil && req.UserProfile.Picture != ""; got != wantPicture {
				t.Errorf("picture kept %v, want %v", got, wantPicture)
			}
			wantEmail := embedkit.IsEmailAddress(strings.TrimSpace(tc.email))
			if got := req.Email != ""; got != wantEmail {
				t.Errorf("email kept %v (%q), want %v", got, req.Email, wantEmail)
			}

			tk := newTestKit(t, func(c *Config) {
				c.Identity = IdentityFunc(func(*http.Request) (*Viewer, error) { return v, nil })
			})
			frameLocation(t, serve(tk.FrameHandler(), request(http.MethodGet, "/embed/frame/sales", "ana")))
		})
	}
}
