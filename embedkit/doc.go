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
// Secrets never appear in errors or logs: the API key, embed tokens and
// session ids are shown at most as a short hash (see Redact).
package embedkit
