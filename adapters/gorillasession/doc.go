// Package gorillasession keeps the kit's viewer, and optionally the embed
// session ids minted for it, in the host app's gorilla/sessions session.
//
// # Identity
//
// The host's login handler stores the viewer once, after verifying the
// login; the kit reads it on every request; logout clears it:
//
//	keys, err := gorillasession.KeysFromEnv(os.Getenv("SESSION_KEYS")) // hash:block, so the cookie is encrypted
//	store := gorillasession.SecureCookieStore(keys...)
//	id := gorillasession.New(store, "__Host-session") // "session" for development over http, where browsers refuse __Host-
//	id.EndedLogins = gorillasession.NewMemoryEndedLogins(gorillasession.DefaultMaxAge * time.Second) // logout sticks; redisstore.NewEndedLogins for several instances
//
//	err = id.Save(w, r, viewer) // in the login callback
//	v, err := id.Viewer(r)      // the kit, on each request
//	err = id.Clear(w, r)        // at logout, after the kit has revoked
//
// Save starts a fresh session (values stored before login are dropped) and
// stores a compact JSON of the viewer under one key, with a random session
// key when the viewer has none. A cookie that fails to decode, because it
// was tampered with, has expired, or was signed with a key no longer
// configured, means "logged out" (middleware.ErrNoViewer), never a server
// error.
//
// # Cookies
//
// SecureCookieStore sets the cookie options explicitly (HttpOnly,
// SameSite=Lax, Secure, Path "/", an 8-hour MaxAge), because
// sessions.NewCookieStore defaults to SameSite=None without HttpOnly.
// KeysFromEnv reads rotating keys, newest first, from one value such as a
// SESSION_KEYS variable.
//
// A hash key alone signs the cookie but does not encrypt it: whoever holds
// the cookie reads the viewer in it (subject, email, name, groups,
// attributes, the login's session key) and any minted ids kept there.
// Give each entry a block key as well (hash:block, see KeysFromEnv) and
// the cookie is encrypted too; we recommend it.
//
// A name starting with __Host- makes a browser keep the cookie only when
// this very host set it over https with Path=/ and no Domain, which
// SecureCookieStore's options meet: a sibling subdomain cannot plant a
// session. Browsers refuse the prefix over plain http, so development
// over http uses the plain name.
//
// Browsers never send a Secure cookie back over plain http, so an app
// reached at http://127.0.0.1 answers every sign-in with a cookie that
// does not return, and the viewer lands on the login page again. For
// development over http, set the store's Options.Secure = false (never for
// a deployment reached over https):
//
//	store := gorillasession.SecureCookieStore(keys...)
//	store.Options.Secure = false // development over http://127.0.0.1 only
//
// An Identity whose cookie is Secure logs one warning (Identity.Logger)
// when a request arrives over plain http, without TLS and without an https
// origin recorded by a trusted proxy (middleware.WithRequestOrigin, which
// proxyheaders.Identity.ForwardedOrigin sets from X-Forwarded-Proto).
//
// Its cookies are written with CompactSerializer, a small binary form of
// the session's values that decodes without reflection, in place of
// securecookie's gob, which compiled its type information again for every
// cookie it read (the largest single cost of an iframe load). Cookies
// written with gob still decode, so moving over signs nobody out: a host on
// SecureCookieStore has nothing to do, and a host with its own
// sessions.NewCookieStore calls UseCompactSerializer on it once. Each
// cookie moves to the compact form the next time its session is saved.
//
// A cookie holds at most MaxCookieBytes. Save refuses a viewer that does not
// fit with ErrCookieTooLarge, so the login handler can tell the user; about
// 40 groups of two dozen characters fit beside the usual profile claims,
// 200 do not. For users that large, pass a server-side sessions.Store (the
// cookie then holds only the session's id); Identity works with any store.
//
// # Logout that sticks
//
// A cookie cannot be deleted from the server: a copy taken before logout
// stays valid until its MaxAge. Set Identity.EndedLogins, a
// middleware.EndedLogins (MemoryEndedLogins for one instance that never
// restarts; redisstore.EndedLogins for several instances, or for logout
// that must survive a restart), and Clear records the login as ended, so
// that Viewer refuses the copy. (Ending a login is the host's side of
// logout; revoking the embed sessions minted for it on the platform is the
// Kit's, Kit.Logout.)
//
// New leaves EndedLogins nil; the first Clear of a login on a
// sessions.CookieStore without it logs one warning to Identity.Logger.
//
// Every save of the session signs the cookie anew, for another MaxAge, and
// a host may save it for a signed-out visitor too (a flash message, a
// language choice): a copy of the pre-logout cookie saved that way would
// outlive any record kept for a fixed time. So a login has an absolute
// lifetime, Identity.MaxLifetime, by default the cookie's MaxAge counted
// from Save, however often the cookie is saved again; and the record of
// an ended login lasts until that lifetime is over, and a second more
// (securecookie compares whole seconds, so it accepts a cookie up to
// MaxAge + 1 s after signing it). Identity.MaxLifetime = NoMaxLifetime
// turns the lifetime off; the record then lasts MaxAge and a second from
// the logout, and a copy that is saved again in that time outlives it.
//
// A login is named three ways: its own key (Viewer.SessionKey, random
// when the viewer has none), its subject and the identity provider's
// session id (Viewer.ProviderSID, the OpenID Connect sid, kept beside the
// key, never in its place). Clear ends the login by its key;
// EndLoginsOf ends every login of a subject and EndLoginsOfSID every
// login made in a provider session, for OpenID Connect back-channel
// logout (oidcclaims.EndingLogins). Each ends the logins saved until
// then, so a user who signs out of the host alone and signs in again in
// the same provider session is not refused for the old login's record.
// Pass NewMemoryEndedLogins and redisstore.NewEndedLogins the login
// lifetime (MaxLifetime, or the cookie's MaxAge), which is how long those
// records last.
//
// A sign-in over a login (another user in the same browser, or the same
// one again) ends the earlier login as logout would when the Kit is the
// Identity's Revoker, which middleware.New makes it (Identity.UseKit):
// Save revokes its embed sessions and records it in EndedLogins before it
// replaces the session. Without a Revoker (an Identity no Kit was built
// with) the login handler does both (Kit.RevokeRequest, then
// Identity.End) before Save. When a store does not answer, Save fails and
// the browser keeps the earlier login's cookie, but the Kit still revokes
// its embeds once the store answers (see Identity.Save).
//
// Clear expires the cookie before it writes to the list, so logout ends
// the session in the browser even while the list is down. A record it
// cannot write is logged to Identity.Logger and counted in
// Identity.Metrics (middleware.LogoutMetrics: pass the Kit's
// Config.Metrics), and Clear returns an error wrapping ErrNotRecorded.
// Set Identity.Keeper to the Kit and such a logout is not lost: the Kit
// keeps the ended login in memory, Viewer refuses it on this instance at
// once, and Kit.Run writes it to the list once the list answers, so every
// instance refuses it from then on. It is lost only if the instance ends
// before the list answers. While the list does not answer, Viewer returns
// a *middleware.UnverifiedViewerError, which the Kit answers with 503 and
// Retry-After.
//
// # Minted session ids
//
// Identity.SessionStore returns a middleware.SessionStore that keeps the
// minted ids in the same cookie, with no server state. It is request-scoped
// (middleware.RequestScoped), bounded by the cookie size (the records that
// expire first are dropped to make room), and loses ids when one browser
// sends concurrent requests; see Store. Prefer a server-side store when
// every id must be revocable.
package gorillasession
