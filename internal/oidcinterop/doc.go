// Package oidcinterop holds tests only: a host app built from the kit's
// own pieces (oidcclaims' zero Mapping, gorillasession.Identity with its
// default settings and a MemoryEndedLogins, the middleware Kit, and
// oidcclaims.BackChannelLogout through oidcclaims.EndingLogins), signed in
// through HTTP against two OpenID providers: the demo's development
// provider (internal/devidp) and an OpenID-certified provider library,
// github.com/zitadel/oidc/v3's op package with its example storage. The
// tests hold the one model of a login to both: a login has a key of its
// own, the provider's sid is kept beside it, a back-channel logout that
// names only the sid ends that provider session's logins and revokes their
// embed sessions, and signing in again in the same provider session after
// a local sign-out works.
//
// The zitadel/oidc dependency is for these tests only; no package of the
// module imports it.
package oidcinterop
