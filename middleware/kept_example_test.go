package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/middleware"
)

// flakyList is a list of ended logins whose EndLogin fails while down,
// standing in for Redis during an outage.
type flakyList struct {
	middleware.EndedLogins
	down bool
}

func (l *flakyList) EndLogin(ctx context.Context, key string, until time.Time) error {
	if l.down {
		return errors.New("redis: connection refused")
	}
	return l.EndedLogins.EndLogin(ctx, key, until)
}

// A logout the list of ended logins could not record is kept by the Kit,
// and Run (here FlushRevokes, one pass of it) writes it once the list
// answers. gorillasession.Identity does this by itself: New makes the Kit
// its Keeper (KitUser).
func ExampleKit_KeepEndedLogin() {
	platformURL, client, stop := startPlatform()
	defer stop()
	kit := exampleKit(platformURL, client)
	ctx := context.Background()
	list := &flakyList{EndedLogins: gorillasession.NewMemoryEndedLogins(time.Hour), down: true}

	until := time.Now().Add(time.Hour)
	if err := list.EndLogin(ctx, "login-1", until); err != nil {
		fmt.Println("kept:", kit.KeepEndedLogin(list, "login-1", until))
	}
	fmt.Println("refused on this instance:", kit.EndedLoginKept("login-1"))

	list.down = false
	pending, err := kit.FlushRevokes(ctx)
	ended, _ := list.LoginEnded(ctx, middleware.Login{Subject: "ana", Key: "login-1", Issued: time.Now().Add(-time.Minute)})
	fmt.Println("after the outage:", pending, err, ended, kit.EndedLoginKept("login-1"))
	// Output:
	// kept: true
	// refused on this instance: true
	// after the outage: 0 <nil> true false
}
