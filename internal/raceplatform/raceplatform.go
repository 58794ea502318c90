// Package raceplatform is the kit's Platform for tests of logout racing
// a mint: the real client with hooks that hold a mint at the platform, or
// slow the revokes, while the test does something else. It is for tests
// only (a package of its own: the client's own tests use testkit).
package raceplatform

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// Platform is the real client (against the emulator, in tests) with
// hooks that put a mint or a revoke in flight while a test does something
// else. It implements middleware.Platform.
type Platform struct {
	*embedkit.Client

	mu      sync.Mutex
	minted  chan struct{}
	release chan struct{}

	revoking    chan struct{}
	revokeOnce  sync.Once
	revokeDelay time.Duration
}

// HoldNextMint makes the next mint wait, once the platform has made its
// session, until the returned release is called; minted is closed when
// it starts waiting. Later mints are not held.
func (p *Platform) HoldNextMint() (minted <-chan struct{}, release func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.minted, p.release = make(chan struct{}), make(chan struct{})
	rel := p.release
	var once sync.Once
	return p.minted, func() { once.Do(func() { close(rel) }) }
}

// SlowRevokes makes every revoke take d; revoking is closed at the first.
func (p *Platform) SlowRevokes(d time.Duration) (revoking <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.revoking, p.revokeDelay = make(chan struct{}), d
	return p.revoking
}

// GenerateSession mints with the client, then waits when HoldNextMint
// asked it to.
func (p *Platform) GenerateSession(ctx context.Context, req *embedkit.GenerateSessionRequest) (*embedkit.Session, error) {
	s, err := p.Client.GenerateSession(ctx, req)
	p.mu.Lock()
	minted, release := p.minted, p.release
	p.minted, p.release = nil, nil
	p.mu.Unlock()
	if minted != nil {
		close(minted)
		<-release
	}
	return s, err
}

// RevokeSession revokes with the client, after SlowRevokes's delay.
func (p *Platform) RevokeSession(ctx context.Context, id string) error {
	p.mu.Lock()
	revoking, d := p.revoking, p.revokeDelay
	p.mu.Unlock()
	if revoking != nil {
		p.revokeOnce.Do(func() { close(revoking) })
		time.Sleep(d)
	}
	return p.Client.RevokeSession(ctx, id)
}

// Wrap returns an option for a test's middleware.Config that puts a
// Platform around its client (Config.Platform, which must be an
// *embedkit.Client, as embedkittest's KitConfig gives) and stores it in
// *p, for the test to hold mints or slow revokes with.
func Wrap(tb testing.TB, p **Platform) func(*middleware.Config) {
	return func(c *middleware.Config) {
		client, ok := c.Platform.(*embedkit.Client)
		if !ok {
			tb.Fatalf("raceplatform: the Kit's Platform is a %T, want an *embedkit.Client", c.Platform)
		}
		*p = &Platform{Client: client}
		c.Platform = *p
	}
}
