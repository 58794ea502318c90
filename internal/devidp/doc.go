// Package devidp is a DEVELOPMENT-ONLY OpenID Connect provider. It is not
// for production: its users and passwords are fixed in code, its signing key
// lives only in memory, and it keeps no audit trail.
//
// It exists so that the demo application and the tests can sign users in
// through real OpenID Connect, with the same code path a production identity
// provider would take: a relying party discovers it, fetches its keys,
// sends the browser to its sign-in page, exchanges the authorization code
// and verifies the ID token with an unmodified OIDC library.
//
// # What it speaks
//
//   - Discovery at /.well-known/openid-configuration and keys at /jwks
//     (one RSA 2048 key generated at start, RS256 only).
//   - Authorization code flow with PKCE at /authorize and /token. Only the
//     S256 challenge method is accepted; a missing challenge or "plain" is
//     refused. Codes are single-use and live 60 seconds; the redirect_uri of
//     the token request must equal the one of the authorization request;
//     clients authenticate with client_secret_basic or client_secret_post.
//   - ID tokens with iss, sub, aud, exp, iat, auth_time, nonce, sid and
//     at_hash, plus profile claims: name, email, preferred_username, groups,
//     region, tenant, creator_mode, locale and zoneinfo.
//   - /userinfo with the bearer access token.
//   - RP-initiated logout at /logout, by GET or POST (id_token_hint,
//     client_id, post_logout_redirect_uri checked against the client's
//     registered list, state). A cross-site request cannot sign anyone
//     out: the provider ends a sign-in at once only for a valid
//     id_token_hint whose sid names that sign-in, still live; otherwise it
//     asks the user on a confirmation page, whose POST must come from the
//     provider's own origin (http.CrossOriginProtection), as RP-Initiated
//     Logout 1.0 section 2 requires when the hint is absent or does not
//     match. A valid hint is a JWS signed RS256 with the provider's key,
//     header typ "JWT" (a logout token is refused), iss equal to the
//     issuer, a sub, and aud containing the client_id (or naming exactly
//     one registered client when no client_id is sent); exp is not
//     checked (section 4: the OP should accept an expired ID token). An
//     invalid hint is answered 400 and ends nothing. Ending a sign-in
//     revokes its access tokens and sends back-channel logout tokens to
//     clients that registered a loopback BackChannelLogoutURI: with sub
//     and sid, or with the sid alone for a client with BackChannelSIDOnly.
//
// The sign-in page always asks for a user name and password, so switching
// between demo users is one sign-out away. With Config.SingleSignOn a
// browser that still holds a live sign-in at the provider gets a code at
// once instead, for that sign-in and its sid, as most providers answer:
// a user who signed out of a client alone and signs in again carries the
// same sid.
//
// # Short path
//
//	ln, err := devidp.Listen("127.0.0.1:9090", false)
//	...
//	idp, err := devidp.New(devidp.Config{
//		Issuer: "http://" + ln.Addr().String(),
//		Clients: []devidp.Client{{
//			ID:                     "webapp",
//			Secret:                 "webapp-dev-secret",
//			RedirectURIs:           []string{"http://127.0.0.1:8080/auth/callback"},
//			PostLogoutRedirectURIs: []string{"http://127.0.0.1:8080/"},
//		}},
//	})
//	...
//	http.Serve(ln, idp)
//
// With no Users configured the provider serves [DemoUsers]. Listen refuses
// addresses other than loopback unless forced, so the provider is not
// reachable from the network by accident.
package devidp
