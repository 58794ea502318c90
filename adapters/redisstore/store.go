package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/embedkit/embedkit/middleware"
	"github.com/redis/go-redis/v9"
)

var (
	// errEmptyID is returned by Add and Defer for a record without a
	// session id.
	errEmptyID = errors.New("redisstore: record has no session id")
	// errMalformed is returned when a value read from Redis is not one the
	// store wrote. The value is not quoted: it may hold a session id.
	errMalformed = errors.New("redisstore: malformed record in redis")
)

// Store keeps minted session ids in Redis. It implements
// middleware.SessionStore, middleware.SubjectIndex and
// middleware.RevokeQueue. Make one with New. A Store is safe for concurrent
// use, and any number of Stores with the same prefix, in any number of
// processes, share the same records.
type Store struct {
	client    redis.UniversalClient
	prefix    string
	maxPerKey int
	// indexFrom is the number of records from which a host session's
	// records have an expiry index (see scripts.go).
	indexFrom int
	now       func() time.Time
	timeout   time.Duration // WithTimeout
	queueKeys []string
	// afterRead, when set (by tests), runs between a take's read and its
	// delete.
	afterRead func()
}

var (
	_ middleware.SessionStore = (*Store)(nil)
	_ middleware.SubjectIndex = (*Store)(nil)
	_ middleware.RevokeQueue  = (*Store)(nil)
)

// defaultIndexFrom is the number of records from which a host session's
// records have an expiry index. Below it, Redis reads the few records
// whole in little time, and the index would cost more memory than it
// saves time: measured, a sorted set of one id adds about 330 bytes to a
// host session that costs about 530 without it.
const defaultIndexFrom = 16

// New returns a Store that keeps its records in Redis through client. The
// Store does not close client.
func New(client redis.UniversalClient, opts ...Option) *Store {
	c := newConfig(opts)
	// The queue's keys carry a hash tag so that Redis Cluster puts them in
	// one slot, as its scripts require.
	q := c.prefix + "{revoke}:"
	return &Store{
		client:    client,
		prefix:    c.prefix,
		maxPerKey: c.MaxPerKey,
		indexFrom: defaultIndexFrom,
		now:       c.Now,
		timeout:   c.timeout,
		queueKeys: []string{q + "due", q + "rec", q + "exp"},
	}
}

// digest returns the name under which s appears in Redis key names: the
// unpadded base64url SHA-256 of s. A host session key names one login and
// belongs in that login's session only, and subjects are personal data,
// so neither is written in clear where a key listing would show it.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// recordsKey is the Redis key of the hash holding a host session's
// records, given the digest of the host session key.
func (s *Store) recordsKey(keyDigest string) string {
	return s.prefix + "k:" + keyDigest
}

// expiryKey is the Redis key of the expiry index of the records hash
// named recordsKey. It starts with the prefix, as every key of the store
// does, and lies in the same Redis Cluster hash slot as the hash, as the
// scripts that use both need. Redis Cluster places a key by its hash tag,
// the text between the first "{" and the first "}" after it when that
// text is not empty, and by the whole name otherwise: a records key with
// a hash tag (from the prefix) is followed by a suffix, one without
// becomes the hash tag.
func (s *Store) expiryKey(recordsKey string) string {
	if _, ok := hashTag(recordsKey); ok {
		return recordsKey + ":exp"
	}
	return s.prefix + "kx:{" + recordsKey + "}"
}

// hashTag returns the hash tag of a Redis key name, if it has one.
func hashTag(key string) (string, bool) {
	_, rest, ok := strings.Cut(key, "{")
	if !ok {
		return "", false
	}
	tag, _, ok := strings.Cut(rest, "}")
	return tag, ok && tag != ""
}

// indexKey is the Redis key of a subject's index.
func (s *Store) indexKey(subject string) string {
	return s.prefix + "u:" + digest(subject)
}

// Add records m under key. A record whose ExpiresAt has passed is not
// kept; Add returns nil for it. A record with the session id of one already
// under key replaces it. When key already holds the maximum number of
// records (WithMaxPerKey), the record that expires first is dropped.
// ExpiresAt is kept to the millisecond. A record without a session id is
// an error.
func (s *Store) Add(ctx context.Context, key string, m middleware.Minted) error {
	return boundedErr(ctx, s.timeout, func(ctx context.Context) error { return s.add(ctx, key, m) })
}

func (s *Store) add(ctx context.Context, key string, m middleware.Minted) error {
	if m.SessionID == "" {
		return errEmptyID
	}
	now := s.now().UnixMilli()
	exp := m.ExpiresAt.UnixMilli()
	if exp <= now {
		return nil
	}
	kd := digest(key)
	rk := s.recordsKey(kd)
	// One round trip for both scripts. The index comes first: an index
	// entry without records is harmless, a record missing from the index
	// would escape TakeSubject.
	calls := []scriptCall{
		{sc: indexScript, keys: []string{s.indexKey(m.Subject)}, args: []any{kd, exp, now}},
		{sc: addScript, keys: []string{rk, s.expiryKey(rk)}, args: []any{m.SessionID, exp, m.Subject, now, s.maxPerKey, s.indexFrom}},
	}
	if err := runScripts(ctx, s.client, calls); err != nil {
		return fmt.Errorf("redisstore: add: %w", err)
	}
	added := calls[1].cmd
	// Records pushed out of a full key go to the revoke queue, so that a
	// session logout can no longer find is revoked, not forgotten.
	pairs, err := added.StringSlice()
	if err != nil {
		return fmt.Errorf("redisstore: add: %w", err)
	}
	if len(pairs) == 0 {
		return nil
	}
	evicted, err := parsePairs(pairs)
	if err != nil {
		return fmt.Errorf("redisstore: add: %w", err)
	}
	ds := make([]middleware.Deferred, len(evicted))
	for i, m := range evicted {
		ds[i] = middleware.Deferred{Minted: m, Due: time.UnixMilli(now)}
	}
	return s.deferRecords(ctx, ds)
}

// scriptCall is one script to run with its keys and arguments, and, once
// run, its command.
type scriptCall struct {
	sc   *redis.Script
	keys []string
	args []any
	cmd  *redis.Cmd
}

// runScripts runs calls in one pipeline, by digest. A server that lost its
// script cache (a restart, SCRIPT FLUSH) answers NOSCRIPT, and the calls
// it refused run again with their source; the others are not run again:
// in Redis Cluster the scripts of one pipeline may run on different nodes,
// and a script that did its work on a node with a warm cache must not do
// it twice (a second Add script would find nothing left to push out of a
// full key, and the record it pushed out the first time would be lost).
// It returns the first error of any call, NOSCRIPT once retried aside.
func runScripts(ctx context.Context, c redis.UniversalClient, calls []scriptCall) error {
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range calls {
			calls[i].cmd = calls[i].sc.EvalSha(ctx, p, calls[i].keys, calls[i].args...)
		}
		return nil
	})
	if err == nil {
		return nil
	}
	for i := range calls {
		if redis.HasErrorPrefix(calls[i].cmd.Err(), "NOSCRIPT") {
			calls[i].cmd = calls[i].sc.Eval(ctx, c, calls[i].keys, calls[i].args...)
		}
	}
	for _, call := range calls {
		if err := call.cmd.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
	}
	return nil
}

// Take removes and returns every record under key whose ExpiresAt has not
// passed. Take of a missing key returns no records and a nil error.
//
// It reads the records, then deletes those it read and returns the ones
// it deleted (in one script, which deletes only the records it names):
// two calls, each under its own bound, so
// that no answer lost to a node that hangs can lose a record. A read
// given up on changed nothing, and a later Take finds every record. A
// delete given up on may still run when the node resumes, so Take then
// returns what it read, with a nil error, for the caller to revoke; if
// the delete never ran, a later Take returns those records again (a
// revoke of a revoked session changes nothing). Two Takes of one key
// each return only the records they deleted, so none is returned twice.
// A value the store did not write is removed with the rest and reported
// as an error, returned with the records taken, which the caller must
// still revoke.
func (s *Store) Take(ctx context.Context, key string) ([]middleware.Minted, error) {
	return s.takeRead(ctx, s.recordsKey(digest(key)), nil, "take")
}

// takeRead takes the records of the host session whose records hash is
// rk: those of every subject, or of subject alone when it is not nil. A
// value the store did not write (errMalformed) is removed too, and
// reported as an error along with the records taken.
func (s *Store) takeRead(ctx context.Context, rk string, subject *string, op string) ([]middleware.Minted, error) {
	all, err := bounded(ctx, s.timeout, func(ctx context.Context) (map[string]string, error) {
		return s.client.HGetAll(ctx, rk).Result()
	})
	if err != nil {
		return nil, fmt.Errorf("redisstore: %s: %w", op, err)
	}
	var malformed error
	read := make(map[string]middleware.Minted, len(all))
	ids := make([]any, 0, len(all))
	for id, v := range all {
		m, err := parseRecord(id, v)
		if err != nil {
			malformed = err
		} else if subject != nil && m.Subject != *subject {
			continue
		} else {
			read[id] = m
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	if s.afterRead != nil {
		s.afterRead()
	}
	pairs, err := bounded(ctx, s.timeout, func(ctx context.Context) ([]string, error) {
		return takeOwnedScript.Run(ctx, s.client, []string{rk, s.expiryKey(rk)}, ids...).StringSlice()
	})
	var taken []middleware.Minted
	if err != nil {
		// The read answered; the delete did not. What was read goes back
		// to the caller, to be revoked: dropping it would lose it if the
		// delete runs when the node resumes.
		for _, m := range read {
			taken = append(taken, m)
		}
	} else {
		for i := 0; i+1 < len(pairs); i += 2 {
			m, err := parseRecord(pairs[i], pairs[i+1])
			if err != nil {
				malformed = err
				continue
			}
			taken = append(taken, m)
		}
	}
	now := s.now().UnixMilli()
	taken = slices.DeleteFunc(taken, func(m middleware.Minted) bool { return m.ExpiresAt.UnixMilli() <= now })
	if malformed != nil {
		return taken, fmt.Errorf("redisstore: %s: %w (removed)", op, malformed)
	}
	return taken, nil
}

// TakeSubject removes and returns every record whose Subject is subject,
// under any host session key, whose ExpiresAt has not passed. Records of
// other subjects stay. Subjects are compared exactly. TakeSubject of a
// subject without records returns no records and a nil error.
//
// Each host session is taken as Take takes one (read, then delete what
// was read), not all of them at once: a record added for subject while
// TakeSubject runs is either returned or left in the store.
func (s *Store) TakeSubject(ctx context.Context, subject string) ([]middleware.Minted, error) {
	now := s.now().UnixMilli()
	keys, err := bounded(ctx, s.timeout, func(ctx context.Context) ([]string, error) {
		return s.client.ZRangeByScore(ctx, s.indexKey(subject), &redis.ZRangeBy{
			Min: "(" + strconv.FormatInt(now, 10),
			Max: "+inf",
		}).Result()
	})
	if err != nil {
		return nil, fmt.Errorf("redisstore: take subject: %w", err)
	}
	var (
		out       []middleware.Minted
		malformed error
	)
	for _, kd := range keys {
		ms, err := s.takeRead(ctx, s.recordsKey(kd), &subject, "take subject")
		out = append(out, ms...)
		switch {
		case errors.Is(err, errMalformed):
			malformed = err // that host session was taken; go on
		case err != nil:
			return out, err
		}
	}
	return out, malformed
}

// Defer queues ds for a later revoke attempt, each due at its Due and
// carrying its attempt count; the schedule is the caller's (the
// middleware's Kit). A record whose ExpiresAt has passed is not queued. A
// session id already queued is replaced rather than queued twice. A
// record without a session id is an error, and then nothing is queued.
// Times are kept in whole milliseconds.
func (s *Store) Defer(ctx context.Context, ds []middleware.Deferred) error {
	return boundedErr(ctx, s.timeout, func(ctx context.Context) error { return s.deferRecords(ctx, ds) })
}

func (s *Store) deferRecords(ctx context.Context, ds []middleware.Deferred) error {
	if len(ds) == 0 {
		return nil
	}
	args := make([]any, 0, 1+5*len(ds))
	args = append(args, s.now().UnixMilli())
	for _, d := range ds {
		if d.SessionID == "" {
			return errEmptyID
		}
		args = append(args, d.SessionID, d.ExpiresAt.UnixMilli(), d.Due.UnixMilli(), d.Attempts, d.Subject)
	}
	if err := deferScript.Run(ctx, s.client, s.queueKeys, args...).Err(); err != nil {
		return fmt.Errorf("redisstore: defer: %w", err)
	}
	return nil
}

// Due removes and returns up to n queued records whose due time has come
// by the store's clock, earliest first, with their attempt counts.
// Records that expired while queued are dropped, not returned. Due on an
// empty queue, or with nothing due yet, returns no records and a nil
// error; so does Due with n below 1.
func (s *Store) Due(ctx context.Context, n int) ([]middleware.Deferred, error) {
	return bounded(ctx, s.timeout, func(ctx context.Context) ([]middleware.Deferred, error) { return s.due(ctx, n) })
}

func (s *Store) due(ctx context.Context, n int) ([]middleware.Deferred, error) {
	if n < 1 {
		return nil, nil
	}
	vals, err := dueScript.Run(ctx, s.client, s.queueKeys, s.now().UnixMilli(), n).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redisstore: due: %w", err)
	}
	out := make([]middleware.Deferred, 0, len(vals)/3)
	for i := 0; i+2 < len(vals); i += 3 {
		d, err := parseQueued(vals[i], vals[i+1], vals[i+2])
		if err != nil {
			return nil, fmt.Errorf("redisstore: due: %w", err)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// Pending reports how many live records are queued.
func (s *Store) Pending(ctx context.Context) (int, error) {
	return bounded(ctx, s.timeout, s.pending)
}

func (s *Store) pending(ctx context.Context) (int, error) {
	n, err := pendingScript.Run(ctx, s.client, s.queueKeys, s.now().UnixMilli()).Int()
	if err != nil {
		return 0, fmt.Errorf("redisstore: pending: %w", err)
	}
	return n, nil
}

// parseRecord decodes a records hash entry: value "<expiry> <subject>".
func parseRecord(id, v string) (middleware.Minted, error) {
	e, subject, ok := strings.Cut(v, " ")
	if !ok {
		return middleware.Minted{}, errMalformed
	}
	exp, err := strconv.ParseInt(e, 10, 64)
	if err != nil {
		return middleware.Minted{}, errMalformed
	}
	return middleware.Minted{SessionID: id, Subject: subject, ExpiresAt: time.UnixMilli(exp)}, nil
}

// parseQueued decodes a queue entry: value "<expiry> <attempts>
// <subject>" and the due time in Unix milliseconds.
func parseQueued(id, v, due string) (middleware.Deferred, error) {
	e, rest, ok := strings.Cut(v, " ")
	if !ok {
		return middleware.Deferred{}, errMalformed
	}
	a, subject, ok := strings.Cut(rest, " ")
	if !ok {
		return middleware.Deferred{}, errMalformed
	}
	attempts, err := strconv.Atoi(a)
	if err != nil {
		return middleware.Deferred{}, errMalformed
	}
	// Redis hands scores back as floats; due times are whole milliseconds.
	dueMs, err := strconv.ParseFloat(due, 64)
	if err != nil {
		return middleware.Deferred{}, errMalformed
	}
	m, err := parseRecord(id, e+" "+subject)
	if err != nil {
		return middleware.Deferred{}, err
	}
	return middleware.Deferred{Minted: m, Attempts: attempts, Due: time.UnixMilli(int64(dueMs))}, nil
}

// parsePairs decodes session id, value pairs of records hash entries.
func parsePairs(pairs []string) ([]middleware.Minted, error) {
	var out []middleware.Minted
	for i := 0; i+1 < len(pairs); i += 2 {
		m, err := parseRecord(pairs[i], pairs[i+1])
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
