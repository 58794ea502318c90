package webapp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/patrickmn/go-cache"
	"github.com/redis/go-redis/v9"
)

// logoutHints keeps each login's ID token on the server, under the login's
// session key, so that sign-out can send it to the provider as
// id_token_hint (OpenID Connect RP-Initiated Logout 1.0) without putting a
// bearer token of a kilobyte or more into the session cookie. A hint lost
// (a restart with the memory list) only means the provider is not told
// whose session ended: sign-out still works.
type logoutHints interface {
	// keep stores token for the login with key until ttl passes.
	keep(ctx context.Context, key, token string, ttl time.Duration) error
	// take returns and forgets the hint of key; "" when there is none.
	take(ctx context.Context, key string) (string, error)
}

// memoryHints keeps hints in process memory.
type memoryHints struct{ c *cache.Cache }

func newMemoryHints() *memoryHints {
	return &memoryHints{c: cache.New(sessionLifetime, 10*time.Minute)}
}

func (m *memoryHints) keep(_ context.Context, key, token string, ttl time.Duration) error {
	m.c.Set(hintName(key), token, ttl)
	return nil
}

func (m *memoryHints) take(_ context.Context, key string) (string, error) {
	name := hintName(key)
	v, ok := m.c.Get(name)
	if !ok {
		return "", nil
	}
	m.c.Delete(name)
	s, _ := v.(string)
	return s, nil
}

// redisHints keeps hints in Redis, next to the minted ids, so that any
// instance can sign out a login begun on another.
type redisHints struct {
	c      redis.UniversalClient
	prefix string
}

func (h *redisHints) keep(ctx context.Context, key, token string, ttl time.Duration) error {
	if err := h.c.Set(ctx, h.prefix+hintName(key), token, ttl).Err(); err != nil {
		return fmt.Errorf("webapp: keeping the logout hint: %w", err)
	}
	return nil
}

func (h *redisHints) take(ctx context.Context, key string) (string, error) {
	s, err := h.c.GetDel(ctx, h.prefix+hintName(key)).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("webapp: reading the logout hint: %w", err)
	}
	return s, nil
}

// hintName is the name a login's hint is kept under: the session key is a
// secret of the host session, so only its digest is written.
func hintName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "hint:" + base64.RawURLEncoding.EncodeToString(sum[:])
}
