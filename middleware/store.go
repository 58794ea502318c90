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
//   - Add records m under key. Add of a session id already under key
//     replaces that record: an id is kept once, as last added. A record
//     without a session id is an error, and then nothing is kept.
//     Records past m.ExpiresAt may be dropped at any time. A store may
//     bound the number of records per key; when full it should hand the
//     oldest to its RevokeQueue, if it has one, so the session is revoked
//     rather than forgotten, and say so in its documentation.
//   - Take removes and returns every record under key. Take of a missing
//     key returns no records and a nil error. Take may return records
//     along with an error (it removed them, then failed); the Kit revokes
//     them all the same.
//
// Implementations must be safe for concurrent use; Add and Take on the same
// key must not lose a record (an Add that races a Take lands either in the
// Take's result or in the store afterwards). storetest.Run checks the
// contract.
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

// Deferred is a revoke waiting in a RevokeQueue: the record, how many
// attempts at it failed, and when the next is due. The Kit owns the
// schedule: it sets Attempts and Due (Config.Revoke.Backoff). A store that
// pushes a record out of a full key queues it with Attempts 0 and Due now.
type Deferred struct {
	Minted
	Attempts int
	Due      time.Time
}

// RevokeQueue is an optional SessionStore capability: keeping revokes
// that failed so they are retried later, across process restarts when the
// store is persistent. Without it the middleware keeps its own in-process
// queue (a MemoryQueue). It is a plain queue ordered by due time; the Kit
// decides the times.
//
//   - Defer adds ds. A session id already queued is replaced, not queued
//     twice. Records past ExpiresAt need no revoke and may be dropped. A
//     record without a session id is an error, and then nothing is
//     queued.
//   - Due removes and returns up to n queued records whose Due has come by
//     the store's clock, earliest first, dropping expired ones. Due on an
//     empty queue, with nothing due, or with n below 1 returns no records
//     and a nil error.
//   - Pending reports how many live records are queued, due or not.
//
// storetest.Run checks the contract.
type RevokeQueue interface {
	Defer(ctx context.Context, ds []Deferred) error
	Due(ctx context.Context, n int) ([]Deferred, error)
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
