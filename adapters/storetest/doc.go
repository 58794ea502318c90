// Package storetest is the conformance suite for middleware.SessionStore
// implementations. Every store of the kit runs it from its own tests, and a
// store written outside the kit can run it the same way:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) middleware.SessionStore {
//			return mystore.New()
//		})
//	}
//
// Run checks the SessionStore contract on every store, and the optional
// capabilities the store implements: middleware.SubjectIndex and
// middleware.RevokeQueue. A capability the store does not implement is
// noted in the test log, so `go test -v` shows what was covered. A store
// that bounds the records per key also runs RunBounded.
//
// What the suite asks of a store:
//
//   - newStore returns an empty store, used by one subtest only. Stores that
//     share a backend give each store its own namespace (a key prefix or a
//     database number) and remove it with t.Cleanup.
//   - The store measures expiry against the real clock: the suite writes
//     records whose ExpiresAt lies an hour in the past or a day in the future.
//   - ExpiresAt survives a round trip to the millisecond; Subject and
//     SessionID survive exactly. Records come back in any order.
//   - A key holds at least 64 records: the concurrency check keeps up to 50
//     records under one key at once, and a bounded store that dropped
//     records there would be reported as losing them.
//   - A RevokeQueue keeps each record until its Due by the store's clock
//     (the real one) and hands it back with its Attempts and Due: the
//     schedule is the middleware's, the queue only keeps order. RunQueue
//     checks a queue on its own; middleware.MemoryQueue runs it too.
//
// BenchAddToFullKey is a benchmark for any store: an Add to a host session
// key that already holds the store's bound of records, as for a sign-in
// that loads embeds all day.
//
//	func BenchmarkAddToFullKey(b *testing.B) {
//		storetest.BenchAddToFullKey(b, mystore.New(), mystore.DefaultMaxPerKey)
//	}
//
// The package uses package testing but declares no flags and keeps no global
// state, so importing it from any test binary is safe.
package storetest
