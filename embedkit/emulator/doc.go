// Package emulator is the analytics platform itself, in memory: an
// http.Handler that serves the management API exactly as the platform's
// specification describes it, plus the embed iframe pages and a control API
// for tests. Use it the way stripe-mock is used: point a client at it in
// unit tests, in CI, or in a local demo.
//
// The emulator checks every rule on its own. It does not import the
// embedkit client's validators, so a client tested against it is tested
// against an independent implementation of the specification.
//
// # Short path
//
//	srv, err := emulator.New(nil) // nil: the built-in demo fixture
//	if err != nil { ... }
//	ts := httptest.NewServer(srv)
//	defer ts.Close()
//	// API key "ek_dev_only_admin_all", deployment 1, dashboard "sales-overview".
//
// From the command line (first stdout line: "listening on http://HOST:PORT"):
//
//	go run ./cmd/emulator -listen 127.0.0.1:0 -fixture FILE [-tls]
//
// ("go run ./cmd/demo emulator" is the same command.)
//
// # Fixture
//
// A fixture is the whole initial state of an account. Every object in it is
// closed: unknown members, duplicate ids and dangling references (a key's
// user or deployments, a dashboard's managers) are load errors that name
// the path, such as "deployments[0].branches[2].kind: must be production,
// shared or personal". The built-in demo fixture, fixtures/demo.json in
// this package's directory (DemoFixture), is a full example; the Fixture
// type and its members document every field.
//
// Two top-level members set how the embedded pages renew a session (see
// "Session renewal in place"): "predatesSessionRenewal": true plays a
// platform from before the renewal messages, and "sessionExpiringLead"
// (a duration such as "15m", from "1m" to "12h"; default "10m") is how
// long before the token's trust ends the page posts
// cube:event:session-expiring.
//
// A key without "deployments" is unscoped. A user's "active" defaults to
// true. Exactly one branch of a deployment is the production branch; a
// branch's optional "stagingEnvironment" (shared branches only),
// "parentBranch" and "lastHash" set its initial state. Exactly one version
// is current and each channel has exactly one latest version. A dashboard
// with "renderError" always fails to render with that message, and one
// with "allowEmbed": false does not allow signed embedding (see "Iframe
// pages and sample data"). "embedTenants" and "templateVariables" are optional. The built-in demo
// fixture (DemoFixture) has tenant "acme", the dev-only keys
// ek_dev_only_admin_all, ek_dev_only_admin_d1 and ek_dev_only_personal,
// groups sales, emea, amer, apac and analysts, and deployment 1 with
// dashboards sales-overview, regional-performance, project-analytics (the
// demo's project pages embed it; its data model requires a "project" key,
// so a session without one sees no rows of it), draft-board (unpublished) and
// broken-board (always fails to render; marked "testOnly", so the pages'
// in-embed navigation leaves it out while its address still opens it). A
// dashboard with "testOnly": true is published and embeddable but not
// listed in the navigation.
//
// # Authentication
//
// /api/v1 and /build/api/v1 take "Authorization: Bearer <API key>". The
// embed session endpoints (generate-session and revoke) also take
// "Api-Key <API key>", the form the specification documents for them; the
// operations answered 501 take both. Revoke also accepts an embed token of
// an internal admin user as its Bearer credential. The scheme name is
// case-insensitive. 401: credential missing, malformed, unknown, expired or
// revoked, or its user deactivated. 403: valid but outside the key's
// deployment scope or lacking the role (admin for generate-session, revoke
// and embed-tenant groups; AuditLogManage for the audit export; manage
// access for dashboard export; administrator for renderAs). Revoke does not
// check the deployment scope. The specification accepts only HTTPS; the
// emulator also serves plain HTTP (tests run it on loopback) and does not
// enforce HTTPS.
//
// Errors have the body {"error": "<message>"} with Content-Type
// application/json, using the specification's messages where it gives
// them: "Groups with names ghosts, zombies not found", "User attributes not
// found", "cannot change type". Other messages name the field.
//
// # Request bodies
//
// Bodies are limited to 1 MiB (413 beyond). Every documented schema is
// treated as closed: an unknown member is a 400 naming it. null means the
// same as an omitted member. A member of the wrong JSON type is a 400
// naming the field ("settings.allowAi: must be a boolean"). Field names
// are matched case-sensitively.
//
// # Embed sessions
//
// generate-session answers {"sessionId"} with 32 lower-case hex characters
// from crypto/rand. The specification leaves the status of most invalid
// requests unstated; the emulator answers 400 with a message naming the
// field, for: a missing or non-integral deploymentId; not exactly one of
// externalId and internalId; an externalId that is not lowercase and
// trimmed; an internalId that is not an active user, or combined with
// groups, userAttributes, groupDefinitions, userAttributeDefinitions,
// securityContext or userProfile; an embedTenantName breaking the schema
// pattern (2 to 36 characters; the pattern wins over the prose's 5 to 36);
// creatorMode without the tenant flag; tenantGroups or
// tenantGroupDefinitions without creatorMode and embedTenantName;
// userAttributeDefinitions without creatorMode; duplicate names; unknown
// groups, tenant groups or attributes; attribute values of the wrong type;
// a type change; a picture that is not an absolute http or https URL;
// unknown settings or theme keys; a branch nothing serves; and the external
// user limit. An unknown deployment is 404, as is a branchName that is not
// a branch of the deployment. A request that fails changes nothing.
//
// Groups replace memberships when sent, clear them when [], and keep them
// when omitted; the same holds for tenantGroups, whose memberships are kept
// per embed tenant: a user's tenantGroups in one tenant never replace or
// reach its memberships in another. The effective groups are signed into
// the token's security context at platformCloud.groups: the global names
// verbatim, then the memberships in the session's own embed tenant as
// system:tenant:{tenant}:group:{name}; other members of a platformCloud
// object sent by the caller are kept. Deleting an embed-tenant group ends
// every user's membership of it in that tenant. A tenant group's
// description is updated when supplied, not empty and different; it is
// never cleared. The user profile persists on the external user, keyed by
// externalId. Attribute values persist per user and per catalog they were
// set in: without creatorMode names resolve against the tenant-wide
// catalog, in creator mode against the embed tenant's own catalog (which
// userAttributeDefinitions upsert), and a session's token carries the
// values of the catalog it resolves against only; a null value clears an
// attribute. groupDefinitions, isEphemeral, publicDashboardId and roles are
// accepted (type-checked) and have no effect.
//
// The exchange (POST /api/v1/embed/session/token, {"sessionId"}) needs no
// credential and answers {"token": "<JWT>"}; it works once, while the
// virtual clock is before creation + 5 minutes (at exactly 5 minutes the id
// is expired). The token carries the security context, identity, tenant,
// attributes, settings, theme and branch, iat = exchange time, exp = iat +
// 24 h, and rvk when the fixture's revocationClaim is true. Revoke answers
// 204 for every id; it revokes an unexchanged id, and an exchanged one only
// when its token carries rvk (its token is then rejected with 401).
//
// # Other operations
//
// Deployment and environment lists use offset pagination (offset default
// 0, limit default 20) with the envelopes {data: {deployments}} and
// {data: {environments}} plus pagination {offset, limit, total}. A branch
// with its staging environment enabled is listed as an environment of type
// staging with id "staging-<branch>". Metadata tokens answer {data: {token,
// created_at, expires_at}} with expires_in seconds (default 86400); data-API
// tokens answer {"cubeApiToken"} (the platform's DeploymentTokenResponse)
// with expiresIn 60 to 86400 (default 86400). Both
// are signed with keys of their own and never pass as embed tokens.
//
// PUT /api/v1/deployments/{id} is a partial update answering the
// deployment's settings. releaseChannelVersion is accepted as <semver>,
// v<semver> or <image_repo>:v<semver>, exactly (no white space trimmed),
// and must be listed (400 otherwise); releaseChannel alone moves to that
// channel's latest; choosing a version that is not its channel's latest
// sets releaseChannelVersionHold unless the request sends the hold itself,
// and choosing the latest leaves the hold as it was (the docs say nothing
// of clearing it). templateVariables merge key by key, each value stored
// as given (null included). cloudProvider (cubecloud, aws, gcp),
// creationMethod (upload, cubecloud, github, ssh), deployMode (git, cli),
// releaseChannel (latest, release) and template (single, simpleCluster,
// multiCluster) take only their enum's values: 400 naming the field and
// the values. A fixture's versions name one of the two channels (the
// built-in fixture has both); a channel no version names is a 400 too.
//
// The audit CSV export streams the columns time (RFC 3339 UTC), eventName,
// userEmail and data (compact JSON; the columns are the emulator's own, the
// platform documents none; the built-in fixture's event names are the
// documented examples "Logged in" and "Entered dev mode") as text/csv with
// Content-Disposition:
// attachment; filename="audit-log.csv". start and end accept a date (whole
// day, inclusive) or an RFC 3339 time; search matches the event data
// case-insensitively; userEmail matches case-insensitively.
//
// Dashboard exports: both or neither dashboard id, a format other than png
// or pdf, or an unpublished dashboard give 400 (the message says only a
// published dashboard can be exported); a dashboard outside the deployment
// gives 404; restricted data downloads, missing manage access (the user is
// not among the dashboard's managers) and renderAs by a non-administrator
// give 403; more than maxExportsInFlight unfinished jobs for the rendered
// identity give 429; an embed subject whose tenant is not among the
// dashboard's "sharedWithTenants" gives 403 (the embed subject's tenant
// lacks a share of the dashboard's workbook; without the list every embed
// tenant holds a share, the emulator's default). An embed subject of
// renderAs renders with its stored tenant-wide attribute values (renderAs
// attributes resolve against the tenant-wide catalog), its global groups
// and the request's overrides; nothing of them is stored. A job answers
// "pending" on its first poll,
// "processing" (progress 50) on its second, and its final status from the
// third poll on, or as soon as the clock is 2 seconds past submission:
// "completed" (progress 100, contentType) or "failed" (error). Download
// answers 409 while rendering, 422 after a failed render, and the PNG or
// PDF as an attachment named <filename>.<format> (default "dashboard").
// Only the submitting user may poll or download (404 for others); at
// expiresAt, 5 minutes after submission, the job is gone (404).
//
// Embed-tenant groups are cursor-paginated (first 1 to 100, default 20;
// after = the previous pageInfo.endCursor) with items, pageInfo and the
// legacy data, count and pagination fields. The default and the cap are
// the emulator's own: the platform states a cap of 100 for transform-sync
// history only. An item holds id, name and description, also the
// emulator's own minimum: the platform shows no item fields. Operations the specification
// lists by path only answer 501 {"error": "not implemented by the
// emulator"}; unknown paths answer 404 and wrong methods 405, both JSON.
//
// # Iframe pages and sample data
//
// The emulator serves what the embedding iframe loads:
// /embed/dashboard/{publicId}?session=, /embed/d/{deploymentId}/dashboard/{publicId}?session=,
// /embed/d/{deploymentId}/app?session= and /embed/chat?sessionId=. The page
// exchanges the id, then reads GET /embed/api/context with the embed token
// as its Bearer credential (401 once the token is revoked or expired: the
// page shows "session ended" for a revoked token and "Session expired"
// past its trust end, see "Session renewal in place"). It formats numbers and dates in the
// session's locale and time zone (runtime message, then ?locale= and
// ?timezone=, then settings, then en-US and UTC), applies the theme, and
// speaks the platform's documented postMessage protocol with the host
// page named by ?parentOrigin= only: envelope {source: "cube-embed",
// direction, type, payload, timestamp, surface}. It posts cube:event:ready
// once at mount; cube:event:view at mount and after each in-embed
// navigation, with cube:event:navigate (links to the deployment's other
// dashboards, or the navigate action); cube:event:dashboard-loaded with
// widgetCount and loadDurationMs after each load, refresh or filter change;
// cube:event:download when the viewer downloads the rows as CSV or the
// whole dashboard as PNG or PDF (allowExport=true only; the PNG and PDF
// come from GET /embed/api/export with the embed token, a route of the
// emulator's own); cube:event:drilldown when the
// viewer clicks a bar (member sales.region); cube:event:ai-query on the
// chat surface; cube:event:error, fatal with context embed-render for a
// dashboard whose fixture has a renderError and embed-session for a
// missing, used, expired or revoked session; and
// cube:event:session-expiring and cube:event:session-expired (see
// "Session renewal in place"). It sends no other message. It honours
// cube:action:set-filter, navigate, refresh, set-locale, set-theme,
// set-color-scheme, set-session and the uncatalogued set-timezone.
//
// # Session renewal in place
//
// The embed token is signed for 24 hours, and the page stops trusting it
// an hour earlier, 23 hours after the exchange, as the platform's page
// does. Both moments follow the emulator's clock: the page reads
// serverTime with its context every two seconds, so POST /_emulator/clock
// {"advance": "23h"} reaches an open page within a few seconds.
//
//   - cube:event:session-expiring comes sessionExpiringLead (default 10
//     minutes) before the trust ends. The platform's documentation does
//     not say how long before; the default and the allowed range (1
//     minute to 12 hours) are the emulator's choices.
//   - cube:event:session-expired comes when the trust ends, or when the
//     context call is refused after it (a tab asleep past the signed
//     expiry); the page clears its data, shows "Session expired", stops
//     polling and keeps listening for set-session. It does not also send
//     the fatal cube:event:error of the older platform.
//   - Both payloads are empty ({}): the documentation knows no fields.
//     Each event comes at most once per token. session-expiring is
//     best-effort on the platform and may come late: when one clock jump
//     crosses both moments, the page sends session-expired and then
//     session-expiring, as a timer woken after the end would.
//   - cube:action:set-session with {sessionId} exchanges the new id by the
//     first exchange's rules (single use, within 5 minutes, not revoked,
//     known), replaces the token, starts both events' timers again for it,
//     reloads the context and renders again, without reloading the
//     document: what the host set at runtime (locale, time zone, theme,
//     color scheme, filters, the in-embed path) stays. Nothing confirms a
//     renewal, as nothing is documented to. An id that cannot be exchanged
//     is reported with cube:event:error, context embed-session, fatal only
//     when the current token is no longer trusted; otherwise the page goes
//     on with it. A payload without a string sessionId is ignored, as is a
//     message not from the parent window and origin or outside the
//     envelope, as for every action. Of overlapping set-session actions
//     the last one wins.
//
// A 401 on the context call before the trust ends (a revoked token) ends
// the session with a fatal cube:event:error, context embed-session, and
// "session ended", as before.
//
// A fixture with "predatesSessionRenewal": true plays a platform from
// before these messages: the page sends neither event, ignores
// set-session as an unknown action, and when the trust ends posts a fatal
// cube:event:error (context embed-session, "the session has ended") and
// shows "session ended", so the host loads the frame again.
//
// The page honours the documented chrome switches of its address, read
// when the page is rendered: allowExport counts only as the literal "true"
// (the account's dataDownloadsRestricted outranks it), and each hide
// switch only as the literal "false". showDashboardHeader=false hides the
// whole header, and so the back button, title, edit and duplicate buttons
// whatever their own switches say; showDashboardExportMenu hides the
// PNG/PDF menu; showWorkbookBackButton applies to the app and showNewChat,
// showChatInput and showChatHistory to the chat. A switch of another
// surface is ignored. The edit and duplicate buttons are shown disabled:
// the emulator has no editor.
//
// A session is bound to its deployment and to nothing narrower: the
// specification and the platform's documentation say a session grants
// access to its deploymentId and state no binding to a dashboard or a
// surface (publicDashboardId's meaning is not stated). So, by the
// emulator's choice, one session opens any published dashboard of its
// deployment (a dashboard of another deployment is "not found"), the
// chat, and the creator-mode app whether or not it was minted with
// creatorMode; the deployment id in an /embed/d/{deploymentId}/ path
// chooses the page, and the data always come from the session's own
// deployment.
//
// GET /api/v1/embed/dashboard/{publicId}, which the documentation names
// for its 403 on a dashboard without "Allow signed embedding", takes the
// embed token the same way and answers 403 for a fixture dashboard with
// "allowEmbed": false (unset means allowed, the emulator's default), 404
// for one that is not published in the token's deployment, and otherwise
// 200 with {publicId, title} (the body is the emulator's choice). The
// embedded page of such a dashboard shows the refusal and posts a fatal
// cube:event:error. Every answer's Date header follows the emulator's
// clock, so a clock moved through the control API is a skew clients see.
//
// Every dashboard has the same controls, so the documented URL parameters
// have something to match: filters on sales.region and sales.month
// (f_sales.region={"value":"EMEA"}; a list of values matches any; "type":
// "notEquals" inverts; {"value": null} clears, which is the emulator's
// reading: the docs say nothing of clearing), a time-grain switcher on
// sales.month (tg_sales.month=quarter) and a member switcher on
// sales.revenue (ms_sales.revenue=sales.orders charts orders). They filter
// in the page, over the rows the signed identity may see: viewer-side
// controls, not security.
//
// Every dashboard shows monthly revenue and orders by region (EMEA, AMER,
// APAC) for January to June 2025, derived from its public id alone, so
// pages and exports agree across runs. The rows follow the identity signed
// into the embed token: a "region" user attribute or security-context key
// (a string or array of strings, case-insensitive; when both are present
// both apply) limits the rows to those regions, and a region key of any
// other type or naming no known region shows no rows (a null region is no
// restriction). Otherwise global groups in
// securityContext.platformCloud.groups named emea, amer or apac limit the
// rows to those regions; otherwise every row is shown. A "project" string
// in the security context selects that project's own figures. A dashboard
// with "requiredSecurityContext" keys stands for a data model whose access
// policy scopes rows by those keys and denies every row when one is
// missing (null or "" count as missing): a session without them sees no
// rows of it, in its page and its exports. A session is bound to its
// deployment only, so a plain embed reaches such a dashboard through the
// embed's own navigation; this is what it finds there.
//
// # Control API
//
// The control API needs no credential; never expose an emulator beyond
// loopback (ListenAndServe and the command refuse other addresses unless
// told otherwise). A loopback server is still reachable from a web page
// in the developer's browser, so every request under /_emulator/ must
// also pass three rules, or gets a JSON error naming the rule:
//
//   - Host (403): a loopback address (127.0.0.0/8, ::1), "localhost", the
//     IP address the request's connection was accepted on, or a host
//     named with WithControlHosts, Config.ControlHosts or the command's
//     -control-host (for an emulator reached by a container's service
//     name, say); ListenAndServe also adds the host of a non-loopback
//     Addr. This defeats DNS rebinding: a page whose own name resolves to
//     127.0.0.1 still sends its own name. Ports are not compared. The
//     emulator cannot know the address an httptest server or another
//     listener gives it, hence the rule by address class rather than by
//     listening address. A request made with httptest.NewRequest has Host
//     "example.com": set its Host, or call ServeHTTP through a server.
//   - Origin (403): absent (tests and scripts send none), or the
//     emulator's own origin, http or https with the request's Host.
//     Browsers send Origin with every cross-origin request and every
//     POST.
//   - Content-Type (415): a POST must declare application/json, even a
//     reset with an empty body, which a cross-origin form or no-cors fetch
//     cannot do without a CORS preflight (the emulator grants none).
//
// The management API and the embed pages answer any Host and Origin:
// they are guarded by their API keys and session ids, as the platform's
// are.
//
//	POST   /_emulator/reset     a fixture (empty: the Server's own) → 204; all state
//	                            replaced, clock back to the base clock
//	POST   /_emulator/clock     {"advance": "5m1s"} → 200 {"now": "<RFC 3339>"}
//	GET    /_emulator/clock     → 200 {"now": "<RFC 3339>"}
//	POST   /_emulator/faults    {"faults": [{"method": "POST", "path": "/api/v1/embed/generate-session",
//	                              "status": 503, "times": 2, "delay": "50ms", "retryAfter": "1",
//	                              "reset": false, "body": "optional raw body"}]} → 204
//	DELETE /_emulator/faults    → 204
//	GET    /_emulator/sessions  → 200 {"sessions": [{"sessionId", "state", "externalId",
//	                              "deploymentId", "createdAt"}]}
//	GET    /_emulator/requests  → 200 {"requests": [{"method", "path", "status", "time"}]}
//
// A fault applies to the next times matching requests (0: until cleared);
// a path ending in "*" matches a prefix; reset drops the connection; delay
// sleeps first, ending early when the request's context is done. The same
// operations are methods: Reset, Advance, InjectFault, ClearFaults,
// Sessions and Requests. The request log keeps the newest 1000 requests
// and never records query strings, headers or bodies.
//
// # Time, scale and safety
//
// Every expiry reads the virtual clock: the base clock (WithClock, default
// time.Now) plus the offset of Advance. Sessions and jobs are indexed by id
// and expire lazily; records nothing can reach any more are swept at most
// once a minute of virtual time. A Server is safe for concurrent use. Logs
// (WithLogger) never contain API keys, tokens or session ids, only short
// hashes.
package emulator
