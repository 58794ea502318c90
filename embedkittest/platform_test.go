package embedkittest_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

func TestNewPlatformDefaults(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	other := embedkittest.NewPlatform(t)
	if !strings.HasPrefix(p.APIKey(), "ek_test_") || len(p.APIKey()) < 32 || p.APIKey() == other.APIKey() {
		t.Errorf("API keys %s and %s: want a fresh random ek_test_ key per Platform", embedkit.Redact(p.APIKey()), embedkit.Redact(other.APIKey()))
	}
	u, err := url.Parse(p.URL())
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
		t.Errorf("URL %q, want http on a loopback address", p.URL())
	}
	if p.DeploymentID() != 1 {
		t.Errorf("DeploymentID %d, want the demo fixture's 1", p.DeploymentID())
	}

	ctx := context.Background()
	s, err := p.Client().GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "ana"})
	if err != nil {
		t.Fatalf("the client does not mint with the Platform's key: %v", err)
	}
	if got := p.Emulator().Sessions(); len(got) != 1 || got[0].SessionID != s.SessionID {
		t.Errorf("the emulator holds %d sessions, want the one minted", len(got))
	}

	cfg := p.KitConfig()
	if cfg.Platform != p.Client() || cfg.PlatformURL != p.URL() || cfg.Policy.DeploymentID != 1 || cfg.Logger == nil {
		t.Errorf("KitConfig: Platform %v, PlatformURL %q, DeploymentID %d, Logger %v", cfg.Platform == p.Client(), cfg.PlatformURL, cfg.Policy.DeploymentID, cfg.Logger)
	}
	cfg.Identity = middleware.IdentityFunc(func(*http.Request) (*middleware.Viewer, error) { return nil, middleware.ErrNoViewer })
	cfg.Store = memstore.New()
	if _, err := middleware.New(cfg); err != nil {
		t.Errorf("KitConfig plus Identity and Store does not make a Kit: %v", err)
	}
}

func TestNewPlatformFixtures(t *testing.T) {
	twoDeployments := emulator.DemoFixture()
	twoDeployments.Deployments = append(twoDeployments.Deployments, emulator.Deployment{ID: 2, Name: "Finance", CreatedAt: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)})
	cases := []struct {
		name           string
		opts           []embedkittest.Option
		wantDeployment int64
		wantKeyOf      string // a fixture key that must authenticate too
	}{
		{name: "demo fixture", wantDeployment: 1, wantKeyOf: "ek_dev_only_admin_all"},
		{name: "fixture value", opts: []embedkittest.Option{embedkittest.WithFixture(twoDeployments)}, wantDeployment: 1},
		{name: "fixture value, second deployment", opts: []embedkittest.Option{embedkittest.WithFixture(twoDeployments), embedkittest.WithDeployment(2)}, wantDeployment: 2},
		{name: "fixture file", opts: []embedkittest.Option{embedkittest.WithFixtureFile("testdata/platform.json")}, wantDeployment: 7, wantKeyOf: "ek_globex_fixture_key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := embedkittest.NewPlatform(t, tc.opts...)
			if p.DeploymentID() != tc.wantDeployment || p.KitConfig().Policy.DeploymentID != tc.wantDeployment {
				t.Errorf("deployment %d, want %d", p.DeploymentID(), tc.wantDeployment)
			}
			req := &embedkit.GenerateSessionRequest{DeploymentID: tc.wantDeployment, ExternalID: "ana"}
			if _, err := p.Client().GenerateSession(context.Background(), req); err != nil {
				t.Errorf("minting on deployment %d: %v", tc.wantDeployment, err)
			}
			if tc.wantKeyOf != "" {
				c, err := embedkit.New(p.URL(), tc.wantKeyOf)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.GenerateSession(context.Background(), req); err != nil {
					t.Errorf("the fixture's key does not authenticate: %v", err)
				}
			}
		})
	}
}

func TestNewPlatformFailsFatally(t *testing.T) {
	noAdmin := emulator.DemoFixture()
	for i := range noAdmin.Users {
		noAdmin.Users[i].Admin = false
	}
	noAdmin.APIKeys = nil
	noDeployment := emulator.DemoFixture()
	noDeployment.Deployments = nil
	invalid := emulator.DemoFixture()
	invalid.Tenant = "Not A Tenant"
	cases := []struct {
		name string
		opts []embedkittest.Option
		want string
	}{
		{name: "missing fixture file", opts: []embedkittest.Option{embedkittest.WithFixtureFile("testdata/missing.json")}, want: "missing.json"},
		{name: "fixture file of another format", opts: []embedkittest.Option{embedkittest.WithFixtureFile("doc.go")}, want: "invalid fixture"},
		{name: "invalid fixture value", opts: []embedkittest.Option{embedkittest.WithFixture(invalid)}, want: "tenant"},
		{name: "no admin to own the key", opts: []embedkittest.Option{embedkittest.WithFixture(noAdmin)}, want: "no active admin"},
		{name: "no deployment", opts: []embedkittest.Option{embedkittest.WithFixture(noDeployment)}, want: "no deployment"},
		{name: "unknown deployment", opts: []embedkittest.Option{embedkittest.WithDeployment(99)}, want: "WithDeployment(99)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var p *embedkittest.Platform
			f := runFake(t, func(tb *fakeTB) { p = embedkittest.NewPlatform(tb, tc.opts...) })
			fatal := f.fatal()
			if p != nil || len(fatal) != 1 {
				t.Fatalf("NewPlatform returned %v with fatal failures %q, want one fatal failure", p != nil, fatal)
			}
			if !strings.HasPrefix(fatal[0], "embedkittest: ") || !strings.Contains(fatal[0], tc.want) {
				t.Errorf("failure %q, want it to start with embedkittest: and name %q", fatal[0], tc.want)
			}
		})
	}
}

func TestPlatformLearnsTokens(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	ctx := context.Background()
	s, err := p.Client().GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	embed, err := p.Client().ExchangeSession(ctx, s.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := p.Client().CreateMetaToken(ctx, 1, "env-prod", &embedkit.MetaTokenRequest{SecurityContext: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.Client().CreateDataAPIToken(ctx, 1, &embedkit.DataAPITokenRequest{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ label, value string }{
		{"API key", p.APIKey()},
		{`fixture API key of user "admin"`, "ek_dev_only_admin_all"},
		{"embed session id", s.SessionID},
		{"embed token", embed.Token},
		{"metadata token", meta.Token},
		{"data-API token", data.Token},
	}
	for _, tc := range cases {
		t.Run(tc.label, func(t *testing.T) {
			f := runFake(t, func(tb *fakeTB) {
				embedkittest.CheckText(tb, p, "the error", "failed with "+tc.value+" in it")
			})
			wantReports(t, f, []string{"the error leaks the " + tc.label + " (" + embedkit.Redact(tc.value) + ")"}, tc.value)
		})
	}
	t.Run("clean text", func(t *testing.T) {
		f := runFake(t, func(tb *fakeTB) {
			embedkittest.CheckText(tb, p, "the error", "session "+embedkit.Redact(s.SessionID)+" failed")
		})
		wantReports(t, f, nil)
	})
	t.Run("added secret", func(t *testing.T) {
		p.AddSecret("host cookie key", "hk-0123")
		f := runFake(t, func(tb *fakeTB) { embedkittest.CheckText(tb, p, "the page", "<p>hk-0123</p>") })
		wantReports(t, f, []string{"the page leaks the host cookie key"}, "hk-0123")
	})
}
