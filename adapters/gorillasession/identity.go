package gorillasession

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/gorilla/sessions"

	"github.com/embedkit/embedkit/middleware"
)

// Session value keys.
const (
	viewerValue = "embedkit.viewer"
	mintedValue = "embedkit.minted"
)

// MaxCookieBytes bounds the whole Set-Cookie line of the session cookie
// (name, value and attributes), the size every browser keeps.
const MaxCookieBytes = 4096

// ErrCookieTooLarge is returned (wrapped) by Save when the viewer does not
// fit in MaxCookieBytes. The login handler should tell the user that the
// account carries too much data (groups, claims) to sign in, or map fewer
// claims; the session is left as it was.
var ErrCookieTooLarge = errors.New("gorillasession: session cookie too large")

// NoMaxLifetime, as Identity.MaxLifetime, turns the absolute lifetime of
// a login off.
const NoMaxLifetime time.Duration = -1

// ErrNotRecorded is returned (wrapped, with the list's error) by Clear and
// End when the ended login could not be written to EndedLogins. Clear has
// expired the cookie anyway, and has logged and counted the failure. With
// Identity.Keeper the ended login is kept in the process and written once
// the list answers (the error says so); without, it is lost. The error
// wraps middleware.ErrStore too: it is an outage of a store, which
// Kit.ServeError answers with 503 and Retry-After (Save returns it when
// the login it signs in over could not be recorded as ended).
var ErrNotRecorded = errors.New("gorillasession: the ended login could not be recorded")

// Identity keeps the viewer in the host's gorilla session: the login handler
// calls Save, the kit calls Viewer on every request, logout calls Clear. It
// is safe for concurrent use.
type Identity struct {
	store sessions.Store
	name  string

	// Now is the clock (default time.Now).
	Now func() time.Time
	// EndedLogins, when set, makes logout stick on the server: Clear records
	// the session key, and Viewer refuses revoked sessions, so a copy of a
	// pre-logout cookie no longer logs anyone in. Without it a cookie store
	// cannot invalidate a cookie before its MaxAge: the first Clear of a
	// login on a *sessions.CookieStore (SecureCookieStore's) with
	// EndedLogins nil logs one warning to Logger saying so. New leaves it
	// nil; set it before the Identity serves (NewMemoryEndedLogins for one
	// instance, redisstore.NewEndedLogins for several).
	EndedLogins middleware.EndedLogins
	// MaxLifetime is the absolute lifetime of a login, from Save: Viewer
	// refuses a session whose viewer was saved longer ago, however often
	// the cookie was saved again since (each save signs it anew, for
	// another MaxAge, so without this bound a copy of the cookie that
	// any handler saves, a flash message for a signed-out visitor, lives
	// on for ever). Zero means the session cookie's MaxAge (DefaultMaxAge
	// when the store sets none); NoMaxLifetime turns the bound off, which
	// leaves the cookie's MaxAge, renewed by every save, as the only one,
	// and lets a re-signed copy outlive its ended-login record.
	MaxLifetime time.Duration
	// Logger receives the Identity's records: the one warning of a Secure
	// cookie over plain http (see Viewer), and an ended login Clear could
	// not write to EndedLogins (no session key, only the list's error).
	// Nil means slog.Default().
	Logger *slog.Logger
	// Keeper, when set, keeps in the process the ended logins Clear and
	// End could not write to EndedLogins (the list did not answer) and
	// writes them there once it answers; meanwhile Viewer refuses those
	// logins on this instance. middleware.New sets it to the Kit it
	// builds when it is nil (UseKit); the Kit writes them from Run.
	// Without one, such a logout is lost: a copy of the cookie signs in
	// again once the list answers. With it, it is lost only if the
	// process ends before the list answers.
	Keeper middleware.EndedLoginKeeper
	// Metrics counts the logouts Clear could not record, when it
	// implements middleware.LogoutMetrics (the kit's Prometheus and
	// OpenTelemetry adapters do). Pass the Kit's Config.Metrics. Default:
	// none.
	Metrics middleware.Metrics
	// Revoker, when set, makes a sign-in over a login end that login as
	// logout would: Save revokes its embed sessions through Revoker and
	// records it in EndedLogins (End) before it replaces the session.
	// middleware.New sets it to the Kit it builds when it is nil
	// (UseKit). Without one (an Identity no Kit was built with), the
	// login handler does both itself before Save (Kit.RevokeRequest,
	// then End), or the earlier login's embeds stay alive.
	Revoker Revoker

	// plainHTTPWarned is set once the plain-http warning is logged.
	plainHTTPWarned atomic.Bool
	// noEndedLoginsWarned is set once the warning of a logout that
	// cannot stick (a cookie store without EndedLogins) is logged.
	noEndedLoginsWarned atomic.Bool
}

var (
	_ middleware.Identity = (*Identity)(nil)
	_ middleware.KitUser  = (*Identity)(nil)
)

// UseKit implements middleware.KitUser: middleware.New calls it with the
// Kit it builds, which becomes the Revoker and the Keeper where they are
// nil.
func (id *Identity) UseKit(k *middleware.Kit) {
	if id.Revoker == nil {
		id.Revoker = k
	}
	if id.Keeper == nil {
		id.Keeper = k
	}
}

// Revoker revokes the embed sessions of the login a request holds, where
// the Kit keeps them (in a server-side store, or in this very cookie:
// Identity.SessionStore). *middleware.Kit implements it
// (Kit.RevokeRequest).
type Revoker interface {
	RevokeRequest(w http.ResponseWriter, r *http.Request) error
}

// New returns an Identity that keeps the viewer in the session called name
// of store; SecureCookieStore makes a suitable store.
func New(store sessions.Store, name string) *Identity {
	return &Identity{store: store, name: name}
}

func (id *Identity) now() time.Time {
	if id.Now != nil {
		return id.Now()
	}
	return time.Now()
}

// session returns the request's session. A cookie that does not decode
// (tampered, expired, or signed with a key no longer configured) gives a
// fresh session: the user is logged out.
func (id *Identity) session(r *http.Request) (*sessions.Session, error) {
	sess, err := id.store.Get(r, id.name)
	if sess != nil && sess.Options != nil && sess.Options.Secure {
		id.checkScheme(r)
	}
	if err != nil {
		var scErr securecookie.Error
		// securecookie checks the length and the signature before it
		// decodes anything, so the session it returns is new and empty.
		// Every failure but a usage or internal one (a missing key, no
		// randomness) is about the cookie itself; that includes a value
		// over the length limit, which securecookie reports with an error
		// that is neither. The registry hands back the same session and
		// error for the rest of the request, with whatever this request has
		// stored in it since.
		if errors.As(err, &scErr) && !scErr.IsUsage() && !scErr.IsInternal() && sess != nil {
			return sess, nil
		}
		// A server-side store whose record is gone (sessions.FilesystemStore
		// after a clean-up) also means logged out.
		if errors.Is(err, fs.ErrNotExist) && sess != nil {
			sess.Values = map[any]any{}
			sess.IsNew = true
			return sess, nil
		}
		return nil, fmt.Errorf("gorillasession: reading session %q: %w", id.name, err)
	}
	return sess, nil
}

// Save starts a fresh login session for v: every value stored in the
// session before is dropped (no session fixation; with a server-side store
// the session also gets a new id), and a compact JSON of v is stored under
// one key. When v.SessionKey is empty the stored copy gets a fresh random
// key.
//
// When the session already holds a login (another user, or the same one
// signing in again) and Revoker is set, Save first ends that login as
// logout would: its embed sessions are revoked (Revoker.RevokeRequest)
// and it is recorded in EndedLogins (End), so a copy of its cookie signs
// nobody in. Then, with a Revoker that also revokes by session key (the
// Kit), it takes that login's ids once more, for a mint of it that was at
// the platform during the first take. Without Revoker the login handler
// must do both itself before Save.
//
// When either fails, Save returns the error and writes no cookie: the
// browser keeps the earlier login's cookie. What became of that login
// depends on what failed, and errs on the side of ending it, since a
// different person may be signing in on this browser:
//
//   - The revoke could not be made: the Kit's SessionStore did not
//     answer, or EndedLogins did not, so the login could not be checked
//     (which says the store is likely down too). The error wraps
//     middleware.ErrStore (Kit.ServeError answers 503 with Retry-After).
//     The earlier login is not ended, and signs in again once the stores
//     answer; but the Kit keeps the revoke in memory and makes it then
//     (Kit.RevokeRequest, from Kit.Run), so the earlier login's embed
//     sessions end all the same and its frames mint again. The kept
//     revoke is lost if the process ends first, and a RequestScoped store
//     (Identity.SessionStore, ids in this cookie) keeps nothing.
//   - The revoke was made, but the ended login could not be written to
//     EndedLogins. The error wraps ErrNotRecorded. With Keeper (the Kit)
//     the ended login is kept and written once the list answers, so the
//     earlier login's cookie signs nobody in (on this instance at once,
//     on every instance then), and a new sign-in succeeds once the list
//     answers.
//
// Save writes the Set-Cookie header, so it must run before the response
// header is written. When the cookie would exceed MaxCookieBytes it returns
// an error wrapping ErrCookieTooLarge and writes nothing.
func (id *Identity) Save(w http.ResponseWriter, r *http.Request, v *middleware.Viewer) error {
	if v == nil || v.Subject == "" {
		return errors.New("gorillasession: viewer without subject")
	}
	key := v.SessionKey
	if key == "" {
		key = newSessionKey()
	}
	rec, err := toStored(v, key, id.now())
	if err != nil {
		return err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("gorillasession: encoding viewer: %w", err)
	}
	if err := id.endEarlier(w, r); err != nil {
		return err
	}
	sess, err := id.session(r)
	if err != nil {
		return err
	}
	old, oldID := sess.Values, sess.ID
	sess.Values = map[any]any{viewerValue: string(b)}
	sess.ID = ""
	if err := saveBounded(w, r, sess); err != nil {
		sess.Values, sess.ID = old, oldID
		return err
	}
	return nil
}

// Viewer returns the viewer stored by Save. It returns ErrNoViewer when the
// session holds none, when the cookie does not decode (tampered, expired,
// or signed with a retired key), when the login is older than
// MaxLifetime (by default the cookie's MaxAge from Save), and when
// EndedLogins says the login ended (by its key, its subject or its
// provider session). When
// EndedLogins cannot be read, the error is a
// *middleware.UnverifiedViewerError: the kit mints nothing for the
// request, and its logout still revokes the login's embed sessions.
//
// When the session cookie is Secure and a request reaches Viewer, Save or
// Clear over plain http (no TLS, and no https origin recorded by a trusted
// proxy through middleware.WithRequestOrigin), the Identity logs one
// warning at Warn on Logger, naming the fix: browsers drop a Secure cookie
// over http, so sign-in would loop back to the login page in silence.
func (id *Identity) Viewer(r *http.Request) (*middleware.Viewer, error) {
	sess, err := id.session(r)
	if err != nil {
		return nil, err
	}
	rec, ok := storedViewerOf(sess)
	if !ok {
		return nil, middleware.ErrNoViewer
	}
	v, ok := rec.viewer()
	if !ok {
		return nil, middleware.ErrNoViewer
	}
	issued := time.UnixMilli(rec.Issued)
	if life := id.lifetime(sess); life > 0 && !id.now().Before(issued.Add(life)) {
		return nil, fmt.Errorf("%w: the login is older than Identity.MaxLifetime", middleware.ErrNoViewer)
	}
	if id.EndedLogins != nil {
		if id.Keeper != nil && rec.SessionKey != "" && id.Keeper.EndedLoginKept(rec.SessionKey) {
			// Logged out while the list did not answer: this process
			// knows, the list will once it answers.
			return nil, middleware.ErrNoViewer
		}
		revoked, err := id.EndedLogins.LoginEnded(r.Context(), middleware.Login{
			Subject: rec.Subject, Key: rec.SessionKey, ProviderSID: rec.ProviderSID, Issued: issued,
		})
		if err != nil {
			// Who it is, but not whether the login still holds: the kit
			// mints nothing for it, and its logout still revokes.
			return nil, &middleware.UnverifiedViewerError{Viewer: v, Err: fmt.Errorf("gorillasession: checking the ended logins: %w", err)}
		}
		if revoked {
			return nil, middleware.ErrNoViewer
		}
	}
	return v, nil
}

// Clear ends the login session. It expires the cookie first (with a
// server-side store, deletes the record), whatever else fails, so that
// logout always ends the session in the browser. Then, when EndedLogins
// is set, it records the session key as ended until no copy of the
// cookie, however recently saved, can sign anyone in: the end of the
// login's MaxLifetime, or, with NoMaxLifetime, the cookie's MaxAge from
// now (and a second of slack: securecookie compares whole seconds). A record that cannot be written (the list is down) is logged
// to Logger and counted in Metrics (middleware.ReportLogoutIncomplete,
// step middleware.LogoutStepLogin), and Clear returns an error wrapping
// ErrNotRecorded: the cookie is gone, but a copy taken before logout
// signs in until it expires, unless Keeper keeps the ended login and
// writes it once the list answers. When the store cannot read the session at
// all, Clear still sends an expired cookie of the session's name and
// returns the store's error. Minted session ids kept in the session go
// with it, so take them for revocation first (the kit's logout does).
//
// Without EndedLogins, on a *sessions.CookieStore, a copy of the cookie
// taken before logout signs in until its MaxAge: the first such Clear of
// a login logs one warning at Warn on Logger, naming the fix.
func (id *Identity) Clear(w http.ResponseWriter, r *http.Request) error {
	sess, err := id.session(r)
	if err != nil {
		// The store cannot read the session (a server-side store that
		// is down): at least tell the browser to drop its cookie.
		// A __Host- or __Secure- name is kept by browsers only with
		// Secure, and a TLS-terminating proxy hides the scheme.
		secure := r.TLS != nil || strings.HasPrefix(id.name, "__Host-") || strings.HasPrefix(id.name, "__Secure-")
		http.SetCookie(w, &http.Cookie{Name: id.name, Path: "/", MaxAge: -1, HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode})
		return err
	}
	rec, hasViewer := storedViewerOf(sess)
	until := id.recordUntil(rec, sess)
	sess.Values = map[any]any{}
	if sess.Options == nil {
		sess.Options = &sessions.Options{Path: "/"}
	}
	opts := *sess.Options
	opts.MaxAge = -1
	sess.Options = &opts
	saveErr := saveBounded(w, r, sess)
	if !hasViewer {
		return saveErr
	}
	if id.EndedLogins == nil {
		id.warnNoEndedLogins(r)
	}
	if err := id.recordBy(r.Context(), rec, until); err != nil {
		middleware.ReportLogoutIncomplete(r.Context(), id.logger(), id.Metrics, middleware.LogoutStepLogin, err)
		return errors.Join(saveErr, err)
	}
	return saveErr
}

// End records the request's login session as ended in EndedLogins, for
// as long as Clear does, so that a copy of its cookie signs nobody in, and
// leaves the cookie and the session alone. It is for a new login over an
// existing one, where the login handler replaces the cookie itself;
// logout uses Clear. Without EndedLogins, or when nobody is logged in, it
// does nothing. A record that cannot be written is returned as an error
// wrapping ErrNotRecorded.
func (id *Identity) End(r *http.Request) error {
	sess, err := id.session(r)
	if err != nil {
		return err
	}
	rec, ok := storedViewerOf(sess)
	if !ok {
		return nil
	}
	return id.recordBy(r.Context(), rec, id.recordUntil(rec, sess))
}

// endEarlier ends the login r holds, when there is one and Revoker is
// set: its embed sessions are revoked and it is recorded as ended.
func (id *Identity) endEarlier(w http.ResponseWriter, r *http.Request) error {
	if id.Revoker == nil {
		return nil
	}
	sess, err := id.session(r)
	if err != nil {
		return err
	}
	rec, ok := storedViewerOf(sess)
	if !ok {
		return nil
	}
	// A login that has already ended or expired is not the Kit's viewer
	// (ErrNoViewer): it has nothing left to revoke.
	if err := id.Revoker.RevokeRequest(w, r); err != nil && !errors.Is(err, middleware.ErrNoViewer) {
		return fmt.Errorf("gorillasession: Save: revoking the embed sessions of the login signed in over: %w", err)
	}
	if err := id.End(r); err != nil {
		return err
	}
	// A mint of that login that was at the platform during the revoke's
	// take may have recorded its id since; now that the login has ended
	// (a later mint finds it ended and revokes its own id), one more take
	// finds the rest, as Kit.Logout's second take does.
	if sk, ok := id.Revoker.(sessionKeyRevoker); ok && rec.SessionKey != "" {
		if err := sk.RevokeSessionKey(r.Context(), rec.SessionKey); err != nil {
			// The new login goes ahead; a Kit keeps a take its store
			// did not answer and makes it once it does.
			middleware.ReportLogoutIncomplete(r.Context(), id.logger(), id.Metrics, middleware.LogoutStepEmbeds,
				fmt.Errorf("gorillasession: Save: taking the ids of the login signed in over a second time: %w", err))
		}
	}
	return nil
}

// sessionKeyRevoker is a Revoker that can also revoke a login's embed
// sessions by its key, outside its request (*middleware.Kit).
type sessionKeyRevoker interface {
	RevokeSessionKey(ctx context.Context, sessionKey string) error
}

// cookieMaxAge is the MaxAge, in seconds, of sess's cookie: its options',
// else DefaultMaxAge.
func cookieMaxAge(sess *sessions.Session) int {
	if sess.Options != nil && sess.Options.MaxAge > 0 {
		return sess.Options.MaxAge
	}
	return DefaultMaxAge
}

// lifetime is the absolute lifetime of a login in sess: MaxLifetime, the
// cookie's MaxAge when that is zero, or 0 (none) for NoMaxLifetime.
func (id *Identity) lifetime(sess *sessions.Session) time.Duration {
	switch {
	case id.MaxLifetime > 0:
		return id.MaxLifetime
	case id.MaxLifetime < 0:
		return 0
	}
	return time.Duration(cookieMaxAge(sess)) * time.Second
}

// recordBy records the login rec as ended until until (recordUntil).
func (id *Identity) recordBy(ctx context.Context, rec storedViewer, until time.Time) error {
	if id.EndedLogins == nil || rec.SessionKey == "" {
		return nil
	}
	if err := id.EndedLogins.EndLogin(ctx, rec.SessionKey, until); err != nil {
		if id.Keeper != nil && id.Keeper.KeepEndedLogin(id.EndedLogins, rec.SessionKey, until) {
			return fmt.Errorf("%w (kept in this process by Identity.Keeper until the list answers): %w", ErrNotRecorded, storeErr(err))
		}
		return fmt.Errorf("%w: %w", ErrNotRecorded, storeErr(err))
	}
	return nil
}

// storeErr wraps err, a failure of the list of ended logins, in
// middleware.ErrStore unless it is one already.
func storeErr(err error) error {
	if errors.Is(err, middleware.ErrStore) {
		return err
	}
	return fmt.Errorf("%w: %w", middleware.ErrStore, err)
}

// recordUntil is how long the record of the ended login rec must last:
// past the last moment any cookie of it is accepted, and cookieSlack
// more, since securecookie compares whole seconds. With a lifetime that
// moment is Save + lifetime, however often a copy is signed again. With
// none, a copy saved just before now lives MaxAge from now (the login's
// own time says nothing about its copies), and a copy signed again later
// outlives the record: NoMaxLifetime says so.
func (id *Identity) recordUntil(rec storedViewer, sess *sessions.Session) time.Time {
	if life := id.lifetime(sess); life > 0 {
		return time.UnixMilli(rec.Issued).Add(life + cookieSlack)
	}
	return id.now().Add(time.Duration(cookieMaxAge(sess))*time.Second + cookieSlack)
}

// checkScheme warns once when r, whose session cookie is Secure, arrived
// over plain http: browsers do not send a Secure cookie back over http, so
// every sign-in answers with a cookie that never returns and the viewer is
// sent to sign in again, without an error anywhere. A request counts as
// https when it came over TLS, or when a trusted proxy said so through
// middleware.WithRequestOrigin (proxyheaders.Identity.ForwardedOrigin
// does, from X-Forwarded-Proto); an X-Forwarded-Proto header alone does
// not count, since any client can send one.
func (id *Identity) checkScheme(r *http.Request) {
	if id.plainHTTPWarned.Load() || !middleware.OverPlainHTTP(r) {
		return
	}
	if id.plainHTTPWarned.CompareAndSwap(false, true) {
		id.logger().LogAttrs(r.Context(), slog.LevelWarn,
			"gorillasession: the session cookie is Secure but this request came over plain http: browsers will not send the cookie back (Chromium and Firefox make an exception for localhost and 127.0.0.1, Safari does not), so every sign-in loops back to the login page. "+
				"For development over plain http, set store.Options.Secure = false on the cookie store (never for a deployment reached over https); "+
				"behind a proxy that terminates TLS, pass its X-Forwarded-Proto through proxyheaders.Identity.ForwardedOrigin (middleware.WithRequestOrigin)",
			slog.String("session", id.name), slog.String("host", r.Host), slog.String("path", r.URL.Path))
	}
}

// warnNoEndedLogins warns once that a logout on a cookie store without
// EndedLogins does not stick: the cookie holds the whole session, so a
// copy taken before logout signs in until its MaxAge. A server-side
// store deletes the session at Clear, so it is not warned about.
func (id *Identity) warnNoEndedLogins(r *http.Request) {
	cs, cookie := id.store.(*sessions.CookieStore)
	if !cookie || !id.noEndedLoginsWarned.CompareAndSwap(false, true) {
		return
	}
	maxAge := DefaultMaxAge
	if cs.Options != nil && cs.Options.MaxAge > 0 {
		maxAge = cs.Options.MaxAge
	}
	id.logger().LogAttrs(r.Context(), slog.LevelWarn,
		"gorillasession: logout expired the session cookie, but Identity.EndedLogins is nil, so a copy of the cookie taken before logout signs in until it expires (its MaxAge). "+
			"Set Identity.EndedLogins: gorillasession.NewMemoryEndedLogins for one instance, redisstore.NewEndedLogins for several",
		slog.String("session", id.name), slog.Int("max_age_seconds", maxAge))
}

// logger is Logger, or slog.Default().
func (id *Identity) logger() *slog.Logger {
	if id.Logger != nil {
		return id.Logger
	}
	return slog.Default()
}

// storedViewerOf decodes the viewer value of sess.
func storedViewerOf(sess *sessions.Session) (storedViewer, bool) {
	raw, ok := sess.Values[viewerValue].(string)
	if !ok {
		return storedViewer{}, false
	}
	rec, ok := decodeViewer(raw)
	if !ok {
		return storedViewer{}, false
	}
	// Sessions saved in seconds by an earlier format are treated as
	// issued at their second.
	if rec.Issued > 0 && rec.Issued < 1e11 {
		rec.Issued *= 1000
	}
	return rec, true
}

// newSessionKey returns a random key of 130 bits (base32 text).
func newSessionKey() string {
	return rand.Text()
}

// headerRecorder captures the headers a session store writes.
type headerRecorder struct{ h http.Header }

func (hr *headerRecorder) Header() http.Header         { return hr.h }
func (hr *headerRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (hr *headerRecorder) WriteHeader(int)             {}

// saveBounded saves sess into a scratch header, checks the size of its
// cookie, and then puts the cookie on w in place of any earlier cookie of
// the same name written during this response.
func saveBounded(w http.ResponseWriter, r *http.Request, sess *sessions.Session) error {
	lines, err := setCookieLines(r, sess)
	if err != nil {
		// securecookie refuses values over its own length limit with an
		// error that has no type to test for.
		if strings.Contains(err.Error(), "value is too long") {
			return fmt.Errorf("%w: the encoded session is over securecookie's length limit", ErrCookieTooLarge)
		}
		return fmt.Errorf("gorillasession: saving session %q: %w", sess.Name(), err)
	}
	for _, line := range lines {
		if len(line) > MaxCookieBytes {
			return fmt.Errorf("%w: %d bytes, over the %d-byte limit", ErrCookieTooLarge, len(line), MaxCookieBytes)
		}
	}
	kept := w.Header().Values("Set-Cookie")[:0:0]
	for _, line := range w.Header().Values("Set-Cookie") {
		// The cookie's name is what precedes the first "=" (RFC 6265
		// section 5.2); the rest of the line need not be parsed.
		if name, _, ok := strings.Cut(line, "="); ok && strings.TrimSpace(name) == sess.Name() {
			continue
		}
		kept = append(kept, line)
	}
	w.Header().Del("Set-Cookie")
	for _, line := range append(kept, lines...) {
		w.Header().Add("Set-Cookie", line)
	}
	return nil
}

// setCookieLines saves sess and returns the Set-Cookie lines its store
// writes, without writing them anywhere.
//
// A sessions.CookieStore whose codecs are all securecookie's is saved
// here as its Save would, but the line is put together around the
// encoded value instead of by http.Cookie.String, which checks every byte
// of a value that is URL-safe base64 by construction: about a tenth of
// the cookie store's time. TestSetCookieLinesAsStoreWrites holds the two
// together.
func setCookieLines(r *http.Request, sess *sessions.Session) ([]string, error) {
	if cs, ok := sess.Store().(*sessions.CookieStore); ok && securecookieOnly(cs.Codecs) {
		encoded, err := securecookie.EncodeMulti(sess.Name(), sess.Values, cs.Codecs...)
		if err != nil {
			return nil, err
		}
		// The cookie with an empty value, then the value after "name=".
		line := sessions.NewCookie(sess.Name(), "", sess.Options).String()
		if rest, ok := strings.CutPrefix(line, sess.Name()+"="); ok {
			return []string{sess.Name() + "=" + encoded + rest}, nil
		}
		// A name that String rewrites: let the store write it.
	}
	hr := &headerRecorder{h: http.Header{}}
	if err := sess.Save(r, hr); err != nil {
		return nil, err
	}
	return hr.h.Values("Set-Cookie"), nil
}

// securecookieOnly reports whether every codec is a
// *securecookie.SecureCookie, whose output is URL-safe base64.
func securecookieOnly(codecs []securecookie.Codec) bool {
	for _, c := range codecs {
		if _, ok := c.(*securecookie.SecureCookie); !ok {
			return false
		}
	}
	return len(codecs) > 0
}
