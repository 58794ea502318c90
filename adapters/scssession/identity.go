package scssession

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/alexedwards/scs/v2"

	"github.com/embedkit/embedkit/middleware"
)

// The Kit asks the Identity afresh whether a login ended during a mint.
var _ middleware.LoginChecker = (*Identity)(nil)

// viewerValue is the key of the viewer in the scs session.
const viewerValue = "embedkit.viewer"

// scsNoSession is the value scs panics with when a SessionManager method
// is called on a context that LoadAndSave did not load.
const scsNoSession = "scs: no session data in context"

// ErrNoLoadAndSave is returned (wrapped) by every method that reads the
// request's session when the request did not pass through the
// SessionManager's LoadAndSave, where scs itself would panic. The fix is
// to mount the kit's handlers, and the login and logout handlers, inside
// it: http.ListenAndServe(addr, sessionManager.LoadAndSave(mux)).
var ErrNoLoadAndSave = errors.New("scssession: the request has no scs session: mount the kit's handlers (and the login and logout handlers) inside SessionManager.LoadAndSave, e.g. http.ListenAndServe(addr, sessionManager.LoadAndSave(mux))")

// ErrNotIterable is returned by EndLoginsOf and EndLoginsOfSID when the
// SessionManager's Store cannot list its sessions: it implements neither
// scs.IterableStore nor scs.IterableCtxStore.
var ErrNotIterable = errors.New("scssession: the scs store cannot list its sessions (it implements neither scs.IterableStore nor scs.IterableCtxStore), so logins cannot be ended by subject or provider session")

// ErrNoRevoker is returned by Save when the request already holds a login
// and Identity.Revoker is nil: the earlier login's embed sessions would
// stay alive under the new viewer's browser. Set Identity.Revoker to the
// Kit.
var ErrNoRevoker = errors.New("scssession: signing in over a login needs Identity.Revoker (the *middleware.Kit) to revoke that login's embed sessions")

// Revoker revokes the embed sessions minted for one host login, by its
// Viewer.SessionKey. *middleware.Kit implements it (Kit.RevokeSessionKey).
type Revoker interface {
	RevokeSessionKey(ctx context.Context, sessionKey string) error
}

// Identity keeps the kit's viewer in an alexedwards/scs session: the
// login handler calls Save, the kit calls Viewer on every request, logout
// calls Clear. The session lives in the SessionManager's Store on the
// server (the browser holds only its token), so ending a login deletes it
// there, and no middleware.EndedLogins is needed. It is safe for
// concurrent use.
type Identity struct {
	sm *scs.SessionManager

	// Revoker revokes the embed sessions of a login that ends: the one a
	// sign-in replaces (Save) and the one Clear ends. middleware.New
	// sets it to the Kit it builds when it is nil (UseKit). Without one
	// (an Identity no Kit was built with) Save refuses to sign in over an
	// earlier login (ErrNoRevoker), and Clear leaves the revoke to
	// Kit.Logout, which runs before it. The Kit's
	// Store must be a server-side one (memstore, redisstore):
	// Kit.RevokeSessionKey cannot reach ids a cookie holds.
	Revoker Revoker
	// Logger receives a logout Clear could not complete (no session key,
	// no token: only the step and the error). Nil means slog.Default().
	Logger *slog.Logger
	// Metrics counts the logouts Clear could not complete, when it
	// implements middleware.LogoutMetrics. Pass the Kit's Config.Metrics.
	Metrics middleware.Metrics

	// plainHTTPWarned is set once the plain-http warning is logged.
	plainHTTPWarned atomic.Bool
}

var (
	_ middleware.Identity = (*Identity)(nil)
	_ middleware.KitUser  = (*Identity)(nil)
)

// UseKit implements middleware.KitUser: middleware.New calls it with the
// Kit it builds, which becomes the Revoker when it is nil.
func (id *Identity) UseKit(k *middleware.Kit) {
	if id.Revoker == nil {
		id.Revoker = k
	}
}

// New returns an Identity that keeps the viewer in the sessions of sm.
// sm's Store holds the sessions; to end logins by subject or by provider
// session (back-channel logout) it must also implement
// scs.IterableStore or scs.IterableCtxStore (memstore, redisstore and
// goredisstore do). New panics when sm is nil.
func New(sm *scs.SessionManager) *Identity {
	if sm == nil {
		panic("scssession: New needs an *scs.SessionManager")
	}
	return &Identity{sm: sm}
}

func (id *Identity) logger() *slog.Logger {
	if id.Logger != nil {
		return id.Logger
	}
	return slog.Default()
}

// loaded reports ErrNoLoadAndSave when ctx holds no session of the
// SessionManager. scs only panics then; its panic is turned into the
// error here, and any other panic goes on.
func (id *Identity) loaded(ctx context.Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if s, ok := p.(string); ok && s == scsNoSession {
				err = ErrNoLoadAndSave
				return
			}
			panic(p)
		}
	}()
	id.sm.Status(ctx)
	return nil
}

// stored returns the login the session of ctx holds; ok is false when it
// holds none (or a value that is not a viewer). ctx must be loaded.
func (id *Identity) stored(ctx context.Context) (storedViewer, *middleware.Viewer, bool) {
	raw, _ := id.sm.Get(ctx, viewerValue).(string)
	return decodeViewer(raw)
}

// Save starts a fresh login for v in the request's scs session: when the
// session already holds a login (another user, or the same one signing in
// again), that login's embed sessions are revoked first through Revoker,
// and it ends; every value of the session is dropped and the session gets
// a new token (scs RenewToken, which deletes the old one from the store,
// so a copy of the old cookie signs nobody in); then v is stored under a
// SessionKey of its own: v.SessionKey when set, otherwise a fresh random
// key (130 bits). The key is never the scs token, which changes at every
// RenewToken and is a bearer credential; a v.SessionKey equal to the
// token is refused.
//
// Read what the session must carry across the sign-in (a return path)
// before Save. Save must run before the response is written: scs writes
// the cookie when the handler returns, or at its first Write. When the
// earlier login's embeds cannot be revoked (the Kit's store is down), or
// the store cannot delete the old token, Save returns that error and the
// session keeps the earlier login. A revoke the Kit could not make for
// want of its store is kept and made once the store answers
// (Kit.RevokeSessionKey), so the earlier login's embed sessions end all
// the same and its frames mint again: a different person may be signing
// in on this browser. Without a Revoker Save returns ErrNoRevoker.
func (id *Identity) Save(w http.ResponseWriter, r *http.Request, v *middleware.Viewer) error {
	if v == nil || v.Subject == "" {
		return errors.New("scssession: Save: viewer without Subject")
	}
	ctx := r.Context()
	if err := id.loaded(ctx); err != nil {
		return err
	}
	id.checkScheme(r)
	key := v.SessionKey
	if key == "" {
		key = rand.Text()
	} else if key == id.sm.Token(ctx) {
		return errors.New("scssession: Save: Viewer.SessionKey is the scs session token; leave it empty for a random key of the login's own")
	}
	raw, err := encodeViewer(v, key)
	if err != nil {
		return err
	}
	if _, old, ok := id.stored(ctx); ok {
		if id.Revoker == nil {
			return ErrNoRevoker
		}
		if err := id.Revoker.RevokeSessionKey(ctx, old.SessionKey); err != nil {
			return fmt.Errorf("scssession: Save: revoking the embed sessions of the login signed in over: %w", err)
		}
	}
	if err := id.sm.RenewToken(ctx); err != nil {
		return fmt.Errorf("scssession: Save: renewing the session token: %w", err)
	}
	if err := id.sm.Clear(ctx); err != nil {
		return fmt.Errorf("scssession: Save: clearing the session: %w", err)
	}
	id.sm.Put(ctx, viewerValue, raw)
	return nil
}

// Viewer returns the viewer Save stored in the request's scs session, or
// ErrNoViewer when the session holds none (never signed in, signed out,
// expired or deleted in the store: scs then starts an empty session). It
// returns an error wrapping ErrNoLoadAndSave when the request did not
// pass through the SessionManager's LoadAndSave.
func (id *Identity) Viewer(r *http.Request) (*middleware.Viewer, error) {
	ctx := r.Context()
	if err := id.loaded(ctx); err != nil {
		return nil, err
	}
	_, v, ok := id.stored(ctx)
	if !ok {
		return nil, middleware.ErrNoViewer
	}
	return v, nil
}

// LoginEnded reports whether the login of v, which Viewer read from the
// session scs loaded when r began, has ended since: its session is gone
// from the store (a logout, or a sign-in over it, in another request).
// It implements middleware.LoginChecker: the Kit asks it after recording
// a minted id, so that a mint racing a logout revokes its own id; Viewer
// alone would answer from the copy loaded before the logout. A session
// this request changed or has not saved yet is this request's own, and
// counts as live. It costs one read of the store.
func (id *Identity) LoginEnded(r *http.Request, v *middleware.Viewer) (bool, error) {
	ctx := r.Context()
	if err := id.loaded(ctx); err != nil {
		return false, err
	}
	switch id.sm.Status(ctx) {
	case scs.Destroyed:
		return true, nil
	case scs.Modified:
		return false, nil
	}
	token := id.sm.Token(ctx)
	if token == "" {
		return false, nil
	}
	var found bool
	var err error
	if cs, ok := id.sm.Store.(scs.CtxStore); ok {
		_, found, err = cs.FindCtx(ctx, token)
	} else {
		_, found, err = id.sm.Store.Find(token)
	}
	if err != nil {
		return false, fmt.Errorf("scssession: LoginEnded: reading the session from the store: %w", err)
	}
	return !found, nil
}

// Clear ends the request's login: it destroys the scs session (deleted
// from the store, so no copy of its cookie signs anyone in; LoadAndSave
// expires the cookie), then, with a Revoker, revokes the login's embed
// sessions by its key (after Kit.Logout, which revokes before it, there is
// nothing left to revoke, and nothing is revoked twice). When the store
// cannot delete the session, the viewer is removed from it (scs writes
// the session back without it at the end of the request), and the
// failure is logged and counted (middleware.ReportLogoutIncomplete, step
// middleware.LogoutStepLogin) and returned. A session with no login is
// destroyed all the same. Clear must run before the response is written.
func (id *Identity) Clear(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if err := id.loaded(ctx); err != nil {
		return err
	}
	_, v, hasViewer := id.stored(ctx)
	var errs []error
	if err := id.sm.Destroy(ctx); err != nil {
		id.sm.Remove(ctx, viewerValue)
		err = fmt.Errorf("scssession: Clear: deleting the session from the store: %w", err)
		middleware.ReportLogoutIncomplete(ctx, id.logger(), id.Metrics, middleware.LogoutStepLogin, err)
		errs = append(errs, err)
	}
	if hasViewer && id.Revoker != nil {
		if err := id.Revoker.RevokeSessionKey(ctx, v.SessionKey); err != nil {
			err = fmt.Errorf("scssession: Clear: revoking the login's embed sessions: %w", err)
			middleware.ReportLogoutIncomplete(ctx, id.logger(), id.Metrics, middleware.LogoutStepEmbeds, err)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// checkScheme warns once when a sign-in whose session cookie is Secure
// arrived over plain http (middleware.OverPlainHTTP): the browser will not
// send the cookie back, so the viewer is sent to sign in again, with no
// error anywhere.
func (id *Identity) checkScheme(r *http.Request) {
	if !id.sm.Cookie.Secure || id.plainHTTPWarned.Load() || !middleware.OverPlainHTTP(r) {
		return
	}
	if id.plainHTTPWarned.CompareAndSwap(false, true) {
		id.logger().LogAttrs(r.Context(), slog.LevelWarn,
			"scssession: the session cookie is Secure but this sign-in came over plain http: browsers will not send the cookie back (Chromium and Firefox make an exception for localhost and 127.0.0.1, Safari does not), so every sign-in loops back to the login page. "+
				"For development over plain http, set sessionManager.Cookie.Secure = false (never for a deployment reached over https); "+
				"behind a proxy that terminates TLS, pass its X-Forwarded-Proto through proxyheaders.Identity.ForwardedOrigin (middleware.WithRequestOrigin)",
			slog.String("host", r.Host), slog.String("path", r.URL.Path))
	}
}
