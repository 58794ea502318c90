package embedkittest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkittest"
)

func TestAssertRevokedAndLive(t *testing.T) {
	type step struct {
		user string
		// exchange and revoke say what happens to the minted session.
		exchange, revoke bool
	}
	cases := []struct {
		name  string
		steps []step
		user  string
		// wantRevokedReport and wantLiveReport say the assertion fails,
		// with a message holding the fragments of wantRevoked, wantLive.
		wantRevokedReport bool
		wantRevoked       []string
		wantLiveReport    bool
		wantLive          []string
	}{
		{name: "nothing minted", user: "ana",
			wantRevokedReport: true, wantRevoked: []string{`no session of "ana"`},
			wantLiveReport: true, wantLive: []string{`no session of "ana"`}},
		{name: "only another viewer's sessions", steps: []step{{user: "bob"}}, user: "ana",
			wantRevokedReport: true, wantRevoked: []string{`no session of "ana" (1 of other viewers)`},
			wantLiveReport: true},
		{name: "one exchanged", steps: []step{{user: "ana", exchange: true}}, user: "ana",
			wantRevokedReport: true, wantRevoked: []string{`1 session of "ana": 1 exchanged (sha256:`, "want every one revoked"}},
		{name: "all revoked", steps: []step{{user: "ana", revoke: true}, {user: "ana", exchange: true, revoke: true}}, user: "ana",
			wantLiveReport: true, wantLive: []string{`2 sessions of "ana": 2 revoked (sha256:`}},
		{name: "one of three left", steps: []step{{user: "ana", revoke: true}, {user: "ana", exchange: true, revoke: true}, {user: "ana"}}, user: "ana",
			wantRevokedReport: true, wantRevoked: []string{`3 sessions of "ana": 2 revoked, 1 unexchanged (sha256:`},
			wantLiveReport: true, wantLive: []string{"2 revoked (sha256:", "), 1 unexchanged; want every one unexchanged or exchanged"}},
		{name: "another viewer's live sessions do not count", steps: []step{{user: "ana", revoke: true}, {user: "bob", exchange: true}}, user: "ana",
			wantLiveReport: true},
		{name: "external id matched as the platform does", steps: []step{{user: "ana", revoke: true}}, user: "  ANA ",
			wantLiveReport: true},
		{name: "live viewer", steps: []step{{user: "ana"}, {user: "ana", exchange: true}}, user: "ana",
			wantRevokedReport: true, wantRevoked: []string{"1 exchanged (sha256:", "1 unexchanged (sha256:"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := embedkittest.NewPlatform(t)
			ctx := context.Background()
			var ids []string
			for _, s := range tc.steps {
				sess, err := p.Client().GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: s.user})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, sess.SessionID)
				if s.exchange {
					if _, err := p.Client().ExchangeSession(ctx, sess.SessionID); err != nil {
						t.Fatal(err)
					}
				}
				if s.revoke {
					if err := p.Client().RevokeSession(ctx, sess.SessionID); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, check := range []struct {
				name   string
				assert func(testing.TB, *embedkittest.Platform, string)
				report bool
				want   []string
			}{
				{"AssertRevoked", embedkittest.AssertRevoked, tc.wantRevokedReport, tc.wantRevoked},
				{"AssertLive", embedkittest.AssertLive, tc.wantLiveReport, tc.wantLive},
			} {
				f := runFake(t, func(tb *fakeTB) { check.assert(tb, p, tc.user) })
				got := f.errors()
				if !check.report {
					if len(got) != 0 {
						t.Errorf("%s failed: %q", check.name, got)
					}
					continue
				}
				if len(got) != 1 {
					t.Fatalf("%s reported %q, want one failure", check.name, got)
				}
				wantFragments(t, check.name, got[0], check.want, ids)
			}
		})
	}
}

// wantFragments checks that msg holds every fragment and none of the ids.
func wantFragments(t *testing.T, name, msg string, fragments, ids []string) {
	t.Helper()
	for _, w := range fragments {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: %q does not say %q", name, msg, w)
		}
	}
	for _, id := range ids {
		if strings.Contains(msg, id) {
			t.Errorf("%s prints a session id: %q", name, msg)
		}
	}
}
