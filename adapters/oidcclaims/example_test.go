package oidcclaims_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/embedkit/embedkit/adapters/oidcclaims"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

func ExampleMapping_Viewer() {
	m := oidcclaims.Mapping{
		Groups: "realm_access.roles",
		Tenant: "https://example.com/claims.tenant",
		Attributes: map[string]oidcclaims.Attribute{
			"region": {Claim: "region", Type: embedkit.AttributeString},
		},
	}
	// In a host app the claims come from a verified ID token:
	// m.FromIDToken(idToken).
	v, err := m.Viewer(map[string]any{
		"sub":                        "248289761001",
		"sid":                        "08a5019c-17e1-4977-8f42-65a12843ea02",
		"email":                      "jane@example.com",
		"realm_access":               map[string]any{"roles": []any{"sales", "emea"}},
		"https://example.com/claims": map[string]any{"tenant": "acme"},
		"region":                     "eu-west",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Subject, v.Email, v.Groups, v.Tenant, v.Attributes["region"])

	_, err = m.Viewer(map[string]any{"sub": "248289761001", "realm_access": map[string]any{"roles": 3.0}})
	fmt.Println(err)
	// Output:
	// 248289761001 jane@example.com [sales emea] acme eu-west
	// oidcclaims: claim "realm_access.roles": want array of strings or string, got number
}

// revoker stands in for the middleware Kit, which satisfies SubjectRevoker.
type revoker struct{}

func (revoker) RevokeSubject(ctx context.Context, subject string) error { return nil }

func ExampleBackChannelLogout() {
	ctx := context.Background()
	provider, err := oidc.NewProvider(ctx, "https://login.example.com")
	if err != nil {
		log.Fatal(err)
	}
	// Verify logout tokens with a KeySet, so that forged tokens cannot make
	// the host fetch the provider's keys more than once per interval.
	var meta struct {
		Issuer  string   `json:"issuer"`
		JWKSURL string   `json:"jwks_uri"`
		Algs    []string `json:"id_token_signing_alg_values_supported"`
	}
	if err := provider.Claims(&meta); err != nil {
		log.Fatal(err)
	}
	keys := oidcclaims.NewKeySet(meta.JWKSURL, oidcclaims.KeySetConfig{})
	verifier := oidc.NewVerifier(meta.Issuer, keys, &oidc.Config{
		ClientID:             "embedkit-host",
		SupportedSigningAlgs: meta.Algs,
	})

	mux := http.NewServeMux()
	// Register https://app.example.com/auth/backchannel-logout as the
	// client's backchannel_logout_uri at the provider.
	mux.Handle("/auth/backchannel-logout", oidcclaims.BackChannelLogout(verifier, revoker{},
		oidcclaims.WithLogger(slog.Default())))
	log.Fatal(http.ListenAndServe(":8080", mux))
}

// endedLogins stands in for the app's list of ended logins
// (gorillasession.MemoryEndedLogins, redisstore.EndedLogins); it prints
// what it is asked to end.
type endedLogins struct{ middleware.EndedLogins }

func (endedLogins) EndLoginsOf(_ context.Context, subject string) error {
	fmt.Println("host logins of subject", subject, "ended")
	return nil
}

func (endedLogins) EndLoginsOfSID(_ context.Context, sid string) error {
	fmt.Println("host logins of provider session", sid, "ended")
	return nil
}

// embeds stands in for the middleware Kit: RevokeSubject and
// RevokeProviderSession revoke the embed sessions minted for them.
type embeds struct{}

func (embeds) RevokeSubject(_ context.Context, subject string) error {
	fmt.Println("embed sessions of subject", subject, "revoked")
	return nil
}

func (embeds) RevokeProviderSession(_ context.Context, sid string) error {
	fmt.Println("embed sessions of provider session", sid, "revoked")
	return nil
}

func ExampleEndingLogins() {
	// In a host app: oidcclaims.EndingLogins(identity.EndedLogins, kit),
	// passed to BackChannelLogout. A token that names only a sid ends
	// every login made in that provider session, and their embed
	// sessions; the user's other logins, and a later login in the same
	// provider session, are left alone.
	r := oidcclaims.EndingLogins(endedLogins{}, embeds{})
	ctx := context.Background()
	if err := r.RevokeProviderSession(ctx, "08a5019c"); err != nil {
		fmt.Println(err)
	}
	if err := r.RevokeSubject(ctx, "248289761001"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// host logins of provider session 08a5019c ended
	// embed sessions of provider session 08a5019c revoked
	// host logins of subject 248289761001 ended
	// embed sessions of subject 248289761001 revoked
}
