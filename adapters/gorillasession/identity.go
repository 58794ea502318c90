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

// Identity keeps the viewer in the host's gorilla session: the login handler
// calls Save, the kit calls Viewer on every request, logout calls Clear. It
// is safe for concurrent use.
type Identity struct {
	store sessions.Store
	name  string

	// Now is the clock (default time.Now).
	Now func() time.Time
	// Revocations, when set, make logout stick on the server: Clear records
	// the session key, and Viewer refuses revoked sessions, so a copy of a
	// pre-logout cookie no longer logs anyone in. Without it a cookie store
	// cannot invalidate a cookie before its MaxAge.
	Revocations Revocations
	// Logger receives the one warning of a Secure cookie over plain http
	// (see Viewer). Nil means slog.Default().
	Logger *slog.Logger

	// plainHTTPWarned is set once the plain-http warning is logged.
	plainHTTPWarned atomic.Bool
}

var _ middleware.Identity = (*Identity)(nil)

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
// key. Log the previous viewer out first when one user replaces another, so
// that their embed sessions are revoked.
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
// or signed with a retired key), and when Revocations says the session was
// revoked.
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
	if id.Revocations != nil {
		revoked, err := id.Revocations.Revoked(r.Context(), rec.Subject, rec.SessionKey, time.UnixMilli(rec.Issued))
		if err != nil {
			return nil, fmt.Errorf("gorillasession: checking revocations: %w", err)
		}
		if revoked {
			return nil, middleware.ErrNoViewer
		}
	}
	return v, nil
}

// Clear ends the login session: it expires the cookie (with a server-side
// store, deletes the record) and, when Revocations is set, records the
// session key as revoked until the cookie would have expired. Minted
// session ids kept in the session go with it, so take them for revocation
// first (the kit's logout does).
func (id *Identity) Clear(w http.ResponseWriter, r *http.Request) error {
	sess, err := id.session(r)
	if err != nil {
		return err
	}
	if err := id.end(r, sess); err != nil {
		return err
	}
	sess.Values = map[any]any{}
	if sess.Options == nil {
		sess.Options = &sessions.Options{Path: "/"}
	}
	opts := *sess.Options
	opts.MaxAge = -1
	sess.Options = &opts
	return saveBounded(w, r, sess)
}

// End records the request's login session as ended in Revocations, so
// that a copy of its cookie signs nobody in, and leaves the cookie and the
// session alone. It is for a new login over an existing one, where the
// login handler replaces the cookie itself; logout uses Clear. Without
// Revocations, or when nobody is logged in, it does nothing.
func (id *Identity) End(r *http.Request) error {
	sess, err := id.session(r)
	if err != nil {
		return err
	}
	return id.end(r, sess)
}

// end records sess's login as ended until its cookie expires.
func (id *Identity) end(r *http.Request, sess *sessions.Session) error {
	rec, ok := storedViewerOf(sess)
	if !ok || id.Revocations == nil || rec.SessionKey == "" {
		return nil
	}
	maxAge := DefaultMaxAge
	if sess.Options != nil && sess.Options.MaxAge > 0 {
		maxAge = sess.Options.MaxAge
	}
	until := time.UnixMilli(rec.Issued).Add(time.Duration(maxAge) * time.Second)
	if err := id.Revocations.RevokeSession(r.Context(), rec.SessionKey, until); err != nil {
		return fmt.Errorf("gorillasession: revoking session: %w", err)
	}
	return nil
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
	if r.TLS != nil || id.plainHTTPWarned.Load() {
		return
	}
	if origin, ok := middleware.RequestOrigin(r.Context()); ok && strings.HasPrefix(origin, "https://") {
		return
	}
	if id.plainHTTPWarned.CompareAndSwap(false, true) {
		log := id.Logger
		if log == nil {
			log = slog.Default()
		}
		log.LogAttrs(r.Context(), slog.LevelWarn,
			"gorillasession: the session cookie is Secure but this request came over plain http: browsers will not send the cookie back, so every sign-in loops back to the login page. "+
				"For development over http://127.0.0.1, set store.Options.Secure = false on the cookie store (never for a deployment reached over https); "+
				"behind a proxy that terminates TLS, pass its X-Forwarded-Proto through proxyheaders.Identity.ForwardedOrigin (middleware.WithRequestOrigin)",
			slog.String("session", id.name), slog.String("host", r.Host), slog.String("path", r.URL.Path))
	}
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

// Revocations is a server-side list of ended login sessions, for stores
// (cookies) that cannot delete a session on the server. Implementations
// must be safe for concurrent use; MemoryRevocations is one.
type Revocations interface {
	// RevokeSession records that the session with this key ended; the
	// record may be dropped after until, when its cookie has expired
	// anyway.
	RevokeSession(ctx context.Context, key string, until time.Time) error
	// Revoked reports whether a session of subject with key, saved at
	// issued, has been revoked: by its key, or by a revoke of every
	// session of the subject after issued.
	Revoked(ctx context.Context, subject, key string, issued time.Time) (bool, error)
}
