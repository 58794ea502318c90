package embedkittest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkittest"
)

// minted is a Platform with one exchanged session and one session minted
// past the Platform's capture (through the emulator's handler directly).
type minted struct {
	p                  *embedkittest.Platform
	session            *embedkit.Session
	token              string
	uncapturedSession  string
	fixtureKey, apiKey string
}

func newMinted(t *testing.T) *minted {
	t.Helper()
	p := embedkittest.NewPlatform(t)
	ctx := context.Background()
	s, err := p.Client().GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := p.Client().ExchangeSession(ctx, s.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/api/v1/embed/generate-session", strings.NewReader(`{"deploymentId":1,"externalId":"bob"}`))
	r.Header.Set("Authorization", "Bearer "+p.APIKey())
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	p.Emulator().ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("direct mint: %d %s", w.Code, w.Body)
	}
	var bob string
	for _, si := range p.Emulator().Sessions() {
		if si.ExternalID == "bob" {
			bob = si.SessionID
		}
	}
	return &minted{p: p, session: s, token: tok.Token, uncapturedSession: bob, fixtureKey: "ek_dev_only_admin_all", apiKey: p.APIKey()}
}

// secretValuer logs as its secret.
type secretValuer struct{ v string }

func (s secretValuer) LogValue() slog.Value { return slog.StringValue(s.v) }

func TestLogChecker(t *testing.T) {
	m := newMinted(t)
	cases := []struct {
		name string
		log  func(l *slog.Logger, c *embedkittest.LogChecker)
		// want are the labels of the leaks reported, in order.
		want []string
	}{
		{name: "clean record with fingerprints", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Info("session minted", "session", embedkit.Redact(m.session.SessionID), "key", embedkit.Redact(m.apiKey))
		}},
		{name: "session value logs redacted", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Info("minted", "session", m.session, "token", embedkit.EmbedToken{Token: m.token})
		}},
		{name: "API key in the message", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Error("calling with key " + m.apiKey)
		}, want: []string{`log record "calling with key sha256:`}},
		{name: "API key in an attribute", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Info("request", "authorization", "Bearer "+m.apiKey)
		}, want: []string{`attribute "authorization" leaks the API key`}},
		{name: "API key as an attribute key", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Info("keys", m.apiKey, 1)
		}, want: []string{`attribute key "sha256:`}},
		{name: "fixture key", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Info("request", "key", m.fixtureKey)
		}, want: []string{`leaks the fixture API key of user "admin"`}},
		{name: "session id in nested groups", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Info("minted", slog.Group("outer", slog.Group("inner", slog.String("id", m.session.SessionID))))
		}, want: []string{`attribute "outer.inner.id" leaks the embed session id`}},
		{name: "session id minted past the capture", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Info("minted", "id", m.uncapturedSession)
		}, want: []string{`attribute "id" leaks the embed session id`}},
		{name: "embed token in a struct", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Info("exchanged", "answer", struct{ Token string }{m.token})
		}, want: []string{`attribute "answer" leaks the embed token`}},
		{name: "embed token in a JSON-only field", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Info("exchanged", "answer", jsonOnly{m.token})
		}, want: []string{`attribute "answer" leaks the embed token`}},
		{name: "session id in an error", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Error("revoke failed", "error", fmt.Errorf("revoking %s: %w", m.session.SessionID, errors.New("503")))
		}, want: []string{`attribute "error" leaks the embed session id`}},
		{name: "session id in bytes", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Info("body", "raw", []byte(`{"sessionId":"`+m.session.SessionID+`"}`))
		}, want: []string{`attribute "raw" leaks the embed session id`}},
		{name: "LogValuer that resolves to the key", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Info("config", "key", secretValuer{m.apiKey})
		}, want: []string{`attribute "key" leaks the API key`}},
		{name: "logger With attributes", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.With("key", m.apiKey).Info("first")
		}, want: []string{`log record "first" (INFO), attribute "key" leaks the API key`}},
		{name: "logger WithGroup", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.WithGroup("platform").With("token", m.token).WithGroup("call").Info("done", "session", m.session.SessionID)
		}, want: []string{`attribute "platform.token" leaks the embed token`, `attribute "platform.call.session" leaks the embed session id`}},
		{name: "debug record", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Debug("request", "key", m.apiKey)
		}, want: []string{`(DEBUG), attribute "key" leaks the API key`}},
		{name: "added secret", log: func(l *slog.Logger, c *embedkittest.LogChecker) {
			c.Add("host session key", "login-1")
			l.Info("logout", "session", "login-1")
		}, want: []string{`attribute "session" leaks the host session key`}},
		{name: "one leak twice", log: func(l *slog.Logger, _ *embedkittest.LogChecker) {
			l.Info("retry", "key", m.apiKey)
			l.Info("retry", "key", m.apiKey)
		}, want: []string{`attribute "key" leaks the API key`}},
	}
	secrets := []string{m.apiKey, m.fixtureKey, m.session.SessionID, m.token, m.uncapturedSession, "login-1"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			f := newFake(t)
			c := embedkittest.NewLogChecker(f, m.p, slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
			tc.log(slog.New(c), c)
			wantReports(t, f, tc.want, secrets...)
			if out.Len() == 0 {
				t.Error("the record did not reach the next handler")
			}
		})
	}
}

// jsonOnly prints its token in JSON only.
type jsonOnly struct{ token string }

func (j jsonOnly) String() string { return "jsonOnly{...}" }

func (j jsonOnly) MarshalJSON() ([]byte, error) { return []byte(`{"token":"` + j.token + `"}`), nil }

func TestLogCheckerPassesRecordsOn(t *testing.T) {
	var out bytes.Buffer
	c := embedkittest.NewLogChecker(t, nil, slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	l := slog.New(c).With("app", "host").WithGroup("req")
	l.Debug("dropped by the next handler")
	l.Info("kept", "path", "/embed/frame/sales")
	if got := out.String(); strings.Contains(got, "dropped") || !strings.Contains(got, `"app":"host","req":{"path":"/embed/frame/sales"}`) {
		t.Errorf("the next handler got %q", got)
	}
	if !c.Enabled(context.Background(), slog.LevelDebug) {
		t.Error("the checker is not enabled for debug records, which then go unchecked")
	}
}

func TestLogCheckerNilPlatform(t *testing.T) {
	f := newFake(t)
	c := embedkittest.NewLogChecker(f, nil, nil)
	l := slog.New(c)
	l.Info("clean")
	c.Add("", "")
	c.Add("cookie key", "ck-4242")
	l.Info("signing", "key", "ck-4242")
	wantReports(t, f, []string{`attribute "key" leaks the cookie key`}, "ck-4242")
}

func TestLogCheckerStopsWhenTheTestEnds(t *testing.T) {
	var c *embedkittest.LogChecker
	t.Run("inner", func(t *testing.T) {
		c = embedkittest.NewLogChecker(t, nil, nil)
		c.Add("late secret", "s3cr3t-late")
	})
	// A goroutine of the finished test logs: t.Errorf would panic now.
	slog.New(c).Info("s3cr3t-late")
}

func TestPlatformLogsAreChecked(t *testing.T) {
	var out bytes.Buffer
	var p *embedkittest.Platform
	f := runFake(t, func(tb *fakeTB) {
		p = embedkittest.NewPlatform(tb, embedkittest.WithLogHandler(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
		p.KitConfig().Logger.Info("kit record", "key", p.APIKey())
		if _, err := p.Client().GenerateSession(context.Background(), &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "ana"}); err != nil {
			tb.Errorf("GenerateSession: %v", err)
		}
	})
	wantReports(t, f, []string{`log record "kit record" (INFO), attribute "key" leaks the API key`}, p.APIKey())
	if !strings.Contains(out.String(), "kit record") || !strings.Contains(out.String(), "embedkit") {
		t.Errorf("the kit's and the client's records did not reach WithLogHandler's handler: %q", out.String())
	}
}
