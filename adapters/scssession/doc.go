// Package scssession keeps the kit's viewer in an alexedwards/scs (v2)
// session: the server-side session path, beside gorillasession's cookies.
//
//	sessionManager := scs.New()                  // any scs store: memstore, redisstore, goredisstore, ...
//	identity := scssession.New(sessionManager)
//	kit, err := middleware.New(middleware.Config{Identity: identity, ...}) // the Kit becomes identity.Revoker
//
//	err = identity.Save(w, r, viewer)            // in the login handler
//	err = identity.Clear(w, r)                   // in the logout handler, inside kit.Logout
//	http.ListenAndServe(addr, sessionManager.LoadAndSave(mux))
//
// # Mounting
//
// scs loads a request's session in SessionManager.LoadAndSave and writes it
// back when the handler returns. Every handler that reaches the Identity
// (the kit's FrameURL pages, FrameHandler, SessionHandler and Logout, and
// the app's login and logout handlers) must be mounted inside it: wrap the
// whole mux. Where scs would panic ("scs: no session data in context"),
// the Identity returns an error wrapping ErrNoLoadAndSave that names the
// fix, and the kit answers 500 and logs it.
//
// # The login's key
//
// Viewer.SessionKey is the login's own key: random, 130 bits, made by
// Save, stored in the session beside the viewer, and new at every
// sign-in. It is not the scs token (a bearer credential that RenewToken
// replaces) and not the provider's sid (Viewer.ProviderSID, kept beside
// it). The kit keeps the embed session ids it mints under it, so logout
// revokes exactly that login's.
//
// # Ending a login
//
// The session lives in the scs store, so the server ends it by deleting
// it there: no middleware.EndedLogins is needed, unlike a cookie store.
//
//   - Save over a login (another user, or the same one again) revokes the
//     earlier login's embed sessions through Identity.Revoker (the Kit),
//     drops the session's values and renews its token, which deletes the
//     old one: a copy of the old cookie signs nobody in.
//   - Clear destroys the session (and, with a Revoker, revokes the
//     login's embeds, if kit.Logout has not already).
//   - Back-channel logout: Identity.EndingLogins(kit) serves
//     oidcclaims.BackChannelLogout, ending every login of a subject or of
//     a provider session (EndLoginsOf, EndLoginsOfSID) and revoking their
//     embeds.
//
// Limits, from scs: ending logins by subject or sid lists every session of
// the store (SessionManager.Iterate), so the store must implement
// scs.IterableStore or scs.IterableCtxStore (memstore, redisstore and
// goredisstore do; a store that does not gives ErrNotIterable, and the
// kit's embed sessions are still revoked), and each call reads every
// live session. A request of the ended login that is in flight while its
// session is deleted, and that scs commits when it ends (the handler
// changed a value, or the SessionManager has an IdleTimeout), writes the
// session back: scs has no tombstone. A mint that is at the platform for
// the whole logout leaves no live session: the Kit asks LoginEnded after
// recording the id, which reads the store (the session scs loaded when
// the request began still holds the login), and revokes the id.
//
// The conformance suite identitytest.Run checks this Identity against the
// kit's contract (middleware.Identity), with scs's memory store and with
// goredisstore on a real Redis.
package scssession
