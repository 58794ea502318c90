// Package memstore is the in-memory middleware.SessionStore: the default
// for a host application that runs as a single instance. Records live in a
// github.com/patrickmn/go-cache cache and are lost when the process exits;
// an application with several instances, or one whose revokes must survive
// a restart, uses package github.com/embedkit/embedkit/adapters/redisstore.
//
// The short path:
//
//	store := memstore.New()
//	// hand store to the middleware as its SessionStore
//
// # What is kept
//
// Only what the middleware needs to revoke: for each host session key, the
// minted session ids with their subject and expiry. Each key's records are
// one compact encoding in the cache, so a stored id costs little more than
// its own bytes (see BenchmarkStore for the figure). A key that gains ids
// one after another keeps them in a buffer with room to grow, so that an
// Add to a key of many records copies only the new one. A key holds at most
// DefaultMaxPerKey records (WithMaxPerKey); when it is full, Add moves the
// record that expires first, the oldest, to the store's revoke queue, so
// the middleware's retrier (Kit.Run) revokes it early rather than leaving
// a session that logout could no longer find.
//
// # Expiry
//
// A record is never returned after its ExpiresAt. A key lives in the cache
// until its last record expires plus the cleanup interval
// (WithCleanupInterval, DefaultCleanupInterval); the cache's sweep then
// removes it together with its subject index entries.
//
// # Methods and their edge cases
//
//   - Add records m under key. Add of a record whose ExpiresAt has passed
//     keeps nothing and returns nil. Add of a session id already under key
//     replaces that record. Add to a full key moves the record that
//     expires first to the revoke queue. Add of a record without a session id returns an error.
//   - Take removes and returns the live records under key, in no particular
//     order. Take of a missing key returns no records and a nil error; so
//     does Take of a key whose records have all expired.
//   - TakeSubject removes and returns the live records of one subject under
//     every key, leaving other subjects' records in place. TakeSubject of a
//     subject without records returns no records and a nil error. Subjects
//     are compared exactly, as strings.
//   - Defer, Due and Pending are the revoke queue, a
//     middleware.MemoryQueue: a plain queue ordered by due time, whose
//     schedule the middleware's Kit owns (Config.Revoke.Backoff). Defer of
//     an expired record skips it; Defer of an id already queued replaces
//     it. Due removes and returns up to n records whose due time has
//     come, earliest first, dropping those that expired while queued.
//   - Pending reports how many live records are queued.
//
// # Concurrency
//
// A Store is safe for concurrent use. The cache itself has no atomic
// read-modify-write, so the Store serialises changes to one key with one
// of 64 locks chosen by the key's hash; operations on different keys
// rarely wait for each other. The subject index and the revoke queue have
// locks of their own. An Add that races a Take (or a TakeSubject) of the
// same key lands either in that call's result or in the store afterwards.
//
// The context arguments of the methods are not used: nothing blocks.
package memstore
