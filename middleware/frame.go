package middleware

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

// storeTimeout bounds the store write after a mint, which runs even if
// the browser went away (the id must be tracked or revoked).
const storeTimeout = 5 * time.Second

// frame is one minted embed: the platform iframe URL and the single-use
// session id it carries.
type frame struct {
	// URL is the platform iframe URL, with the session id, locale, time
	// zone and the target's chrome switches.
	URL string
	// SessionID is the single-use id in URL. Never log it.
	SessionID string
	// ExpiresAt is when the id can no longer be exchanged.
	ExpiresAt time.Time
}

// String describes f without the session id.
func (f frame) String() string {
	return "embed frame (session " + embedkit.Redact(f.SessionID) + ")"
}

// FrameURL mints a session for the viewer of r and returns the platform
// iframe URL for t, for the page's handler to write into the iframe src
// as it renders, one browser round trip faster to a live dashboard than
// FrameHandler as the src (docs/performance.md). It mints before anything
// of the page is written; PageFrame (the README's default) sends the
// page up to the iframe first, then mints. Every
// render mints, except that of a page reached from another site (below).
// The URL works once, within five minutes, so FrameURL
// marks the response Cache-Control: no-store: no cache keeps the page, and
// a reload, a second tab or a visit back renders it again, with a new
// session. Give the iframe data-embedkit-target (the name t is registered
// under) and mount SessionHandler, and the host script re-mints a frame
// whose session is used up (the frame reloaded on its own) or due for
// renewal. Answer an error with ServeError. A page that must stay
// cacheable uses FrameHandler as the src instead.
//
// The locale is t.Locale, else the viewer's, else the best match of the
// request's Accept-Language among Config.Locales.Supported, else
// Config.Locales.Default; the time zone is t.TimeZone, else the viewer's,
// else Config.Locales.TimeZone. Set them on a copy of t to choose
// explicitly.
//
// A HEAD request is answered without a body, so FrameURL checks its
// viewer and t but mints nothing and returns "" (and no error): a link
// checker or monitor that sends HEAD costs no session.
//
// A page reached from another site mints nothing as it renders: a
// request whose fetch metadata says another site, or a sibling origin of
// the same site, sent it (a link in a web mail or a chat, or a page that
// keeps navigating a popup to this one), as the frame endpoint judges its
// loads (Config.Origins.Trusted are let through). Browsers send SameSite=Lax
// cookies with such a navigation, so a page that minted for it would let
// any site spend the viewer's mint limit, and past the store's per-login
// bound revoke their open embeds. For such a request FrameURL returns the
// frame endpoint's URL of t instead (FrameSrc of the name t is registered
// under, mounted with FrameHandler at Config.Paths.Frame), with the query
// parameter ArrivalParam: the iframe's load is then a same-origin request that
// the frame endpoint checks and mints for, so the link still opens a
// working dashboard. Those loads draw on a bucket of their own per viewer
// (10 at once, then one every 2 minutes, off with Config.MintLimit.Off),
// not on Config.MintLimit's: a site that keeps navigating a popup to the
// page gets 429 in the popup's frame, while the viewer's own pages mint as
// before, and it adds at most one session to the store every 2 minutes. A
// target the frame endpoint does not serve as given (a copy changed for
// the request, a RouteScoped or unregistered target) has no such URL: for
// it FrameURL returns an error wrapping ErrCrossSite (403; the default
// page asks the viewer to open the page from within the app). Use a
// FrameFunc route as that page's iframe src to keep links to it working.
// A browser that sends no fetch metadata (before 2023; Safari before
// 16.4) is judged by its Referer: one naming another origin mints
// nothing, and one naming none mints as before, as a typed address does
// (with Config.Origins.RequireFetchMetadata, the frame endpoint refuses
// such a browser, so it gets no frame). Setting
// Config.Origins.InsecureMintOnCrossSiteNavigation mints for every
// navigation, as embedkit 0.1.0 did.
//
// w is needed by stores that keep ids in a cookie (RequestScoped): call
// FrameURL before the response header is written. Errors are those of
// ErrorStatus; pass them to ErrorStatus to choose a status.
func (k *Kit) FrameURL(w http.ResponseWriter, r *http.Request, t Target) (string, error) {
	v, src, decided, err := k.pageStart(r, t)
	if err != nil {
		return "", err
	}
	if !decided {
		f, err := k.mint(w, r, v, string(t.Kind), t, "", "", false)
		if err != nil {
			return "", err
		}
		src = f.URL
	}
	// The page will hold a single-use id: no cache may keep it.
	if w != nil {
		w.Header().Set("Cache-Control", "no-store")
	}
	return src, nil
}

// pageStart is what a page's frame (FrameURL, PageFrame) decides before
// any mint: the target is checked and the viewer read (its errors are the
// page's), and decided reports an iframe src that needs no mint: none for
// a HEAD, which sends no body (it checks the viewer and mints nothing, as
// at the frame endpoint), and the frame endpoint's for a page another
// site navigated to (arrivalFrameSrc).
func (k *Kit) pageStart(r *http.Request, t Target) (v *Viewer, src string, decided bool, err error) {
	if err := t.check(); err != nil {
		return nil, "", false, fmt.Errorf("%w: target%w", ErrMisconfigured, err)
	}
	if v, err = k.viewer(r); err != nil {
		return nil, "", false, err
	}
	switch {
	case r.Method == http.MethodHead:
		return v, "", true, nil
	case !k.cfg.Origins.InsecureMintOnCrossSiteNavigation && !k.frameSourceAllowed(r):
		src, err = k.arrivalFrameSrc(r, t)
		if err != nil {
			return nil, "", false, err
		}
		return v, src, true, nil
	}
	return v, "", false, nil
}

// ArrivalParam is the query parameter FrameURL adds to the frame
// endpoint's URL it returns for a page reached from another site: the
// frame endpoint then takes the mint from the viewer's bucket for such
// arrivals (10 mints, then one every 2 minutes) rather than from
// Config.MintLimit's. The browser may send it on any load: a viewer who
// adds it to loads of their own gets at most that bucket's mints beyond
// their MintLimit, all for themselves.
const ArrivalParam = "arrival"

// The bucket of frame loads marked with ArrivalParam, per viewer: a
// person who follows links from mail stays well within it, and a site
// that keeps navigating a popup to the page adds at most 720 sessions a
// day to the viewer's store, below the memory store's per-login bound of
// 1,024.
const (
	arrivalBurst    = 10
	arrivalInterval = 2 * time.Minute
)

// errCrossSiteNavigation: FrameURL refused a page reached from another
// site whose target the frame endpoint does not serve as given.
var errCrossSiteNavigation = fmt.Errorf("%w: a page reached from another site mints nothing", ErrCrossSite)

// arrivalFrameSrc is FrameURL's iframe src for a page that another site
// (or a sibling origin) navigated to: the frame endpoint's URL of t,
// marked with ArrivalParam, when the endpoint serves t as given; else an
// error wrapping ErrCrossSite.
func (k *Kit) arrivalFrameSrc(r *http.Request, t Target) (string, error) {
	name, _, ok := k.endpointFrame(t)
	if !ok {
		k.cfg.Logger.LogAttrs(r.Context(), slog.LevelInfo, "embedkit: page reached from another site: nothing minted, and the frame endpoint does not serve its target as given",
			slog.String("fetch_site", r.Header.Get("Sec-Fetch-Site")))
		return "", fmt.Errorf("%w: FrameURL: the frame endpoint does not serve target %s as given (a copy changed for the request, or a RouteScoped or unregistered target); use a FrameFunc route as this page's iframe src", errCrossSiteNavigation, t.canonicalRef())
	}
	return k.FrameSrc(name) + "?" + ArrivalParam + "=1", nil
}

// mint is the one path from a request to a tracked session id: policy,
// validation, one platform call, store, URL. v is the viewer of r, as
// k.viewer read it. arrival takes the mint from the viewer's bucket for
// pages reached from another site (ArrivalParam) instead of
// Config.MintLimit's.
func (k *Kit) mint(w http.ResponseWriter, r *http.Request, v *Viewer, name string, t Target, browserLocale, browserTimeZone string, arrival bool) (frame, error) {
	var p pendingMint
	if err := k.startMint(&p, w, r, v, name, t, browserLocale, browserTimeZone, arrival); err != nil {
		return frame{}, err
	}
	return p.send()
}

// pendingMint is a mint whose local checks passed (the Policy, the
// target's URL parameters, the mint limit): what is left is the platform
// call, the store and the URL (send). PageFrame sends the start of the
// page between the two.
type pendingMint struct {
	k       *Kit
	w       http.ResponseWriter
	r       *http.Request // with the span's context
	v       *Viewer
	name    string
	t       Target
	span    Span
	outcome Outcome
	start   time.Time

	req                            *embedkit.GenerateSessionRequest
	query                          url.Values
	subject                        string
	browserLocale, browserTimeZone string
}

// startMint runs the local part of a mint into p: the span, the Policy,
// the target's URL parameters and the mint limit. On an error the mint is
// over (reported, logged, its span ended); otherwise p.send finishes it.
func (k *Kit) startMint(p *pendingMint, w http.ResponseWriter, r *http.Request, v *Viewer, name string, t Target, browserLocale, browserTimeZone string, arrival bool) error {
	ctx, span := k.cfg.Tracer.Start(r.Context(), OpMint)
	if ctx != r.Context() {
		// Only a tracer that made a span costs a copy of the request.
		r = r.WithContext(ctx)
	}
	*p = pendingMint{k: k, w: w, r: r, v: v, name: name, t: t, span: span, outcome: OutcomeError, start: k.cfg.Now(),
		browserLocale: browserLocale, browserTimeZone: browserTimeZone}

	// The request is built and validated here, whatever the Platform:
	// tests with a fake Platform take the path production takes. (An
	// *embedkit.Client validates once more before a byte goes out.)
	req, err := k.cfg.Policy.Request(r, v, t)
	switch {
	case errors.Is(err, ErrDenied):
		return p.failed(err, 0, slog.LevelInfo, "embedkit: mint refused by policy")
	case err != nil:
		return p.failed(err, 0, slog.LevelError, "embedkit: mint not sent: the policy produced an invalid request")
	}
	p.req = req

	// The URL's fixed part is built before the call: a target it cannot
	// encode fails here, before a session exists that would need revoking.
	if p.query, err = t.query(); err != nil {
		return p.failed(fmt.Errorf("%w: %w", ErrMisconfigured, err), 0, slog.LevelError, "embedkit: mint not sent: the target's URL parameters are invalid")
	}

	// The limit is taken after the Policy accepted the viewer (a refused
	// viewer mints nothing) and before anything is sent.
	p.subject = embedkit.NormalizeExternalID(v.Subject)
	limiter := k.limiter
	if arrival {
		limiter = k.arrivals
	}
	if wait, ok := limiter.take(p.subject, k.cfg.Now()); !ok {
		return p.failed(&mintLimitedError{wait: wait}, 0, slog.LevelWarn, "embedkit: mint refused: the viewer's mint limit is reached")
	}
	return nil
}

// report records the mint's outcome once, for Metrics and the span.
func (p *pendingMint) report(o Outcome, latency time.Duration) {
	p.outcome = o
	p.k.cfg.Metrics.Mint(o, latency)
}

// logAttrs are the mint's records' common attributes, built only for a
// record that is written: a Logger that takes no records costs nothing.
func (p *pendingMint) logAttrs(extra ...slog.Attr) []slog.Attr {
	return attrs([]slog.Attr{slog.String("target", p.name), slog.String("viewer", p.k.RedactViewer(p.v.Key()))}, extra...)
}

// failed ends a mint that stopped before or at the platform: its outcome
// is classified once from err (mintOutcome), and the metrics, the span
// and the log record read that one value, which the returned error
// carries too (OutcomeOf).
func (p *pendingMint) failed(err error, latency time.Duration, level slog.Level, msg string) error {
	o := mintOutcome(err)
	p.report(o, latency)
	k, r := p.k, p.r
	if k.cfg.Logger.Enabled(r.Context(), level) {
		extra := []slog.Attr{slog.String("outcome", string(o))}
		if latency > 0 {
			extra = append(extra, slog.Duration("latency", latency))
		}
		if le, ok := errors.AsType[*mintLimitedError](err); ok {
			extra = append(extra, slog.Duration("retry_after", le.wait))
		} else {
			extra = append(extra, slog.String("error", err.Error()))
		}
		k.cfg.Logger.LogAttrs(r.Context(), level, msg, p.logAttrs(extra...)...)
	}
	me := &mintError{outcome: o, err: err}
	p.span.End(p.outcome, me)
	return me
}

// send makes the platform call of a started mint, tracks the id and
// builds the URL; it ends the mint's span.
func (p *pendingMint) send() (_ frame, err error) {
	k, r := p.k, p.r
	callStart := k.cfg.Now()
	sess, err := k.cfg.Platform.GenerateSession(r.Context(), p.req)
	now := k.cfg.Now() // the platform's answer: the minted id lives from here
	latency := now.Sub(callStart)
	switch {
	case errors.Is(err, embedkit.ErrInvalidRequest):
		// Refused by the client's own validation before sending: the
		// policy produced it.
		return frame{}, p.failed(fmt.Errorf("%w: %w", ErrMisconfigured, err), 0, slog.LevelError, "embedkit: mint not sent: the policy produced an invalid request")
	case err != nil:
	case sess == nil || sess.SessionID == "":
		err = fmt.Errorf("%w: generate-session answered no session id", embedkit.ErrUnexpectedResponse)
	case embedkit.ValidateSessionID(sess.SessionID) != nil:
		// Logout could never revoke it (revoke takes 32 hex characters
		// only), so it is not handed to the browser either.
		err = fmt.Errorf("%w: generate-session answered a session id (%s) that revoke cannot take: it must be 32 lower-case hexadecimal characters",
			embedkit.ErrUnexpectedResponse, embedkit.Redact(sess.SessionID))
	}
	if err != nil {
		return frame{}, p.failed(err, latency, slog.LevelError, "embedkit: mint failed")
	}
	defer func() { p.span.End(p.outcome, err) }()
	p.report(OutcomeOK, latency)

	m := Minted{
		SessionID: sess.SessionID,
		Subject:   p.subject,
		ExpiresAt: now.Add(embedkit.SessionLifetime + embedkit.EmbedTokenLifetime),
	}
	sctx, stop := detached(r.Context(), storeTimeout)
	defer stop()
	if err := k.track(sctx, k.storeFor(p.w, r), p.v, m); err != nil {
		// An id that logout cannot find must not stay usable.
		k.cfg.Logger.LogAttrs(r.Context(), slog.LevelError, "embedkit: session store failed; revoking the new session", p.logAttrs(slog.String("session", embedkit.Redact(m.SessionID)), slog.String("error", err.Error()))...)
		k.revokeAll(r.Context(), []Minted{m})
		// The platform call succeeded and was counted so; the span and the
		// error say the mint as a whole did not.
		p.outcome = OutcomeUnavailable
		return frame{}, &mintError{outcome: p.outcome, err: fmt.Errorf("%w: %w", ErrStore, err)}
	}
	if k.loginEndedSince(r, p.v) {
		// A logout (here or in another request) ended the login while
		// the platform minted: its take may have run before this id was
		// recorded, so nothing else would revoke it.
		k.cfg.Logger.LogAttrs(r.Context(), slog.LevelInfo, "embedkit: the login ended during the mint; revoking the new session", p.logAttrs(slog.String("session", embedkit.Redact(m.SessionID)))...)
		k.revokeAll(r.Context(), []Minted{m})
		p.outcome = OutcomeDenied
		return frame{}, &mintError{outcome: p.outcome, err: fmt.Errorf("%w: the login ended while its session was minted", ErrNoViewer)}
	}

	expires := sess.ExpiresAt
	if expires.IsZero() {
		expires = now.Add(embedkit.SessionLifetime)
	}
	pr := requestPrefs(r, p.t, p.v, p.browserLocale, p.browserTimeZone)
	f := frame{
		URL:       k.iframeURL(p.t, p.query, sess.SessionID, k.locale(pr), k.timeZone(pr), k.parentOrigin(r)),
		SessionID: sess.SessionID,
		ExpiresAt: expires,
	}
	if k.cfg.Logger.Enabled(r.Context(), slog.LevelInfo) {
		k.cfg.Logger.LogAttrs(r.Context(), slog.LevelInfo, "embedkit: session minted", p.logAttrs(
			slog.String("outcome", string(OutcomeOK)),
			slog.String("session", embedkit.Redact(sess.SessionID)),
			slog.Duration("latency", latency),
			slog.Duration("total", k.cfg.Now().Sub(p.start)))...)
	}
	return f, nil
}

// attrs appends extra to base in a new slice.
func attrs(base []slog.Attr, extra ...slog.Attr) []slog.Attr {
	return append(append(make([]slog.Attr, 0, len(base)+len(extra)), base...), extra...)
}

// viewer asks the Identity who the viewer of r is. Errors wrap ErrNoViewer,
// ErrStore (an *UnverifiedViewerError) or ErrIdentity.
func (k *Kit) viewer(r *http.Request) (*Viewer, error) {
	v, err := k.cfg.Identity.Viewer(r)
	switch {
	case errors.Is(err, ErrNoViewer):
		return nil, err
	case errors.As(err, new(*UnverifiedViewerError)):
		// The login could not be checked because a store did not
		// answer: an outage, answered as the Store's is (503, retry
		// later), not as data the viewer should sign in again for.
		k.cfg.Logger.LogAttrs(r.Context(), slog.LevelWarn, "embedkit: the login could not be checked", slog.String("error", err.Error()))
		return nil, fmt.Errorf("%w: %w", ErrStore, err)
	case err != nil:
		k.cfg.Logger.LogAttrs(r.Context(), slog.LevelError, "embedkit: identity failed", slog.String("error", err.Error()))
		return nil, fmt.Errorf("%w: %w", ErrIdentity, err)
	case v == nil:
		return nil, ErrNoViewer
	case strings.TrimSpace(v.Subject) == "":
		k.cfg.Logger.LogAttrs(r.Context(), slog.LevelError, "embedkit: identity returned a viewer without a subject")
		return nil, fmt.Errorf("%w: the viewer has no subject", ErrIdentity)
	}
	return v, nil
}

// loginEndedSince reports whether the login of v, the viewer r was
// minted for, has ended since it was read: a LoginChecker says so, or the
// Identity no longer returns it for r (ErrNoViewer, or a viewer of
// another login). An Identity that
// cannot tell now (a store down) counts as live: the mint was checked
// before it was sent. Asked after the id is recorded, it closes the race
// with a logout whose take ran before the record landed: either the take
// (Logout's second one, after the host's handler ended the login) finds
// the record, or this check finds the login ended.
func (k *Kit) loginEndedSince(r *http.Request, v *Viewer) bool {
	if lc, ok := k.cfg.Identity.(LoginChecker); ok {
		ended, err := lc.LoginEnded(r, v)
		return err == nil && ended
	}
	now, err := k.cfg.Identity.Viewer(r)
	switch {
	case errors.Is(err, ErrNoViewer):
		return true
	case err != nil:
		return false
	}
	return now == nil || now.Key() != v.Key()
}

// storeFor returns the store to use for this request.
// track keeps m for logout: under the viewer's login (v.Key), and, when
// the viewer names a provider session and the store is reachable outside
// a request, a second time under that session, so that a back-channel
// logout naming only the sid finds it (RevokeProviderSession). Revoke is
// idempotent on the platform, so a copy left behind after the login's own
// logout costs one more revoke at most.
func (k *Kit) track(ctx context.Context, s SessionStore, v *Viewer, m Minted) error {
	if err := s.Add(ctx, v.Key(), m); err != nil {
		return err
	}
	if v.ProviderSID == "" {
		return nil
	}
	if _, scoped := k.cfg.Store.(RequestScoped); scoped {
		return nil
	}
	return s.Add(ctx, providerKey(v.ProviderSID), m)
}

func (k *Kit) storeFor(w http.ResponseWriter, r *http.Request) SessionStore {
	if rs, ok := k.cfg.Store.(RequestScoped); ok && r != nil {
		return rs.ForRequest(w, r)
	}
	return k.cfg.Store
}

// FrameHandler serves iframe src URLs below Config.Paths.Frame:
//
//	{Paths.Frame}dashboard/{publicId}   a registered dashboard (or any, with AllowAnyDashboard)
//	{Paths.Frame}app                    the registered creator-mode app
//	{Paths.Frame}chat                   the registered chat
//	{Paths.Frame}{name}                 any registered target by name
//
// Each GET mints a fresh session and answers 303 to the platform URL, so
// a reload or a second tab gets its own working id. The query string may
// carry locale and timezone, taken only when valid and supported, and
// ArrivalParam, which FrameURL adds for a page reached from another site
// and which only takes the mint from a stricter bucket; nothing else from
// the browser is read. HEAD checks the viewer and the target
// without minting (the host script probes with it before it reloads a
// frame). A load from a page of another origin, another site or a sibling
// origin of the same site, is refused with 403 unless the origin is in
// Config.Origins.Trusted, so no other page can mint sessions for a
// signed-in viewer: a load is let through when its Sec-Fetch-Site is
// same-origin or none (an address typed or bookmarked), and, from a
// browser that sends no fetch metadata, when its Origin (else Referer) is
// the host's own, a trusted one or absent (refused instead with
// Config.Origins.RequireFetchMetadata).
// A viewer who is not logged in is answered 401, or, for a top-level
// navigation, sent to Config.Paths.Login when one is set. Every answer
// carries Cache-Control: no-store and Referrer-Policy: no-referrer;
// failures go to Config.ErrorHandler.
func (k *Kit) FrameHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ref, ok := strings.CutPrefix(r.URL.Path, k.cfg.Paths.Frame)
		name, t, found := k.resolve(ref)
		if !ok || !found {
			if k.frameRequestOK(w, r) {
				k.fail(w, r, ErrUnknownTarget, false)
			}
			return
		}
		k.serveFrame(w, r, name, t)
	})
}

// FrameFunc returns a frame handler whose target the host's own code
// chooses for each request, after the kit has read the viewer: mount it
// at a route of the host, check there that the viewer may see what the
// route names, and scope the embed to it, for example
//
//	mux.Handle("GET /projects/{id}/analytics/frame", kit.FrameFunc(
//		func(r *http.Request, v *middleware.Viewer) (middleware.Target, error) {
//			p, ok := projects.Visible(v, r.PathValue("id")) // the host's own check
//			if !ok {
//				return middleware.Target{}, middleware.ErrUnknownTarget // 404
//			}
//			t := salesTarget // a Target value: this copy is the request's own
//			t.SecurityContext = map[string]any{"project": p.ID}
//			return t, nil
//		}))
//
// and use that route as the iframe src. It answers like FrameHandler: a
// GET mints and redirects, a HEAD checks the viewer and the target without
// minting, a load from another origin is refused, a viewer who is not signed in is
// answered before resolve runs. resolve refuses with an error wrapping
// ErrUnknownTarget (404) or ErrDenied (403); any other error, or a target
// that is not valid, is the host's misconfiguration (500). The browser
// still chooses nothing: a viewer who edits the route reaches only what
// resolve allows for that route.
//
// A route's check protects only the route. When the same embed is also
// reachable through FrameHandler or SessionHandler (a registered target of
// that dashboard, or AllowAnyDashboard), a viewer can open it there,
// without the route's SecurityContext; where a missing key means "all
// rows", that shows every project's data. Mark the targets resolve
// returns Target.RouteScoped: FrameHandler, SessionHandler and
// AllowAnyDashboard then refuse that dashboard (404), and only routes
// like this one serve it. That stops the kit's endpoints only: a session
// grants its whole deployment, so the embed's own navigation reaches the
// dashboard from any plain embed, without the route's key. Write the data
// model's access policy to deny rows when the key is missing.
func (k *Kit) FrameFunc(resolve func(r *http.Request, v *Viewer) (Target, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, ok := k.frameViewer(w, r)
		if !ok {
			return
		}
		t, err := resolve(r, v)
		if err == nil {
			if cerr := t.check(); cerr != nil {
				err = fmt.Errorf("%w: target%w", ErrMisconfigured, cerr)
			}
		} else if !errors.Is(err, ErrUnknownTarget) && !errors.Is(err, ErrDenied) {
			err = fmt.Errorf("%w: FrameFunc: %w", ErrMisconfigured, err)
		}
		if err != nil {
			level := slog.LevelInfo
			if errors.Is(err, ErrMisconfigured) {
				level = slog.LevelError
			}
			k.cfg.Logger.LogAttrs(r.Context(), level, "embedkit: frame target refused", slog.String("viewer", k.RedactViewer(v.Key())), slog.String("error", err.Error()))
			k.fail(w, r, err, false)
			return
		}
		k.serveViewerFrame(w, r, v, t.canonicalRef(), t)
	})
}

// serveFrame is FrameHandler once the target is known.
func (k *Kit) serveFrame(w http.ResponseWriter, r *http.Request, name string, t Target) {
	if v, ok := k.frameViewer(w, r); ok {
		k.serveViewerFrame(w, r, v, name, t)
	}
}

// frameViewer checks a frame request (frameRequestOK) and reads its
// viewer, answering r itself when either fails.
func (k *Kit) frameViewer(w http.ResponseWriter, r *http.Request) (*Viewer, bool) {
	if !k.frameRequestOK(w, r) {
		return nil, false
	}
	v, err := k.viewer(r)
	if err != nil {
		k.failViewer(w, r, err)
		return nil, false
	}
	return v, true
}

// serveViewerFrame answers a frame load of viewer v: HEAD only says the
// viewer and target are good, GET mints and redirects.
func (k *Kit) serveViewerFrame(w http.ResponseWriter, r *http.Request, v *Viewer, name string, t Target) {
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	q := r.URL.Query()
	f, err := k.mint(w, r, v, name, t, q.Get("locale"), q.Get("timezone"), q.Has(ArrivalParam))
	if err != nil {
		k.failViewer(w, r, err)
		return
	}
	redirect(w, f.URL)
}

// frameRequestOK sets the headers every frame answer carries (among them
// Embedkit-Version, which the host script compares with its own version
// when it probes the endpoint) and refuses,
// through the ErrorHandler, a method other than GET and HEAD and a
// load from another origin. It reports whether the request may go on.
func (k *Kit) frameRequestOK(w http.ResponseWriter, r *http.Request) bool {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set(HostScriptVersionHeader, HostScriptVersion)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		k.fail(w, r, fmt.Errorf("%w: %s", ErrMethod, r.Method), false)
		return false
	}
	if !k.frameSourceAllowed(r) {
		k.cfg.Logger.LogAttrs(r.Context(), slog.LevelWarn, "embedkit: frame request from another origin refused",
			slog.String("fetch_site", r.Header.Get("Sec-Fetch-Site")))
		k.fail(w, r, ErrCrossSite, false)
		return false
	}
	return true
}

// frameSourceAllowed reports whether the page that loads a frame may: a
// page of the host's own origin, a trusted origin, or none at all (the
// address typed or bookmarked). Another origin of the same site, such as
// user content on a sibling subdomain or another port, is refused like
// another site: the platform documents nothing about which pages may frame
// its own, so this endpoint is the guard. It agrees with the JSON
// endpoint's http.CrossOriginProtection.
func (k *Kit) frameSourceAllowed(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return true
	case "":
		if k.cfg.Origins.RequireFetchMetadata {
			return false
		}
		// A browser without fetch metadata: judge by what it names.
		src := requestSourceOrigin(r)
		return src == "" || src == k.ownOrigin(r) || k.trusted[src]
	default: // same-site, cross-site, or a value of a later standard
		return k.trusted[requestSourceOrigin(r)]
	}
}

// requestSourceOrigin is the origin r says it comes from: its Origin
// header, else its Referer's origin; "" when it names none.
func requestSourceOrigin(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		return strings.ToLower(o)
	}
	ref, err := url.Parse(r.Header.Get("Referer"))
	if err != nil || ref.Host == "" || (ref.Scheme != "http" && ref.Scheme != "https") {
		return ""
	}
	return strings.ToLower(ref.Scheme + "://" + ref.Host)
}

// ownOrigin is the origin r was sent to: Config.Origins.Host, the origin
// recorded by WithRequestOrigin, or its scheme and Host.
func (k *Kit) ownOrigin(r *http.Request) string {
	if k.cfg.Origins.Host != "" {
		return k.cfg.Origins.Host
	}
	return k.parentOrigin(r)
}

// redirect answers 303 See Other to u with no body. http.Redirect would
// write a small HTML page repeating u, and with it the single-use session
// id; the Location header is the only place the id goes.
func redirect(w http.ResponseWriter, u string) {
	w.Header().Set("Location", u)
	w.WriteHeader(http.StatusSeeOther)
}

// ServeError answers a request whose FrameURL failed with err, as the
// kit's own endpoints answer theirs: a viewer who is not signed in is sent
// to Config.Paths.Login (303, with the request's path to return to) when
// it is set and r loads a whole page; any other failure goes to
// Config.ErrorHandler (DefaultErrorHandler when nil) with FailureReason
// set, the status of ErrorStatus and its Retry-After. The answer carries
// Cache-Control: no-store. Call it before anything of the page is
// written:
//
//	src, err := kit.FrameURL(w, r, sales)
//	if err != nil {
//		kit.ServeError(w, r, err)
//		return
//	}
func (k *Kit) ServeError(w http.ResponseWriter, r *http.Request, err error) {
	if err == nil {
		err = fmt.Errorf("%w: ServeError called with a nil error", ErrMisconfigured)
	}
	w.Header().Set("Cache-Control", "no-store")
	k.failViewer(w, r, err)
}

// failViewer answers a frame failure, sending a viewer who is not logged
// in to the login URL when one is configured and the request is a
// top-level navigation. An iframe load gets 401 (sign-in pages refuse to
// be framed), and so does a script's request such as the host script's
// HEAD probe, which must learn that the viewer signed out rather than
// follow a redirect to a page it cannot use.
func (k *Kit) failViewer(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrNoViewer) && k.cfg.Paths.Login != "" && topLevelNavigation(r) {
		http.Redirect(w, r, k.loginRedirect(r), http.StatusSeeOther)
		return
	}
	k.fail(w, r, err, false)
}

// topLevelNavigation reports whether r loads a whole page: by its fetch
// metadata, or, from a browser that sends none, unless it says it loads an
// iframe.
func topLevelNavigation(r *http.Request) bool {
	dest := r.Header.Get("Sec-Fetch-Dest")
	if mode := r.Header.Get("Sec-Fetch-Mode"); mode != "" {
		return mode == "navigate" && dest != "iframe" && dest != "frame"
	}
	return dest != "iframe"
}

// loginRedirect returns Paths.Login with the same-origin return path of r.
func (k *Kit) loginRedirect(r *http.Request) string {
	u, err := url.Parse(k.cfg.Paths.Login)
	if err != nil {
		return k.cfg.Paths.Login
	}
	q := u.Query()
	ret, _ := SafeReturnPath(r.URL.RequestURI())
	q.Set(k.cfg.Paths.LoginReturnParam, ret)
	u.RawQuery = q.Encode()
	return u.String()
}
