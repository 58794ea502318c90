// Package redisstore is the Redis middleware.SessionStore: for a host
// application that runs as several instances, or whose failed revokes must
// survive a restart. It talks to Redis through
// github.com/redis/go-redis/v9 and needs Redis 6.2 or later, through a
// redis.Client (one server, or Sentinel's failover client) or a
// redis.ClusterClient (Redis Cluster). Both are tested: every test of the
// package, the conformance suites of Store and EndedLogins included, runs
// against a single server and against a three-node Redis Cluster. A
// redis.Ring places keys by the same hash tags, but is not tested.
//
// The short path:
//
//	client := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
//	store := redisstore.New(client)
//	// hand store to the middleware as its SessionStore
//
// # What is kept, and where
//
// Only what the middleware needs to revoke. Every key name starts with the
// prefix (WithPrefix, DefaultPrefix):
//
//   - prefix + "k:" + digest(host session key): a hash, one field per
//     session id, holding the record's expiry and subject.
//   - prefix + "kx:{" + that hash's name + "}" (or the hash's name +
//     ":exp" when the prefix holds a hash tag): for a host session of 16
//     records or more, its expiry index, a sorted set of its session ids
//     by expiry. With it, Add to a host session at its bound of records
//     costs Redis about what Add to a new one does; without it, Redis
//     would read and sort every record of the session on each Add.
//   - prefix + "u:" + digest(subject): the subject index, a sorted set of
//     host session key digests scored by the latest expiry of the
//     subject's records there.
//   - prefix + "{revoke}:due", "{revoke}:rec", "{revoke}:exp": the revoke
//     queue, a sorted set by next attempt time, the queued records, and a
//     sorted set by expiry.
//   - prefix + "ended:k:" + digest(host session key),
//     prefix + "ended:s:" + digest(subject) and
//     prefix + "ended:d:" + digest(provider sid): EndedLogins, the list of ended
//     host login sessions (for gorillasession.Identity.EndedLogins), so that
//     a cookie copied before logout stays signed out on every instance and
//     after a restart.
//
// digest is the unpadded base64url SHA-256, so a key listing shows neither
// host session keys nor subjects (personal data). A host session key names
// one login and belongs in that login's session only: the host keeps it
// out of pages, logs and other stores (a gorillasession cookie that is
// signed but not encrypted shows it to whoever holds the cookie; see
// gorillasession.KeysFromEnv for a block key). Every
// key expires when its last record does, so Redis drops everything the
// store wrote once nothing it minted can still be alive; nothing needs
// cleaning by hand. ExpiresAt is kept to the millisecond.
//
// A host session key holds at most DefaultMaxPerKey records
// (WithMaxPerKey); when it is full, Add moves the record that expires
// first, the oldest, to the revoke queue, so the middleware's retrier
// (Kit.Run) revokes it early rather than leaving a session that logout
// could no longer find.
//
// # Methods and their edge cases
//
//   - Add records m under key. Add of a record whose ExpiresAt has passed
//     keeps nothing and returns nil. Add of a session id already under key
//     replaces that record. Add to a full key moves the record that
//     expires first to the revoke queue. Add of a record without a session id returns an error.
//     Add drops a value the store did not write, as it drops an expired
//     record.
//   - Take removes and returns the live records under key, in no particular
//     order: it reads them, then deletes those it read and returns the ones
//     it deleted, so two Takes never return one record. Take of a missing
//     key returns no records and a nil error; so does Take of a key whose
//     records have all expired. When the delete does not answer, Take
//     returns what it read, with a nil error (see Timeouts). A value the
//     store did not write (another program under the prefix, a damaged
//     write) is removed with the rest and reported as an error, returned
//     with the records read, which the caller must still revoke (the
//     middleware's Kit does); the error never quotes the value.
//   - TakeSubject removes and returns the live records of one subject under
//     every host session key, leaving other subjects' records in place.
//     TakeSubject of a subject without records returns no records and a nil
//     error. Subjects are compared exactly, as strings. It takes each host
//     session as Take does, and goes on past one that held a value it
//     did not write, reporting that at the end. On an error it
//     returns the records it had already removed along with the error, so
//     that the caller can still revoke them.
//   - Defer queues records for a later revoke attempt, each due at its
//     Due with its attempt count: a plain queue by due time, whose
//     schedule the middleware's Kit owns (Config.Revoke.Backoff). Defer of
//     an expired record skips it; Defer of an id already queued replaces
//     it. The queue lives in Redis: revokes deferred before a restart are
//     due after it, from any Store with the same prefix.
//   - Due removes and returns up to n queued records whose due time has
//     come, earliest first, with their attempt counts, and forgets them.
//     Due on an empty queue returns no records and a nil error, as does
//     Due with n below 1. Records that expired while queued are dropped,
//     never returned.
//   - Pending reports how many live records are queued.
//
// # Atomicity
//
// Every change to one Redis key is one Lua script or one MULTI/EXEC
// transaction, so concurrent Stores never lose a record: an Add that races
// a Take of the same key lands either in the Take's result or in Redis
// afterwards. Each script, transaction and multi-key command touches keys
// of one hash slot only, as Redis Cluster requires; reads of keys in
// different slots (EndedLogins.LoginEnded reads a session's record, its
// subject's and its provider session's) are separate commands in one pipeline, which a ClusterClient
// sends to each key's node. A take (Take, and TakeSubject per host session)
// is a read and then one script that deletes what was read and returns
// what it deleted, so concurrent takes split the records between them.
//
// With Redis Cluster, a prefix may hold "{" and "}" only as a hash tag
// ("{app}:"), which then puts every key of the store in one slot; braces
// that make no hash tag would put a host session's records and its
// expiry index in different slots, and its scripts would fail.
//
// Host sessions written by a version of the store that kept no expiry
// index are read as they are; the first Add to one of 16 records or more
// indexes it.
//
// Times come from the store's clock (WithClock), not from Redis; the
// instances of an application should keep their clocks in step.
//
// # Timeouts
//
// Every call a method makes to Redis is bounded by WithTimeout,
// DefaultTimeout (3 s) unless set, and by the caller's context, whichever
// ends first (most methods make one; Take makes two, a read and a delete,
// and TakeSubject one for the subject's index and two per host session), whatever the
// client's options: go-redis's defaults wait 35 to 40 seconds a call on a node
// that hangs (a stopped process, a network partition), and
// EndedLogins.LoginEnded runs on every signed-in request. The call runs in
// its own goroutine, and the method returns at the deadline with an error
// wrapping context.DeadlineExceeded while go-redis finishes in the
// background. A command a hung node reads after the deadline still runs
// when the node resumes, so no write is given up on where that could lose
// a record: Take and TakeSubject read first and delete second, each call
// bounded. A read given up on changed nothing: the records stay for the
// next Take (the middleware's Kit keeps a logout's take and retries it
// once Redis answers). A delete given up on may run later, so the records
// read are returned all the same, for the caller to revoke; if the delete
// never ran, a later Take returns them again, and a revoke of a revoked
// session changes nothing.
// docs/reliability.md (Redis) has the measured answer times of a hung
// node, a stopped node and a whole Cluster down.
//
// Errors wrap those of go-redis, including the context's. The store never
// logs, and its errors never quote a record.
package redisstore
