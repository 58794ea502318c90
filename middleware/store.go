package middleware

import (
	"context"
	"net/http"
	"time"
)

// Minted is one session id the kit minted, kept only so that it can be
// revoked. It holds no token and no user data beyond the subject needed
// for back-channel logout.
type Minted struct {
	SessionID string
	// Subject is the viewer's Subject as the platform's externalId holds
	// it, normalised by embedkit.NormalizeExternalID, for revoking by
	// subject.
	Subject string
	// ExpiresAt is when nothing minted from the id can still be alive:
	// mint time + embedkit.SessionLifetime + embedkit.EmbedTokenLifetime.
	// Stores drop the record then.
	ExpiresAt time.Time
}

// SessionStore keeps the session ids minted for each host session, and
// nothing else.
//
//   - Add records m under key. Records past m.ExpiresAt may be dropped at
//     any time. A store may bound the number of records per key; when full
//     it should hand the oldest to its RevokeQueue, if it has one, so the
//     session is revoked rather than forgotten, and say so in its
//     documentation.
//   - Take removes and returns every record under key. Take of a missing
//     key returns no records and a nil error.
//
// Implementations must be safe for concurrent use; Add and Take on the same
// key must not lose a record (an Add that races a Take lands either in the
// Take's result or in the store afterwards).
type SessionStore interface {
	Add(ctx context.Context, key string, m Minted) error
	Take(ctx context.Context, key string) ([]Minted, error)
}

// SubjectIndex is an optional SessionStore capability: removing every
// record of one subject across all host sessions. OIDC back-channel logout
// needs it. Stores that cannot look records up by subject (a cookie store)
// do not implement it.
type SubjectIndex interface {
	TakeSubject(ctx context.Context, subject string) ([]Minted, error)
}

// RevokeQueue is an optional SessionStore capability: keeping revokes
// that failed so they are retried later, across process restarts when the
// store is persistent. Without it the middleware keeps its own in-process
// queue.
//
//   - Defer adds records for a later attempt. Records past ExpiresAt need
//     no revoke and may be dropped.
//   - Due removes and returns up to n queued records whose time has come
//     (the caller Defers again what still fails). Due on an empty queue
//     returns no records and a nil error.
//   - Pending reports how many records are queued.
type RevokeQueue interface {
	Defer(ctx context.Context, ms []Minted) error
	Due(ctx context.Context, n int) ([]Minted, error)
	Pending(ctx context.Context) (int, error)
}

// RequestScoped is an optional SessionStore capability for stores that
// keep records in the request itself (a cookie): the middleware calls
// ForRequest and uses the returned store for that request only, so the
// store can read r and write w. It must be used before the response
// header is written.
type RequestScoped interface {
	ForRequest(w http.ResponseWriter, r *http.Request) SessionStore
}
