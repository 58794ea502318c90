// Package oidcclaims turns the claims of a verified OpenID Connect ID token
// (or a user info response) into a middleware.Viewer, and serves OpenID
// Connect Back-Channel Logout.
//
// # Mapping claims
//
// A Mapping names, for each Viewer field, the claim it comes from. The zero
// Mapping reads the standard claims: sub, sid (into Viewer.ProviderSID),
// email, name, picture, locale, zoneinfo and groups. Tenant and CreatorMode are read only when named, and
// Attributes maps attribute names to claims of a declared type:
//
//	m := oidcclaims.Mapping{
//		Groups: "realm_access.roles",
//		Tenant: "https://example.com/claims.tenant",
//		Attributes: map[string]oidcclaims.Attribute{
//			"region": {Claim: "region", Type: embedkit.AttributeString},
//		},
//	}
//	viewer, err := m.FromIDToken(idToken) // after verifier.Verify and the nonce check
//
// # Claim names
//
// A claim name is split into segments at every unescaped dot. Lookup walks
// the claims from the top: at each level it takes the longest run of the
// remaining segments that, joined with dots, is a key of the object there.
// So "realm_access.roles" reads {"realm_access": {"roles": [...]}}, and
// "https://example.com/claims.tenant" reads a namespaced object
// {"https://example.com/claims": {"tenant": "acme"}} as well as a flat claim
// named "https://example.com/claims.tenant" (the longer key wins when both
// exist). Write \. for a dot that must stay inside one key and never be a
// level, and \\ for a backslash. A value on the way that is not an object is
// an error naming the claim.
//
// # Types
//
// Conversion is strict, and a claim of the wrong type is an error naming the
// claim, never a silently dropped value:
//
//   - Viewer string fields (sub, sid, email, name, picture, locale,
//     zoneinfo, tenant) want JSON strings. A picture string that is not
//     one the platform accepts (embedkit.IsPictureURL: an absolute http
//     or https URL with a host) is left out, as the Policy leaves it out
//     of a session: a profile picture does not block a sign-in.
//   - CreatorMode wants a JSON boolean; the string "true" is refused.
//   - Groups want a JSON array of strings, or one string whose items are
//     separated by spaces or commas. Empty items and duplicates are dropped.
//   - Attributes want the JSON type of their declared type: string, number
//     (JSON numbers only; "3" is refused), boolean, string_array,
//     number_array. Values become string, float64, bool, []string and
//     []float64.
//
// A missing claim, or a JSON null, leaves its field empty; only the subject
// is required.
//
// # Session key and provider session
//
// Viewer.SessionKey groups the embed sessions minted during one login so
// that logout revokes exactly those, and names the login in a list of
// ended logins. Every login gets a key of its own: by default a hash of
// sub, iat, nonce and sid, which is new at every login as long as the
// Viewer is built once, from the login's own ID token (not from a
// refreshed one or from user info). With neither iat nor nonce it is
// empty: gorillasession.Identity.Save then draws a random key, and a
// Kit without one keys the login by its subject. Mapping.SessionKey names
// a claim to use instead, for a provider that identifies each login
// itself.
//
// The provider's sid goes to Viewer.ProviderSID, beside the key and never
// in its place: a provider keeps its session when the user signs out of
// the host alone, so the next sign-in carries the same sid, and a login
// keyed by it would be refused for the record of the last one. (Before
// this, the zero Mapping used sid as the key; Mapping{SessionKey: "sid"}
// still does, and brings that refusal back.)
//
// # Back-channel logout
//
// BackChannelLogout serves the provider's logout notifications (OpenID
// Connect Back-Channel Logout 1.0). It verifies the logout token with the
// host's oidc.IDTokenVerifier, checks the logout-specific rules (typ
// logout+jwt, the events claim, no nonce, sub or sid, jti used once) and asks
// a SubjectRevoker to end the subject's sessions, or, for a token that
// names only a sid, a ProviderSessionRevoker to end every login made in
// that provider session. A token whose iat is more than DefaultClockSkew
// in the future is refused. For an app whose logins live in cookies,
// EndingLogins ends both sides, the host's logins in its
// middleware.EndedLogins and the embed sessions through the Kit:
//
//	revoker := oidcclaims.EndingLogins(identity.EndedLogins, kit)
//	handler := oidcclaims.BackChannelLogout(verifier, revoker)
//
// The handler answers 200 only when both sides ended what the token
// names; otherwise 400, and the provider may send the token again.
//
// # Key fetches
//
// Anyone can POST to the back-channel logout endpoint, so a forged token
// must not make the host call the provider. A verifier from
// Provider.Verifier does: go-oidc's RemoteKeySet fetches the key set again
// for every token its cached keys do not verify (an unknown kid, or just a
// bad signature), so 500 forged POSTs cost 500 fetches. A KeySet fetches at
// most once per DefaultKeyRefreshInterval and refuses such tokens in
// between; a rotated key is picked up by the next fetch. Build the
// verifier for BackChannelLogout on one, from the provider's discovery
// document:
//
//	var meta struct {
//		Issuer  string   `json:"issuer"`
//		JWKSURL string   `json:"jwks_uri"`
//		Algs    []string `json:"id_token_signing_alg_values_supported"`
//	}
//	if err := provider.Claims(&meta); err != nil {
//		return err
//	}
//	keys := oidcclaims.NewKeySet(meta.JWKSURL, oidcclaims.KeySetConfig{Client: httpClient, Now: now})
//	verifier := oidc.NewVerifier(meta.Issuer, keys, &oidc.Config{
//		ClientID:             clientID,
//		SupportedSigningAlgs: meta.Algs,
//		Now:                  now,
//	})
//	handler := oidcclaims.BackChannelLogout(verifier, kit, oidcclaims.WithClock(now))
//
// The same verifier serves for ID tokens at login. A KeySet verifies
// public-key signatures only, so an HS256 or "none" in the provider's list
// admits nothing.
package oidcclaims
