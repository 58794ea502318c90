// Package identitytest is the conformance suite for a middleware.Identity
// that the host's login and logout handlers write to: every Identity of
// the kit runs it from its own tests, and an Identity written outside
// the kit runs it the same way, with a Harness that says how the app
// signs a viewer in and out:
//
//	func TestIdentityConformance(t *testing.T) {
//		identitytest.Run(t, func(t *testing.T) identitytest.Harness {
//			id := myidentity.New()
//			return identitytest.Harness{Identity: id, SignIn: id.Save, SignOut: id.Clear}
//		})
//	}
//
// Run serves the Identity on loopback, behind a Kit on an emulated
// platform (embedkittest) with memstore, and checks the contract that
// middleware.Identity states, through HTTP:
//
//   - Viewer answers ErrNoViewer before a sign-in, and the saved viewer,
//     every field, after it;
//   - each login has a SessionKey of its own: not empty, new at every
//     sign-in, not the session library's token (no cookie holds it), not
//     the provider's sid;
//   - a sign-in over a login revokes the earlier login's embed sessions
//     (counted at the emulator) and ends it: a copy of its cookie signs
//     nobody in;
//   - logout through Kit.Logout revokes the login's embeds and ends it,
//     and leaves another browser's login alone;
//   - back-channel logout by subject and by provider session ends exactly
//     those logins, and a sign-in after it works (when the Identity can:
//     Harness.EndLoginsOf, EndLoginsOfSID);
//   - concurrent sign-ins and reads each see their own login.
//
// A part of the contract an Identity cannot meet by design is declared in
// the Harness (CopiesOutliveLogout: a cookie store with no list of ended
// logins; no EndLoginsOf: nothing to list) and noted in the test log, so
// `go test -v` shows what was covered.
//
// The suite applies to an Identity the host's own login writes to. It
// does not apply to proxyheaders.Identity, which reads a trusted proxy's
// headers on every request: the proxy owns the login, so there is no
// sign-in or sign-out at the host to drive, and no session key (its
// viewers have none, and the kit keeps their embeds under the subject:
// logout revokes all of the subject's). oidcclaims is not an Identity: it
// maps a verified token's claims to the Viewer that the login handler
// gives to an Identity such as gorillasession's or scssession's.
//
// The package uses package testing but declares no flags and keeps no
// global state, so importing it from any test binary is safe.
package identitytest
