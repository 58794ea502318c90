package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/embedkit/embedkit/middleware"
)

// EndedLogins is a middleware.EndedLogins kept in Redis, the list of
// ended host login sessions for a host whose session cookie cannot be
// deleted on the server (a cookie store): once logout records a session's
// key, every instance sharing the Redis refuses a copy of the cookie, and
// so does the same instance after a restart. Its EndLoginsOf and
// EndLoginsOfSID serve back-channel logout. Make one with
// NewEndedLogins; it is safe for concurrent use.
//
// Keys, subjects and provider sids appear in Redis only as SHA-256
// digests. Records carry a Redis expiry, so the list holds no more than
// the logouts within one login lifetime; Redis drops them by its own
// clock.
type EndedLogins struct {
	client   redis.UniversalClient
	prefix   string
	lifetime time.Duration
	now      func() time.Time
	timeout  time.Duration // WithTimeout
}

// NewEndedLogins returns the list kept in Redis through client (which it
// does not close). lifetime is the longest a login lives
// (gorillasession.Identity.MaxLifetime, which is the cookie store's MaxAge
// unless set): an EndLoginsOf or EndLoginsOfSID is kept that long, and a
// second more (securecookie compares whole seconds). Of the options,
// WithPrefix, WithClock and WithTimeout apply; EndedLogins and a Store
// with the same prefix do not meet. Each method call is bounded by the
// timeout (DefaultTimeout): LoginEnded runs on every signed-in request.
func NewEndedLogins(client redis.UniversalClient, lifetime time.Duration, opts ...Option) (*EndedLogins, error) {
	if client == nil {
		return nil, errors.New("redisstore: NewEndedLogins: client is nil")
	}
	if lifetime <= 0 {
		return nil, fmt.Errorf("redisstore: NewEndedLogins: lifetime %s must be positive (the session cookie's MaxAge)", lifetime)
	}
	c := newConfig(opts)
	return &EndedLogins{client: client, prefix: c.prefix + "ended:", lifetime: lifetime, now: c.Now, timeout: c.timeout}, nil
}

func (r *EndedLogins) keyKey(key string) string         { return r.prefix + "k:" + digest(key) }
func (r *EndedLogins) subjectKey(subject string) string { return r.prefix + "s:" + digest(subject) }
func (r *EndedLogins) sidKey(sid string) string         { return r.prefix + "d:" + digest(sid) }

// cookieSlack is how long past its MaxAge securecookie still accepts a
// cookie (it compares whole seconds): records by subject or sid outlive
// the login lifetime by that much.
const cookieSlack = time.Second

// EndLogin records that the login session with key ended, until until
// (the cookie's expiry). A later until extends an earlier record; an
// earlier one never shortens it. An until already past records nothing.
func (r *EndedLogins) EndLogin(ctx context.Context, key string, until time.Time) error {
	return boundedErr(ctx, r.timeout, func(ctx context.Context) error { return r.endLogin(ctx, key, until) })
}

func (r *EndedLogins) endLogin(ctx context.Context, key string, until time.Time) error {
	if key == "" {
		return errors.New("redisstore: EndLogin: empty session key")
	}
	if !until.After(r.now()) {
		return nil
	}
	k := r.keyKey(key)
	// NX then GT: a new record gets until, an existing one keeps the
	// later of the two expiries.
	_, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SetArgs(ctx, k, "1", redis.SetArgs{Mode: "NX", ExpireAt: until})
		p.Do(ctx, "PEXPIREAT", k, until.UnixMilli(), "GT")
		return nil
	})
	// SET NX answers nil when the record exists: that is not a failure.
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("redisstore: recording an ended session: %w", err)
	}
	return nil
}

// EndLoginsOf ends every login session of subject saved until now; a
// session saved later (a new login) is not affected.
func (r *EndedLogins) EndLoginsOf(ctx context.Context, subject string) error {
	return boundedErr(ctx, r.timeout, func(ctx context.Context) error { return r.endLoginsOf(ctx, subject) })
}

func (r *EndedLogins) endLoginsOf(ctx context.Context, subject string) error {
	if subject == "" {
		return errors.New("redisstore: EndLoginsOf: empty subject")
	}
	at := r.now()
	if err := r.client.Set(ctx, r.subjectKey(subject), strconv.FormatInt(at.UnixMilli(), 10), r.lifetime+cookieSlack).Err(); err != nil {
		return fmt.Errorf("redisstore: recording a subject's logout: %w", err)
	}
	return nil
}

// EndLoginsOfSID ends every login session made in the provider session
// sid saved until now; a session saved later (a new login in the same
// provider session) is not affected.
func (r *EndedLogins) EndLoginsOfSID(ctx context.Context, sid string) error {
	return boundedErr(ctx, r.timeout, func(ctx context.Context) error { return r.endLoginsOfSID(ctx, sid) })
}

func (r *EndedLogins) endLoginsOfSID(ctx context.Context, sid string) error {
	if sid == "" {
		return errors.New("redisstore: EndLoginsOfSID: empty sid")
	}
	at := r.now()
	if err := r.client.Set(ctx, r.sidKey(sid), strconv.FormatInt(at.UnixMilli(), 10), r.lifetime+cookieSlack).Err(); err != nil {
		return fmt.Errorf("redisstore: recording a provider session's logout: %w", err)
	}
	return nil
}

// LoginEnded reports whether the login l ended: by its key, or by an
// EndLoginsOf of its subject or an EndLoginsOfSID of its provider session
// at or after l.Issued. An error (Redis unreachable) is returned as such:
// the caller decides; gorillasession.Identity fails the request rather
// than let a possibly ended session in.
func (r *EndedLogins) LoginEnded(ctx context.Context, l middleware.Login) (bool, error) {
	return bounded(ctx, r.timeout, func(ctx context.Context) (bool, error) { return r.loginEnded(ctx, l) })
}

func (r *EndedLogins) loginEnded(ctx context.Context, l middleware.Login) (bool, error) {
	// Up to three GETs in one pipeline, not one MGET: the records lie in
	// different Redis Cluster hash slots, where an MGET of them fails with
	// CROSSSLOT. A single server answers them in one round trip; a
	// ClusterClient sends each to the node that holds it.
	var bySubject, byKey, bySID *redis.StringCmd
	_, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		bySubject = p.Get(ctx, r.subjectKey(l.Subject))
		if l.Key != "" {
			byKey = p.Get(ctx, r.keyKey(l.Key))
		}
		if l.ProviderSID != "" {
			bySID = p.Get(ctx, r.sidKey(l.ProviderSID))
		}
		return nil
	})
	// A missing record answers redis.Nil, which is not a failure. The
	// pipeline reports the first command's error only, so each command's
	// own is read too.
	if err != nil && !errors.Is(err, redis.Nil) {
		return false, fmt.Errorf("redisstore: reading ended sessions: %w", err)
	}
	if byKey != nil {
		switch err := byKey.Err(); {
		case err == nil:
			return true, nil
		case !errors.Is(err, redis.Nil):
			return false, fmt.Errorf("redisstore: reading ended sessions: %w", err)
		}
	}
	for _, since := range []*redis.StringCmd{bySubject, bySID} {
		if since == nil {
			continue
		}
		if ended, err := endedSince(since, l.Issued); ended || err != nil {
			return ended, err
		}
	}
	return false, nil
}

// endedSince reads the answer of a GET of a subject's or provider
// session's record: whether it ends a login saved at issued.
func endedSince(cmd *redis.StringCmd, issued time.Time) (bool, error) {
	s, err := cmd.Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("redisstore: reading ended sessions: %w", err)
	}
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return false, errMalformed
	}
	return !issued.After(time.UnixMilli(ms)), nil
}
