// Package embedkit is a typed client of the analytics platform's
// management API: embed sessions, deployments and environments, metadata
// and data-API tokens, branch staging environments, versions, audit-log
// export and dashboard export jobs.
//
// One Client serves every call; each call takes a context first. Every
// request rule of the platform's specification is checked before a byte
// goes out, and every broken rule is reported in one *ValidationError that
// names the field and the rule.
//
// The short path, minting an embed session for a signed-in viewer:
//
//	c, err := embedkit.New("https://acme.example.com", os.Getenv("EMBEDKIT_API_KEY"))
//	if err != nil { ... }
//	s, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{
//		DeploymentID: 1,
//		ExternalID:   "user-42",
//		Groups:       []string{"sales"},
//	})
//
// The session id is valid once, for five minutes; put it in the iframe URL
// and revoke it at logout with RevokeSession. Package
// github.com/embedkit/embedkit/middleware does all of that for a net/http
// application.
//
// # Connections
//
// New accepts only https base URLs, except for loopback hosts (localhost,
// 127.0.0.0/8, ::1), which may use plain http so a local emulator works.
// Requests carry "Authorization: Bearer <key>"; WithAPIKeyHeader("Api-Key")
// switches the embed endpoints (/api/v1/embed/...) to the "Api-Key"
// scheme their documentation shows. The session exchange sends no
// credential at all. The default http.Client has dial, TLS-handshake and
// response-header timeouts, a 30 second overall timeout (streamed
// downloads are bounded by their context instead), keeps up to 100 idle
// connections per host, allows HTTP/2 and refuses redirects to another
// origin. Over HTTP/1.1 a connection carries one call at a time, so a host
// with more than 100 calls in flight to the platform at once closes the
// connections the pool has no room for and opens new ones; give such a
// host WithHTTPClient with a larger http.Transport.MaxIdleConnsPerHost.
// Over HTTP/2, which the platform's https endpoint may offer, calls share
// connections.
//
// # Retries
//
// A call is retried only where that is safe (see DefaultCheckRetry).
// GET, PUT, DELETE and session revoke, which the platform answers with 204
// even for unknown ids, are retried on 429, on every 5xx except 501 and
// 505, and on connection errors and timeouts. The POSTs that mint something (a
// session, a token, an export job) are retried only when the platform
// cannot have acted: when the connection could not be opened, and on 429.
// They are never retried after a 5xx or a connection broken mid-request,
// because a blind retry could mint a second session. 400, 401, 403, 404,
// 409, 422 and 501 are never retried.
//
// Delays grow exponentially with full jitter between RetryPolicy.MinDelay
// and MaxDelay. A Retry-After header (seconds or an HTTP date) is honoured
// up to MaxRetryAfter; when the platform asks for longer, the call returns
// the 429 or 503 at once with APIError.RetryAfter set. A retry that would
// outlast the context's deadline is not attempted, and cancelling the
// context stops at once. Bodies are drained and closed so connections are
// reused. WithRetry replaces the policy; RetryPolicy{MaxAttempts: 1}
// turns retries off.
//
// WithCircuitBreaker (off by default) makes calls fail fast with
// ErrCircuitOpen after consecutive platform failures, and lets one trial
// through after a cool-down.
//
// # Errors
//
// A non-2xx answer is an *APIError with the status, the platform's message
// ({"error": "..."}), the X-Request-Id and, on 429 and 503, the
// Retry-After delay. errors.Is matches it against ErrUnauthorized (401),
// ErrForbidden (403), ErrNotFound (404), ErrConflict (409),
// ErrUnprocessable (422), ErrRateLimited (429) and ErrServer (5xx), and
// against the platform's named messages: ErrUserAttributesNotFound,
// ErrCannotChangeType, and ErrGroupsNotFound, whose *GroupsNotFoundError
// (errors.As) lists the missing names. A body the client cannot read
// matches ErrUnexpectedResponse and quotes at most a short, printable
// prefix, or nothing when the body may hold a secret. Transport errors are
// wrapped with the method and path, never the URL's query, and keep their
// cause for errors.Is (context.DeadlineExceeded, ...).
//
// # Pagination
//
// ListDeployments and ListEnvironments return one offset-paginated page
// (ListOptions); ListTenantGroups one cursor-paginated page
// (CursorOptions, PageInfo.EndCursor). Deployments, Environments and
// TenantGroups iterate over every item as an iter.Seq2 that fetches pages
// as needed and yields the first error it meets:
//
//	for d, err := range c.Deployments(ctx) {
//		if err != nil { ... }
//		fmt.Println(d.ID, d.Name)
//	}
//
// The platform documents two shapes for several responses (for example
// {"data": {"deployments": [...]}} with string ids, and {"items": [...]}
// with numeric ids); both are read.
//
// # Streams
//
// ExportAuditLog reads the CSV straight from the response, one row at a
// time, and DownloadDashboardExport hands the file's body to the caller:
// neither holds a whole file in memory. Close them when done.
//
// # Other operations
//
// The platform has many operations this package has no method for
// (users, SCIM, workspace content, data model files). NewRequest builds a
// request for any path on the same host with the same authentication and
// User-Agent, and Do sends it with the same retries (by method
// idempotency), error decoding and circuit breaker:
//
//	req, err := c.NewRequest(ctx, http.MethodGet, "/api/v1/users/me", nil)
//	var me struct{ Email string }
//	_, err = c.Do(req, &me)
//
// # Secrets
//
// Secrets never appear in errors or logs: the API key, embed tokens and
// session ids are shown at most as a short hash (see Redact). Session,
// EmbedToken, MetaToken and DataAPIToken print and log themselves
// redacted. WithLogger receives one debug record per attempt with the
// method, the path template, the status, the attempt number and the
// latency.
package embedkit
