package middleware

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Viewer is the host application's logged-in user, as the kit sees it. It
// comes from the host's own session or a verified token, never from the
// request body or query string.
type Viewer struct {
	// Subject is the stable identifier of the user at the host. The Policy
	// derives the platform externalId from it (trimmed, lower-cased). A
	// subject that this changes beyond ASCII white space and the letters
	// A-Z (the Kelvin sign U+212A, "É") is refused, never minted for:
	// lower-cased, it could be another user's externalId
	// (embedkit.ExternalIDCaseSafe).
	Subject string
	// SessionKey identifies the host's login session: stable while the user
	// stays logged in, new at each login, and the login's own (never the
	// identity provider's session id, which outlives a sign-out at the host
	// alone: see ProviderSID). Session ids minted for the viewer are kept
	// under it so that logout revokes exactly them. Empty means the subject
	// is used, so logout then revokes all of the subject's sessions.
	SessionKey string
	// ProviderSID is the identity provider's session id for the login (the
	// OpenID Connect "sid" claim), or empty. It is kept beside SessionKey,
	// not in its place: one provider session may hold several host logins
	// (a user who signs out of the host alone and signs in again gets the
	// same sid), and a logout that names the sid ends every one of them
	// (EndedLogins.EndLoginsOfSID, Kit.RevokeProviderSession) while a new
	// login is never refused for an old one's record.
	ProviderSID string

	Email       string
	DisplayName string
	// Picture is an absolute http or https URL, or empty.
	Picture string
	// Groups are the host's group names; the Policy maps them to platform
	// groups.
	Groups []string
	// Attributes are typed attribute values (string, float64, bool,
	// []string, []float64) keyed by attribute name.
	Attributes map[string]any
	// Tenant is the embed tenant the user belongs to, or empty.
	Tenant string
	// CreatorMode asks for a creator-mode session.
	CreatorMode bool
	// Locale is a BCP-47 tag from the user's profile, or empty.
	Locale string
	// TimeZone is an IANA zone name from the user's profile, or empty.
	TimeZone string
}

// Key returns the key under which minted session ids are kept for this
// viewer: SessionKey when set, otherwise a key derived from Subject.
func (v *Viewer) Key() string {
	if v.SessionKey != "" {
		return "s:" + v.SessionKey
	}
	return "u:" + v.Subject
}

// providerKey is the key under which minted session ids are kept, a
// second time, for the provider session sid (Kit.RevokeProviderSession).
func providerKey(sid string) string { return "p:" + sid }

// ErrNoViewer is returned by an Identity when the request has no logged-in
// user. Handlers answer it with 401, or a redirect to login when configured.
var ErrNoViewer = errors.New("middleware: no logged-in viewer")

// UnverifiedViewerError is an Identity's error that still names the viewer
// the request claims to be: the Identity read who it is but could not
// check that the login is still live (its EndedLogins is unreachable).
// The kit never mints for such a viewer: handlers answer 503 with
// Retry-After, as for a SessionStore that does not answer (ErrStore),
// since the viewer can only wait. Logout (Kit.RevokeRequest, Kit.Logout)
// still revokes the embed sessions minted for that login, since a logout
// may revoke more than it must but never less.
type UnverifiedViewerError struct {
	// Viewer is who the request claims to be, as the Identity read it.
	Viewer *Viewer
	// Err is why the login could not be checked.
	Err error
}

func (e *UnverifiedViewerError) Error() string { return e.Err.Error() }
func (e *UnverifiedViewerError) Unwrap() error { return e.Err }

// Identity tells who the viewer of a request is.
//
// Viewer returns ErrNoViewer (possibly wrapped) when nobody is logged in,
// and another error when the user is logged in but their data cannot be
// mapped (for example a claim of the wrong type); that error names the
// claim or field. An Identity that knows who the viewer is but cannot
// check that the login is still live returns an *UnverifiedViewerError.
// Implementations must be safe for concurrent use.
//
// An Identity the host's login handler writes to (gorillasession's on
// cookies, scssession's on alexedwards/scs server-side sessions) has,
// beside Viewer, a Save and a Clear, and the contract covers all three:
//
//   - Viewer.SessionKey is the login's own key: random and unguessable
//     (gorillasession and scssession use 130 bits), made at Save, the
//     same for every request of the login and new at every sign-in. It is
//     not the session library's token or cookie value (a bearer
//     credential, which the library may renew within one login) and not
//     the provider's sid (Viewer.ProviderSID, kept beside it). The Kit
//     keeps the embed sessions it mints under it, so logout revokes
//     exactly that login's.
//   - Save(w, r, v) starts a fresh login for v: the session's earlier
//     values are dropped and its id renewed (no session fixation), and v
//     gets a fresh SessionKey when it has none. Over an existing login
//     (another user in the same browser, or the same user again) it ends
//     that login as logout would: its embed sessions are revoked, and a
//     copy of its cookie signs nobody in. The Identity does this through
//     the Kit it is built with (KitUser: New hands the Kit to
//     gorillasession.Identity and scssession.Identity as their Revoker);
//     otherwise the login handler must call Kit.RevokeRequest before
//     Save, or the earlier login's embeds stay alive.
//   - Clear(w, r) ends the login: from then on neither the request's
//     cookie nor any copy of it signs anyone in. A server-side session
//     store deletes the session, and needs no EndedLogins; a session held
//     whole in a cookie cannot be deleted, so its key goes to an
//     EndedLogins until every copy has expired. Mount the logout handler
//     that calls Clear inside Kit.Logout, which revokes the login's embed
//     sessions before it runs.
//   - Back-channel logout ends the logins of a subject or of a provider
//     session (EndedLogins.EndLoginsOf and EndLoginsOfSID for cookies,
//     scssession.Identity.EndingLogins for scs) beside the Kit's
//     RevokeSubject and RevokeProviderSession.
//
// identitytest.Run checks an Identity against this contract through
// HTTP; every such Identity of the kit runs it. An Identity that reads a
// trusted proxy's headers on every request (proxyheaders) has no login of
// its own to save or clear, and no SessionKey.
type Identity interface {
	Viewer(r *http.Request) (*Viewer, error)
}

// KitUser is an Identity that works with the Kit it is configured in. New
// calls UseKit with the Kit it built, once, before it returns it, so that
// the two are joined without a line of the app's: the kit's own
// Identities take the Kit as what revokes the embeds of a login that a
// sign-in replaces (gorillasession.Identity.Revoker,
// scssession.Identity.Revoker) and as the Keeper of a logout their list
// of ended logins could not record (gorillasession.Identity.Keeper).
// UseKit only keeps k (the Kit is not serving yet) and leaves alone what
// the app set itself. An Identity wrapped in another (an IdentityFunc
// around it) is not found: set its fields to the Kit by hand.
type KitUser interface {
	UseKit(k *Kit)
}

// LoginChecker is an Identity that can look again, for a request it has
// already answered, whether the login it returned has ended since (a
// logout or a sign-in over it in another request). The Kit asks after
// recording a minted id, so that a mint racing a logout revokes its own
// id (see Kit.Logout). An Identity without it is asked Viewer again,
// which serves as long as Viewer reads the login's state afresh
// (gorillasession's list of ended logins does); one that reads a copy
// loaded when the request began (scssession) implements LoginChecker.
// An error counts as "not ended": the mint was checked before it was sent.
type LoginChecker interface {
	LoginEnded(r *http.Request, v *Viewer) (bool, error)
}

// IdentityFunc adapts a function to Identity.
type IdentityFunc func(r *http.Request) (*Viewer, error)

// Viewer calls f(r).
func (f IdentityFunc) Viewer(r *http.Request) (*Viewer, error) { return f(r) }

// Login names one host login to EndedLogins.LoginEnded: whose it is, its
// own key, the provider session it was made in, and when it was saved.
type Login struct {
	// Subject is the login's Viewer.Subject.
	Subject string
	// Key is the login's Viewer.SessionKey; empty when it has none.
	Key string
	// ProviderSID is the login's Viewer.ProviderSID; empty when the
	// provider sent none.
	ProviderSID string
	// Issued is when the login was saved (the sign-in).
	Issued time.Time
}

// EndedLogins is a server-side list of host login sessions that ended,
// for an Identity whose sessions the server cannot delete: a cookie that
// holds the whole session stays valid until it expires, so logout records
// its key here, and the Identity refuses a copy of it from then on
// (gorillasession.Identity.EndedLogins). Ending a login here is not
// revoking an embed session on the platform: that is the Kit's
// (Kit.RevokeRequest, RevokeSessionKey, RevokeSubject,
// RevokeProviderSession).
//
// A login is named three ways, and a record by any of them ends exactly
// the logins it names: its own key (EndLogin), its subject (EndLoginsOf)
// and its provider session (EndLoginsOfSID). The last two end the logins
// saved until the call, never a later one, so a new login is never
// refused for an old one's record.
//
// gorillasession.MemoryEndedLogins keeps the list in one process;
// redisstore.EndedLogins shares it between instances and restarts.
// storetest.RunEndedLogins checks an implementation. Implementations must
// be safe for concurrent use.
type EndedLogins interface {
	// EndLogin records that the login session with key (its
	// Viewer.SessionKey) ended. The record may be dropped after until,
	// when every cookie of the login is refused anyway; a later until
	// extends an earlier record, an earlier one never shortens it, and an
	// until already past records nothing. An empty key is an error.
	EndLogin(ctx context.Context, key string, until time.Time) error
	// EndLoginsOf ends every login session of subject saved until now
	// (OpenID Connect back-channel logout); a session saved later (a new
	// login) is not affected. An empty subject is an error.
	EndLoginsOf(ctx context.Context, subject string) error
	// EndLoginsOfSID ends every login session made in the provider
	// session sid (Viewer.ProviderSID) saved until now, for OpenID
	// Connect back-channel logout by a token that names a sid; a session
	// saved later (a new login in the same provider session) is not
	// affected. An empty sid is an error.
	EndLoginsOfSID(ctx context.Context, sid string) error
	// LoginEnded reports whether the login l has ended: by its key, by an
	// EndLoginsOf of its subject or an EndLoginsOfSID of its provider
	// session at or after l.Issued. An empty Key or ProviderSID matches
	// no record. An error (the list is unreachable) is returned as such,
	// never as "not ended": the caller decides.
	LoginEnded(ctx context.Context, l Login) (bool, error)
}
