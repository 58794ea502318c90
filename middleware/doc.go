// Package middleware embeds the analytics platform's dashboards, creator
// app and chat into a net/http host application, safely by default.
//
// # Concepts
//
// The platform's signed embedding mints, for each viewer, a single-use
// session id valid for five minutes; the iframe exchanges it for a
// 24-hour embed token. The kit wraps that one call in four pieces the
// host chooses:
//
//   - Identity says who the viewer of a request is, from the host's own
//     session or a verified token (adapters/ has OIDC claims, gorilla
//     sessions and trusted proxy headers). Nothing in a query string or
//     request body ever reaches the viewer's identity, groups, attributes
//     or security context.
//   - Policy turns the Viewer into the generate-session request: the
//     deployment, the external id, groups (renamed and allow-listed so a
//     host group the platform lacks is dropped, not sent to fail),
//     attributes, tenant and creator mode, security context, profile,
//     settings, theme and branch. The request is validated before
//     anything is sent; a failure is the host's misconfiguration (500,
//     logged), never a platform call.
//   - SessionStore keeps the minted ids per host session, only so logout
//     can revoke them (adapters/ has memory, Redis and cookie stores). No
//     token, API response or user data is kept.
//   - Targets are the embeds the host offers: a dashboard by public id, the
//     creator-mode app or the chat, with their URL chrome, settings and
//     theme. The browser can only name a registered target.
//
// # The short path
//
//	client, _ := embedkit.New(platformURL, os.Getenv("EMBEDKIT_API_KEY"))
//	sales := middleware.Target{Kind: middleware.KindDashboard, PublicID: "sales-overview"}
//	kit, err := middleware.New(middleware.Config{
//		Platform:    client,
//		Identity:    identity,          // who is the viewer
//		Store:       memstore.New(),    // where minted ids are kept
//		Policy:      middleware.Policy{DeploymentID: 1, Groups: middleware.GroupOptions{Allowed: []string{"sales", "emea"}}},
//		PlatformURL: platformURL,
//		Targets:     map[string]middleware.Target{"sales": sales},
//		Paths:       middleware.PathOptions{Login: "/login"},
//	})
//	if err != nil { ... }
//	go kit.Run(ctx) // retries revokes that failed at logout
//	mux.HandleFunc("GET /sales", func(w http.ResponseWriter, r *http.Request) {
//		frame, err := kit.PageFrame(w, r, sales) // checks the viewer before anything is written
//		if err != nil {
//			kit.ServeError(w, r, err)
//			return
//		}
//		_ = page.Execute(w, pageData{Frame: frame, Script: kit.HostScriptSrc("/embed/host.js")})
//	})
//	mux.Handle("/embed/frame/", kit.FrameHandler())    // a page opened from another site
//	mux.Handle("/embed/session", kit.SessionHandler()) // re-mints a used-up frame
//	mux.Handle("/embed/host.js", kit.HostScript())
//	mux.Handle("/logout", kit.Logout(hostLogout))
//	handler := middleware.SecurityHeaders(kit.PlatformOrigin(), middleware.HeaderOptions{})(mux)
//
// and in the page's template:
//
//	<iframe src="{{.Frame.URL}}" data-embedkit data-embedkit-target="sales"></iframe>
//	<script src="{{.Script}}" defer></script>
//
// where {{.Frame.URL}} sends what the page wrote before the iframe, then
// mints (PageFrame).
//
// Targets choose what the host offers, not what a viewer may see: a
// session is for the whole deployment, and the platform's groups and the
// security context the Policy sends decide what the viewer sees there.
// The Policy passes the viewer through until its allow-lists are set
// (Groups.Allowed, Attributes.Allowed: nil sends every one). Every other
// setting has a safe default and sits in one of four groups of
// Config: Origins (the host's origin, set in production, and trusted
// others), Paths (where the endpoints are mounted, where sign-in is),
// Locales (the supported locales, the default locale and time zone) and
// Revoke (logout's deadline and concurrency, and the retry schedule).
//
// # Three ways to serve an embed
//
//   - PageFrame or FrameURL in a server-rendered page (recommended): the
//     page's handler mints as it renders and writes the platform URL into
//     the iframe src, the fastest path to a live dashboard. PageFrame
//     checks the viewer, the Policy and the mint limit before the page is
//     written, sends the page up to the iframe, and only then mints: the
//     browser reads the page's head during the mint; a mint that fails
//     after that gives the iframe the frame endpoint, which mints again
//     and answers with its error in the frame. FrameURL mints before the
//     page is written (for a store that writes cookies, PageFrame does
//     too). The page is marked no-store, so
//     reloads, second tabs and visits back render it again with a new
//     session; the host script re-mints through SessionHandler a frame
//     whose session is used up. A page that another site navigated to (a
//     link in a web mail) mints nothing as it renders: its iframe gets the
//     frame endpoint's URL, which mints on the iframe's same-origin load,
//     so no site can spend a viewer's mints by navigating to the page.
//   - FrameHandler as the iframe src, for a page that must stay cacheable
//     or is not rendered by the host's Go code: every load of the frame
//     endpoint mints a fresh session and redirects to the platform, one
//     browser round trip more than FrameURL.
//   - SessionHandler for single-page apps: a same-origin POST returns
//     {url, sessionId, expiresAt}. The host script re-mints through it a
//     frame whose src the page set to a platform URL itself.
//
// FrameFunc serves a frame route of the host's own whose target the host's
// code chooses per request, after its own authorization check: an embed
// scoped by route (/projects/42/analytics, securityContext.project = 42).
// The Policy hooks receive the request too. Target.Controls preset a
// dashboard's filters, time grains and member switchers in the iframe URL;
// they are the viewer's to change, not security.
//
// # The host page
//
// HostScript serves a dependency-free script for the host's pages (and
// HostScriptTypes its TypeScript declarations). It speaks the platform's
// documented postMessage protocol only (source "cube-embed", events
// cube:event:*, actions cube:action:*; testdata/embed-protocol.json at the
// module root is the contract its tests read), accepting messages from the
// platform origin and the page's own frames only and posting to the
// platform origin only. window.embedkit.frame(el) gives a per-frame handle:
// on/off for every documented event and the kit's own (session-renewed,
// session-ended, renew-failed), and setLocale, setTimezone, setTheme,
// setColorScheme, setFilter, navigate, refresh and reload. Every event also
// fires as a DOM CustomEvent "embedkit:<name>" on the iframe. An
// <embedkit-frame target="..."> element builds the iframe. The script keeps
// a frame's session alive the documented way: in place where the platform
// sends cube:event:session-expiring or -expired (a new session from
// SessionHandler, posted as cube:action:set-session; the frame keeps its
// document), else by reloading the frame through its frame endpoint
// (which mints) before the embedded page stops trusting its token; also
// after a fatal error, probing the endpoint with HEAD first. Only a 401 is
// a sign-out. data-embedkit-fit sizes the frame to its box or the window.
//
// A frame switched to another target (show(target), a new target on
// <embedkit-frame> or the React component) moves in place with
// cube:action:navigate, keeping its session, when HostSettings.Targets
// say both targets mint the same request and share the URL-only
// parameters (HostTarget: opaque grant and pinned tags the server
// computes); else it loads a new frame. RouteScoped targets, targets with
// a SecurityContext of their own, and every target under a Policy with
// Customize but without CustomizeIgnoresTarget always get a new frame.
//
// # Locale and time zone
//
// The iframe URL carries locale and timezone. The locale is the first of:
// the host's choice (Target.Locale), the page's choice (?locale= on the
// frame endpoint, "locale" in the JSON body), the viewer's profile
// (Viewer.Locale), the request's Accept-Language, Config.Locales.Default;
// each counts only if it matches one of Config.Locales.Supported (default: the
// platform's 12 shipped locales), using golang.org/x/text/language. The
// time zone is the first valid IANA name of: Target.TimeZone, the page's
// choice, Viewer.TimeZone, Config.Locales.TimeZone. Empty leaves the
// platform's account default. The package imports time/tzdata so zone
// checks give the same answer on machines without a zone database.
//
// # Logout
//
// Logout wraps the host's logout handler: a same-origin POST takes every
// id minted for the host session, revokes them (up to
// Config.Revoke.Concurrency at a time, 128 by default, under their own
// deadline, unaffected by the browser disconnecting), queues the ones that
// fail, and always runs the host's logout. Run retries the queue until
// each id is revoked or can no longer be alive, on the Kit's one schedule
// (Config.Revoke.Backoff): each queued record carries its attempt count
// and the time its next attempt is due. The queue is the store's own when
// it implements RevokeQueue (surviving restarts with the Redis store),
// otherwise a MemoryQueue. RevokeSubject serves OpenID Connect
// back-channel logout with stores that implement SubjectIndex, and
// RevokeProviderSession a logout token that names only the provider's
// sid (Viewer.ProviderSID): each id minted for a viewer with a
// ProviderSID is kept under the sid too, in any store that is not
// RequestScoped.
//
// Frames open in the viewer's other tabs are ended by the host script: a
// logout form marked data-embedkit-logout (or the script's signedOut())
// tells every tab of the origin over a BroadcastChannel, and each blanks
// and ends its frames (docs/cross-tab-logout.md).
//
// A logout while a store does not answer (Redis hangs or is down) is kept
// in the Kit's memory: "revoke every id of this host session", when the
// Store cannot give the ids, and the ended login an Identity could not
// record (EndedLoginKeeper; gorillasession.Identity.Keeper). Run applies
// them, ended logins first, once the stores answer; they are lost if the
// process ends before. A request whose login cannot be checked
// (UnverifiedViewerError) answers 503 with Retry-After, as a SessionStore
// outage does (ErrStore).
//
// # Security defaults
//
// The frame endpoints accept loads from the host's own origin, a trusted
// origin or no page (a typed address) only; another site and a sibling
// origin of the same site get 403, so no other page can mint for a
// signed-in viewer. They answer with Cache-Control: no-store and
// Referrer-Policy: no-referrer. The JSON and logout endpoints accept only
// same-origin (or trusted) POSTs (http.CrossOriginProtection). A viewer who
// is not signed in gets 401, or a login redirect on a top-level
// navigation.
// SecurityHeaders limits frame-src to the platform origin and sets
// frame-ancestors 'self'; a page that sends a policy of its own keeps it,
// with the kit's frame-src merged in and frame-ancestors 'self' added
// when the page names no frame-ancestors of its own, and a page with
// inline code under the kit's default-src 'self' gets one warning naming
// HeaderOptions.BaseCSP. Logs (log/slog)
// and metrics record each mint and revoke with latency and outcome, and
// show API keys, tokens, session ids and host session keys only as
// embedkit.Redact hashes; a viewer appears as a keyed hash
// (Kit.RedactViewer, under Config.LogKey). Error pages never show error
// details.
//
// Minting is bounded per viewer (Config.MintLimit, on by default): a
// viewer who mints faster gets 429 with Retry-After, and nothing reaches
// the platform.
//
// # Observability
//
// Config.Metrics counts mints and revokes by outcome with their latency
// and reports the revoke queue's depth; Config.Tracer puts a span around
// each mint and each revoke attempt, and the platform client runs under
// the span's context, so a tracing transport given to the client
// (embedkit.WithHTTPClient) nests each HTTP attempt, retries included,
// under it. Both are interfaces of this package; the kit's adapters
// implement them for OpenTelemetry and Prometheus.
package middleware
