package scssession_test

import (
	"net/http"
	"testing"

	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/internal/raceplatform"
)

// TestLogoutRacesAMint: a page load whose mint is at the platform for the
// whole logout (the Kit's takes and Clear's revoke all run before its id
// is recorded) does not leave a live session: the Kit asks the Identity
// again after recording the id, and LoginEnded reads the store, where
// the logout deleted the session, not the copy scs loaded when the load
// began.
func TestLogoutRacesAMint(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		var p *raceplatform.Platform
		a := newApp(t, b.store(t), inside, raceplatform.Wrap(t, &p))
		ana := a.browser()
		a.signIn(ana, "ana", "")
		if code := a.load(ana); code != http.StatusOK {
			t.Fatalf("page load: %d", code)
		}

		minted, release := p.HoldNextMint()
		racing := make(chan int, 1)
		go func() { racing <- a.load(ana) }()
		<-minted
		if code, body := a.send(ana, http.MethodPost, "/logout", nil); code != http.StatusSeeOther {
			t.Fatalf("logout: %d %s", code, body)
		}
		release()
		if code := <-racing; code == http.StatusOK {
			t.Errorf("the page load that raced the logout answered 200 (a frame with a session)")
		}
		embedkittest.AssertRevoked(t, a.p, "ana")
	})
}
