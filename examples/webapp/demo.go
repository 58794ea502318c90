package webapp

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/embedkit/embedkit/adapters/ekprom"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/internal/devidp"
	"github.com/embedkit/embedkit/internal/loopbackhost"
)

// Defaults of DemoOptions.
const (
	DefaultListen         = "127.0.0.1:8080"
	DefaultIdPListen      = "127.0.0.1:0"
	DefaultEmulatorListen = "127.0.0.1:0"
	DefaultMetricsListen  = "127.0.0.1:0"
	// DemoClientID is the app's client id at the development provider.
	DemoClientID = "ledgerly"
	// DemoDeploymentID is the emulator's demo deployment.
	DemoDeploymentID = 1
	// defaultShutdown bounds Close when its context has no deadline.
	defaultShutdown = 10 * time.Second
)

// DemoOptions configure RunDemo. The zero value runs everything embedded
// on loopback with the app at DefaultListen.
type DemoOptions struct {
	// Listen is the app's address. Empty means DefaultListen; port 0
	// picks a free port.
	Listen string
	// PublicURL is the app's URL as browsers reach it, for an app behind
	// a proxy. Empty means http:// and the bound address.
	PublicURL string
	// IdPListen and EmulatorListen are the addresses of the development
	// identity provider and the platform emulator, loopback only. Empty
	// means a free port on 127.0.0.1.
	IdPListen      string
	EmulatorListen string
	// MetricsListen is the address of the Prometheus /metrics endpoint,
	// loopback only: metrics are for the operator's scraper, never for
	// the app's visitors. Empty means a free port on 127.0.0.1.
	MetricsListen string
	// Getenv reads the environment (ConfigFromEnv). Nil reads nothing:
	// every part is embedded.
	Getenv func(string) string
	// Logger receives the records of the app, the kit, the provider and
	// the emulator. Nil means slog.Default().
	Logger *slog.Logger
	// HTTPClient, when set, makes the app's calls to the provider and the
	// platform.
	HTTPClient *http.Client
	// StandardProvider configures the development provider the way many
	// certified providers are by default: the profile claims come from
	// the userinfo endpoint only (not in the ID token), and there is no
	// back-channel logout. The signed-in experience must not change.
	StandardProvider bool
	// IdPSingleSignOn makes the development provider answer a browser that
	// still holds a live sign-in there without asking again, keeping its
	// sid (devidp.Config.SingleSignOn), as most providers do: a user who
	// signs out of the app alone and signs in again carries the same sid.
	IdPSingleSignOn bool
	// IdPSIDOnlyLogout makes the development provider's back-channel
	// logout tokens name the sid and no sub (devidp.Client.BackChannelSIDOnly),
	// which Back-Channel Logout 1.0 allows.
	IdPSIDOnlyLogout bool
}

// Demo is a running demo: the app, and the embedded provider and emulator
// when the environment names no real ones.
type Demo struct {
	// AppURL is the app's public URL, such as "http://127.0.0.1:8080".
	AppURL string
	// ListenAddr is the app's bound address; it differs from AppURL's
	// host when a PublicURL was given.
	ListenAddr string
	// PlatformURL is the platform's base URL: the emulator's, or the
	// real platform's.
	PlatformURL string
	// IssuerURL is the OpenID provider's issuer URL.
	IssuerURL string
	// Emulator is the embedded platform emulator; nil with a real
	// platform.
	Emulator *emulator.Server
	// IdP is the embedded development provider; nil with a real one.
	IdP *devidp.Provider
	// Users are the development provider's accounts (passwords are
	// development-only); nil with a real provider.
	Users []devidp.User
	// App is the host app.
	App *App
	// MetricsURL is the Prometheus endpoint of the kit's metrics
	// (adapters/ekprom), on loopback.
	MetricsURL string
	// DoctorURL is the app's doctor (App.DoctorHandler) on the same
	// loopback listener: "embedkit doctor -app DoctorURL" checks the
	// Config the app serves with.
	DoctorURL string

	servers []*http.Server
	errc    chan error
	closeMu sync.Mutex
	closed  bool
}

// RunDemo starts the demo in this process and returns once every part
// answers: the platform emulator (built-in demo fixture, with an API key
// generated now) unless EMBEDKIT_BASE_URL is set, the development OpenID
// provider (with a client whose secret is generated now) unless
// OIDC_ISSUER is set, and the app. Session keys are generated unless
// SESSION_KEYS is set. Nothing generated is ever printed or logged.
//
// ctx bounds start-up only; stop the demo with Close. Errors name the
// environment variable or address at fault.
func RunDemo(ctx context.Context, opts DemoOptions) (*Demo, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	cfg.Logger = log
	cfg.HTTPClient = opts.HTTPClient

	d := &Demo{errc: make(chan error, 4)}
	ok := false
	defer func() {
		if !ok {
			d.closeServers(context.Background())
		}
	}()

	listen := opts.Listen
	if listen == "" {
		listen = DefaultListen
	}
	appLn, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("webapp: app listen address %q: %w", listen, err)
	}
	appSrv := d.server(nil, log)
	d.ListenAddr = appLn.Addr().String()
	d.AppURL = opts.PublicURL
	if d.AppURL == "" {
		d.AppURL = "http://" + appLn.Addr().String()
	}
	cfg.PublicURL = d.AppURL

	if !cfg.PlatformConfigured() {
		if err := d.startEmulator(opts.EmulatorListen, log, &cfg); err != nil {
			appLn.Close()
			return nil, err
		}
	}
	d.PlatformURL = cfg.PlatformURL

	if !cfg.OIDCConfigured() {
		if err := d.startIdP(opts, log, &cfg); err != nil {
			appLn.Close()
			return nil, err
		}
	}
	d.IssuerURL = cfg.OIDCIssuer

	if len(cfg.SessionKeys) == 0 {
		cfg.SessionKeys = [][]byte{randomBytes(32), randomBytes(32)}
	}

	metricsAddr := opts.MetricsListen
	if metricsAddr == "" {
		metricsAddr = DefaultMetricsListen
	}
	metricsLn, err := listenLoopback("metrics", metricsAddr)
	if err != nil {
		appLn.Close()
		return nil, err
	}
	reg := prom.NewRegistry()
	metrics := ekprom.New()
	reg.MustRegister(metrics)
	cfg.Metrics = metrics
	d.MetricsURL = "http://" + metricsLn.Addr().String() + "/metrics"
	mux := http.NewServeMux()
	// Loopback only, and only to a loopback Host, as the emulator's
	// control API: a page that rebinds its name to 127.0.0.1 reads nothing.
	mux.Handle("GET /metrics", loopbackhost.Handler(promhttp.HandlerFor(reg, promhttp.HandlerOpts{})))
	d.serve(d.server(mux, log), metricsLn)

	app, err := New(ctx, cfg)
	if err != nil {
		appLn.Close()
		return nil, err
	}
	d.App = app
	mux.Handle("GET /debug/embedkit/doctor", app.DoctorHandler())
	d.DoctorURL = "http://" + metricsLn.Addr().String() + "/debug/embedkit/doctor"
	appSrv.Handler = app
	d.serve(appSrv, appLn)
	ok = true
	return d, nil
}

// startEmulator runs the platform emulator with the demo fixture and a
// freshly generated admin API key.
func (d *Demo) startEmulator(addr string, log *slog.Logger, cfg *Config) error {
	if addr == "" {
		addr = DefaultEmulatorListen
	}
	ln, err := listenLoopback("emulator", addr)
	if err != nil {
		return err
	}
	emu, err := emulator.New(nil, emulator.WithLogger(log))
	if err != nil {
		ln.Close()
		return err
	}
	key := "ek_demo_" + rand.Text()
	if err := emu.AddAPIKey(emulator.APIKey{Key: key, User: "admin", Deployments: []int64{DemoDeploymentID}}); err != nil {
		ln.Close()
		return fmt.Errorf("webapp: emulator: %w", err)
	}
	d.Emulator = emu
	d.serve(d.server(emu, log), ln)
	cfg.PlatformURL = "http://" + ln.Addr().String()
	cfg.APIKey = key
	cfg.DeploymentID = DemoDeploymentID
	cfg.Dashboards = nil // the demo fixture's dashboards
	return nil
}

// startIdP runs the development provider with the app as its client,
// under a freshly generated secret.
func (d *Demo) startIdP(opts DemoOptions, log *slog.Logger, cfg *Config) error {
	addr, standard := opts.IdPListen, opts.StandardProvider
	if addr == "" {
		addr = DefaultIdPListen
	}
	ln, err := devidp.Listen(addr, false)
	if err != nil {
		return err
	}
	issuer := "http://" + ln.Addr().String()
	secret := rand.Text() + rand.Text()
	client := devidp.Client{
		ID:                     DemoClientID,
		Secret:                 secret,
		RedirectURIs:           []string{cfg.PublicURL + CallbackPath},
		PostLogoutRedirectURIs: []string{cfg.PublicURL + "/"},
		BackChannelLogoutURI:   cfg.PublicURL + BackChannelLogoutPath,
		BackChannelSIDOnly:     opts.IdPSIDOnlyLogout,
	}
	if standard {
		client.BackChannelLogoutURI = ""
	}
	idp, err := devidp.New(devidp.Config{
		Issuer:            issuer,
		Clients:           []devidp.Client{client},
		Logger:            log,
		ProfileInUserInfo: standard,
		SingleSignOn:      opts.IdPSingleSignOn,
	})
	if err != nil {
		ln.Close()
		return fmt.Errorf("%w (the development provider needs the app on a loopback address; set %s for another provider)", err, EnvOIDCIssuer)
	}
	d.IdP = idp
	d.Users = devidp.DemoUsers()
	d.serve(d.server(idp, log), ln)
	cfg.OIDCIssuer, cfg.OIDCClientID, cfg.OIDCClientSecret = issuer, DemoClientID, secret
	return nil
}

// server returns an http.Server with the demo's timeouts.
func (d *Demo) server(h http.Handler, log *slog.Logger) *http.Server {
	s := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	d.servers = append(d.servers, s)
	return s
}

// serve runs s on ln; an unexpected end is reported by Err.
func (d *Demo) serve(s *http.Server, ln net.Listener) {
	go func() {
		if err := s.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.errc <- err
		}
	}()
}

// Err reports a server of the demo that stopped on its own.
func (d *Demo) Err() <-chan error { return d.errc }

// Close shuts the demo down: the app stops taking requests and finishes
// those in flight, then the provider and the emulator, all within ctx
// (10 seconds when ctx has no deadline). It is safe to call more than
// once.
func (d *Demo) Close(ctx context.Context) error {
	d.closeMu.Lock()
	defer d.closeMu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	if _, has := ctx.Deadline(); !has {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultShutdown)
		defer cancel()
	}
	return d.closeServers(ctx)
}

// closeServers shuts down the servers, the app's first.
func (d *Demo) closeServers(ctx context.Context) error {
	var errs []error
	// The app was created first but is shut down first: it calls the
	// others while it finishes.
	order := d.servers
	if len(order) > 0 {
		if err := order[0].Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("webapp: app shutdown: %w", err))
		}
	}
	if d.App != nil {
		if err := d.App.Close(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	for _, s := range order[min(1, len(order)):] {
		if err := s.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("webapp: shutdown: %w", err))
		}
	}
	return errors.Join(errs...)
}

// listenLoopback listens on addr, which must be a loopback address: the
// emulator's control API has no authentication.
func listenLoopback(what, addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("webapp: %s listen address %q: %w", what, addr, err)
	}
	if !embedkit.IsLoopbackHost(host) {
		return nil, fmt.Errorf("webapp: %s listen address %q is not a loopback address", what, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("webapp: %s listen address %q: %w", what, addr, err)
	}
	return ln, nil
}

// randomBytes returns n random bytes.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return b
}
