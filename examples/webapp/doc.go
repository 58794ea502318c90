// Package webapp is "Ledgerly", the demo host application: an invoicing
// product that signs its users in with OpenID Connect and embeds the
// analytics platform's dashboards through the kit. It is a package, not a
// main, so that tests run the whole demo in process.
//
// # The short path
//
//	d, err := webapp.RunDemo(ctx, webapp.DemoOptions{Listen: "127.0.0.1:0"})
//	if err != nil { ... }
//	defer d.Close(context.Background())
//	// open d.AppURL; sign in as one of d.Users (development only)
//
// RunDemo starts, in this process and on loopback, the platform emulator
// (with an admin API key generated at start), the development OpenID
// provider (with a client secret generated at start) and the app. The
// environment (ConfigFromEnv) replaces each embedded part with a real one.
// To run the app alone against real services, build a Config and call New;
// App is an http.Handler.
//
// # Routes
//
//	GET  /                        home; a signed-in user goes to /dashboards
//	GET  /login, /auth/callback   OpenID Connect sign-in (Auth)
//	POST /logout                  same-origin POST with the form token: revokes the
//	                              login's embed sessions, ends the session, then the
//	                              provider's end-session endpoint with id_token_hint
//	POST /backchannel-logout      OpenID Connect back-channel logout
//	GET  /dashboards              the dashboards of Config.Dashboards
//	GET  /dashboards/{publicId}   one dashboard, minted as the page renders (Kit.FrameURL)
//	GET  /ask                     the analytics chat
//	GET  /react                   the dashboards in React (@embedkit/host/react)
//	GET  /module                  a dashboard driven by the package's ES module
//	GET  /projects                the projects the viewer's region may see
//	GET  /projects/{id}           one project's analytics, scoped by the route
//	GET  /projects/{id}/analytics/frame   its frame (Kit.FrameFunc)
//	GET  /creator                 the creator-mode workspace (creator tenants only)
//	POST /settings                locale, time zone and colour scheme
//	     /embed/frame/, /embed/session, /embed/host.js, /embed/host.d.ts   the kit
//	GET  /static/                 stylesheet and scripts (react.js: the React page)
//	GET  /healthz                 liveness
//
// # Sessions
//
// The host session is a gorilla/sessions cookie (HttpOnly, SameSite=Lax,
// Secure when Config.PublicURL is https) that holds the viewer mapped from
// the ID token's claims (under a random key of the login's own, with the
// provider's sid beside it) and the display settings. A cookie that no
// longer decodes (rotated keys, tampering) means signed out. Logout and
// back-channel logout record the session, every session of the subject,
// or every session of the provider session a sid-only logout token names,
// in a server-side list that expires with the cookies, so a copy of a
// pre-logout cookie reaches nothing; a login ends at the latest eight
// hours after sign-in, however often its cookie is saved again
// (gorillasession.Identity.MaxLifetime, on by default).
//
// The form token of a session (csrf_token in every form) is an HMAC of its
// random session key, so it is new at each login and needs no storage;
// logout and settings also refuse cross-origin requests
// (http.CrossOriginProtection).
//
// # Embedding
//
// The kit is configured with the platform client, the session as identity,
// a memory store (Redis with REDIS_ADDR) of minted ids, and a policy that
// allow-lists the platform groups and the region attribute, takes the
// tenant from the viewer and allows creator mode for Config.CreatorTenants.
// Each dashboard is a target with the dashboard chat turned off; the
// analytics chat (the Ask page) is the target "ask"; the creator-mode app
// is the target "app". Saved display settings replace the
// profile's locale and time zone in the viewer, so they apply to every
// session minted afterwards; the page applies them at once through the
// host script.
//
// The dashboard, workspace, chat and module pages embed the README's
// default way: the page's handler mints the session as it renders
// (Kit.FrameURL), writes the platform's URL into the iframe src and
// serves the page no-store, so every load of the page mints; the iframe's
// data-embedkit-target names its target, by which the host script
// re-mints the frame through the session endpoint when it loads again on
// its own or its session nears its end. A failed mint answers through
// Kit.ServeError: the app's error page (an outage offers to load the page
// again). A HEAD of such a page mints nothing, nor does a load that
// another site navigated to: its iframe gets the kit's frame endpoint,
// which mints on the iframe's same-origin load. The project pages keep
// their own frame route (Kit.FrameFunc) as the src, for its check of the
// project on every load; the React page and <embedkit-frame> use the
// kit's frame endpoint.
//
// Failed frame loads render the app's error pages inside the iframe:
// an outage (503) offers to load the frame again, other errors send their
// next step to the top window.
//
// # Metrics
//
// RunDemo serves the kit's Prometheus metrics (adapters/ekprom) at
// Demo.MetricsURL, on a loopback listener of its own: an operator's
// scraper reads them, the app's visitors cannot. The same listener serves
// the doctor on the Config the app serves with (App.DoctorHandler) at
// Demo.DoctorURL, which "embedkit doctor -app" reads.
//
// # Logs
//
// Records go to Config.Logger: one per request with method, path, status
// and duration (never a query string, header, cookie or redirect target),
// plus the kit's, the client's and Auth's, which never hold an API key,
// token, code, session id or cookie.
package webapp
