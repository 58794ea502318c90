package webapp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/sessions"
	"github.com/redis/go-redis/v9"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/adapters/oidcclaims"
	"github.com/embedkit/embedkit/adapters/redisstore"
	"github.com/embedkit/embedkit/doctor"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
	"github.com/embedkit/embedkit/web/static"
)

// AppName is the demo host app's product name.
const AppName = "Ledgerly"

// SessionName is the name of the app's session cookie when the app is
// served over plain http (a loopback address in development), where
// browsers refuse the __Host- prefix.
const SessionName = "ledgerly_session"

// SecureSessionName is the session cookie's name when PublicURL is https.
// The __Host- prefix makes a browser keep the cookie only when this very
// host set it over https, with Path=/ and no Domain, so a sibling
// subdomain cannot plant a session cookie that signs the victim in as
// someone else. The login cookie carries the same prefix.
const SecureSessionName = "__Host-" + SessionName

// Paths the app serves beside its pages.
const (
	LoginPath             = "/login"
	CallbackPath          = "/auth/callback"
	LogoutPath            = "/logout"
	BackChannelLogoutPath = "/backchannel-logout"
	SettingsPath          = "/settings"
	HostScriptPath        = "/embed/host.js"
	HostScriptTypesPath   = "/embed/host.d.ts"
)

// maxRequestBody bounds every request body the app reads.
const maxRequestBody = 64 << 10

// appTarget is the registered name of the creator-mode app target.
const appTarget = "app"

// askTarget is the registered name of the analytics chat target.
const askTarget = "ask"

// App is the demo host application "Ledgerly": an invoicing product that
// signs its users in with OpenID Connect and embeds the analytics
// platform's dashboards through the kit. It is an http.Handler; create it
// with New and stop its background work with Close.
type App struct {
	cfg         Config
	log         *slog.Logger
	now         func() time.Time
	handler     http.Handler
	kit         *middleware.Kit
	kitConfig   middleware.Config
	auth        *Auth
	store       *sessions.CookieStore
	identity    *gorillasession.Identity
	sessionName string
	endedLogins middleware.EndedLogins
	hints       logoutHints
	mapping     oidcclaims.Mapping
	dashboards  []Dashboard
	projects    []Project
	byID        map[string]Dashboard
	dashTargets map[string]string // registered target name, by public id
	csrfKey     []byte
	cop         *http.CrossOriginProtection
	redis       *redis.Client

	stop      context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
}

// New checks cfg, discovers the OpenID provider (ctx bounds start-up
// only), builds the kit and starts its revoke retrier, which runs until
// Close. Errors name the field or environment variable at fault.
func New(ctx context.Context, cfg Config) (*App, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	a := &App{
		cfg:         cfg,
		log:         cfg.Logger,
		now:         cfg.Now,
		dashboards:  cfg.Dashboards,
		projects:    cfg.Projects,
		byID:        make(map[string]Dashboard, len(cfg.Dashboards)),
		dashTargets: make(map[string]string, len(cfg.Dashboards)),
		cop:         http.NewCrossOriginProtection(),
		done:        make(chan struct{}),
	}
	for i, d := range cfg.Dashboards {
		a.byID[d.PublicID] = d
		a.dashTargets[d.PublicID] = dashboardTarget(i)
	}
	secure := strings.HasPrefix(cfg.PublicURL, "https://")

	a.store = gorillasession.SecureCookieStore(cfg.SessionKeys...)
	a.store.Options.Secure = secure
	a.sessionName = SessionName
	if secure {
		a.sessionName = SecureSessionName
	}
	a.identity = gorillasession.New(a.store, a.sessionName)
	a.identity.Logger = a.log
	a.identity.Now = cfg.Now
	a.identity.Logger, a.identity.Metrics = cfg.Logger, cfg.Metrics
	a.csrfKey = deriveKey(cfg.SessionKeys[0], "ledgerly csrf token key v1")
	a.mapping = oidcclaims.Mapping{
		SessionKey:  oidcclaims.Off, // the login's own random key is used instead
		Groups:      "groups",
		Tenant:      "tenant",
		CreatorMode: "creator_mode",
		Locale:      "locale",
		TimeZone:    "zoneinfo",
		Attributes: map[string]oidcclaims.Attribute{
			"region": {Claim: "region", Type: embedkit.AttributeString},
		},
	}
	if err := a.mapping.Validate(); err != nil {
		return nil, fmt.Errorf("webapp: %w", err)
	}

	kc, err := kitConfig(cfg)
	if err != nil {
		return nil, err
	}

	store, err := a.sessionStore(ctx)
	if err != nil {
		return nil, err
	}
	if a.endedLogins, err = a.endedSessions(); err != nil {
		a.closeRedis()
		return nil, err
	}
	a.identity.EndedLogins = a.endedLogins
	a.hints = newMemoryHints()
	if a.redis != nil {
		a.hints = &redisHints{c: a.redis, prefix: "ledgerly:"}
	}

	kc.Identity = middleware.IdentityFunc(a.viewer)
	kc.Store = store
	kc.Logger = a.log
	// Instances that share SESSION_KEYS name a viewer alike in their logs.
	kc.LogKey = deriveKey(cfg.SessionKeys[0], "ledgerly log key v1")
	kc.Metrics = cfg.Metrics
	kc.ErrorHandler = http.HandlerFunc(a.kitError)
	kc.Now = cfg.Now
	a.kit, err = middleware.New(kc)
	if err != nil {
		a.closeRedis()
		return nil, fmt.Errorf("webapp: %w", err)
	}
	a.kitConfig = kc
	// middleware.New made the Kit the identity's Keeper (KitUser): a
	// logout the list of ended logins could not record (Redis does not
	// answer) is kept by the Kit and written by its Run once it answers.

	a.auth, err = NewAuth(ctx, AuthConfig{
		Issuer:       cfg.OIDCIssuer,
		ClientID:     cfg.OIDCClientID,
		ClientSecret: cfg.OIDCClientSecret,
		RedirectURL:  cfg.PublicURL + CallbackPath,
		Scopes:       []string{"profile", "email", "groups"},
		Sessions:     a.store,
		SessionName:  a.sessionName,
		OnLogin:      a.onLogin,
		EndPrevious:  a.endPrevious,
		ErrorPage:    a.authError,
		HTTPClient:   cfg.HTTPClient,
		Logger:       a.log,
		// The sign-in record names the viewer as the kit's records do.
		RedactSubject: a.kit.RedactViewer,
		Now:           cfg.Now,
	})
	if err != nil {
		a.closeRedis()
		return nil, fmt.Errorf("%w (%s)", err, EnvOIDCIssuer)
	}

	a.handler = a.routes()

	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	a.stop = stop
	go func() {
		defer close(a.done)
		if err := a.kit.Run(runCtx); err != nil {
			a.log.Error("webapp: revoke retrier stopped", "err", err)
		}
	}()
	a.log.Info("webapp: ready", "url", cfg.PublicURL, "platform", a.kit.PlatformOrigin(), "dashboards", len(a.dashboards))
	return a, nil
}

// sessionStore returns the store of minted session ids: Config.Store,
// Redis at Config.RedisAddr, or memory.
func (a *App) sessionStore(ctx context.Context) (middleware.SessionStore, error) {
	switch {
	case a.cfg.Store != nil:
		return a.cfg.Store, nil
	case a.cfg.RedisAddr != "":
		rc := redis.NewClient(&redis.Options{Addr: a.cfg.RedisAddr})
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := rc.Ping(pctx).Err(); err != nil {
			rc.Close()
			return nil, fmt.Errorf("webapp: %s: Redis does not answer: %w", EnvRedisAddr, err)
		}
		a.redis = rc
		return redisstore.New(rc, redisstore.WithPrefix("ledgerly:"), redisstore.WithClock(a.now)), nil
	default:
		return memstore.New(memstore.WithClock(a.now)), nil
	}
}

// endedSessions returns the list of ended host sessions. It lives where
// the minted ids do: in Redis with REDIS_ADDR, so that a logged-out cookie
// stays logged out after a restart and on every instance; in memory
// otherwise (one instance, and a restart forgets it: the README says so).
func (a *App) endedSessions() (middleware.EndedLogins, error) {
	if a.redis != nil {
		r, err := redisstore.NewEndedLogins(a.redis, sessionLifetime, redisstore.WithPrefix("ledgerly:"), redisstore.WithClock(a.now))
		if err != nil {
			return nil, fmt.Errorf("webapp: %s: %w", EnvRedisAddr, err)
		}
		return r, nil
	}
	m := gorillasession.NewMemoryEndedLogins(sessionLifetime)
	m.Now = a.cfg.Now
	return m, nil
}

// DoctorHandler is the doctor (doctor.Handler) on the app's own
// middleware.Config, for the app's loopback listener: "embedkit doctor
// -app URL" reads it. Its fixes name the environment variables the app
// reads its settings from.
func (a *App) DoctorHandler() http.Handler {
	return doctor.Handler(doctor.Config{
		Name: "Ledgerly (the demo app)",
		Kit:  a.kitConfig,
		Sources: map[string]string{
			"APIKey":              EnvAPIKey,
			"PlatformURL":         EnvBaseURL,
			"Policy.DeploymentID": EnvDeploymentID,
			"Origins.Host":        "the app's public URL, -public-url",
		},
	})
}

// KitConfig returns the platform half of the middleware.Config the app
// gives middleware.New, from the platform fields of cfg (PlatformURL,
// APIKey, DeploymentID, Dashboards, AllowedGroups, GroupMap,
// CreatorTenants, PrimaryColor, HTTPClient, Logger; PublicURL, when set,
// is Origins.Host): Platform, Policy, PlatformURL, Targets, Origins
// and the login settings. The app adds its Identity, Store, Logger,
// Metrics and ErrorHandler. The app's DoctorHandler checks the Config
// the app serves with.
func KitConfig(cfg Config) (middleware.Config, error) {
	if err := cfg.checkPlatform(); err != nil {
		return middleware.Config{}, err
	}
	return kitConfig(cfg)
}

// kitConfig is KitConfig for a checked cfg.
func kitConfig(cfg Config) (middleware.Config, error) {
	clientOpts := []embedkit.Option{embedkit.WithLogger(cfg.Logger), embedkit.WithUserAgent("ledgerly-demo")}
	if cfg.HTTPClient != nil {
		clientOpts = append(clientOpts, embedkit.WithHTTPClient(cfg.HTTPClient))
	}
	client, err := embedkit.New(cfg.PlatformURL, cfg.APIKey, clientOpts...)
	if err != nil {
		return middleware.Config{}, fmt.Errorf("webapp: platform client (%s, %s): %w", EnvBaseURL, EnvAPIKey, err)
	}
	return middleware.Config{
		Platform:    client,
		Policy:      policy(cfg),
		PlatformURL: cfg.PlatformURL,
		Targets:     targets(cfg.Dashboards, cfg.Projects),
		Origins:     middleware.OriginOptions{Host: originOf(cfg.PublicURL)},
		Paths:       middleware.PathOptions{Login: LoginPath, LoginReturnParam: "return_to"},
	}, nil
}

// policy is the app's embedding policy.
func policy(cfg Config) middleware.Policy {
	return middleware.Policy{
		DeploymentID: cfg.DeploymentID,
		Theme:        &embedkit.EmbedTheme{PrimaryColor: cfg.PrimaryColor},
		Customize:    defineTenantAttributes,
		// It reads the request, never the target: frames may switch
		// between the dashboards in place.
		CustomizeIgnoresTarget: true,
		Groups:                 middleware.GroupOptions{Map: cfg.GroupMap, Allowed: cfg.AllowedGroups},
		Attributes:             middleware.AttributeOptions{Allowed: []string{"region"}},
		Tenants:                middleware.TenantOptions{Creator: cfg.CreatorTenants},
	}
}

// defineTenantAttributes defines the attributes a creator-mode session
// sends in its embed tenant's own catalog, which starts empty.
func defineTenantAttributes(_ *http.Request, _ *middleware.Viewer, _ middleware.Target, req *embedkit.GenerateSessionRequest) error {
	if req.CreatorMode == nil || !*req.CreatorMode {
		return nil
	}
	for _, a := range req.UserAttributes {
		if a.Name == "region" {
			req.UserAttributeDefinitions = append(req.UserAttributeDefinitions,
				embedkit.UserAttributeDefinition{Name: "region", Type: embedkit.AttributeString, DisplayName: "Region"})
		}
	}
	return nil
}

// dashboardChrome is how the app shows every dashboard: without the
// platform's edit and duplicate buttons, with downloads allowed.
var dashboardChrome = middleware.Chrome{HideDashboardEditButton: true, HideDashboardDuplicateButton: true, AllowExport: true}

// targets registers one target per dashboard, the analytics chat and the
// creator-mode app.
// Dashboards are addressed by their canonical frame path
// ("dashboard/{publicId}"), so their names only need to be unique.
func targets(dashboards []Dashboard, projects []Project) map[string]middleware.Target {
	ts := make(map[string]middleware.Target, len(dashboards)+len(projects)+2)
	for publicID, name := range projectTargets(projects) {
		// A project's dashboard shows every project's rows without the
		// project in the security context: RouteScoped keeps the frame
		// and JSON endpoints from serving it (projectFrame does).
		ts[name] = middleware.Target{
			Kind:        middleware.KindDashboard,
			PublicID:    publicID,
			Chrome:      dashboardChrome,
			Settings:    &embedkit.EmbedSessionSettings{ShowDashboardChat: new(false)},
			RouteScoped: true,
		}
	}
	for i, d := range dashboards {
		ts[dashboardTarget(i)] = middleware.Target{
			Kind:     middleware.KindDashboard,
			PublicID: d.PublicID,
			Chrome:   dashboardChrome,
			Settings: &embedkit.EmbedSessionSettings{ShowDashboardChat: new(false)},
		}
	}
	ts[askTarget] = middleware.Target{Kind: middleware.KindChat}
	ts[appTarget] = middleware.Target{
		Kind:     middleware.KindApp,
		Settings: &embedkit.EmbedSessionSettings{ShowWorkbookShare: new(true)},
	}
	return ts
}

// dashboardTarget is the registered target name of the i-th (from 0) of
// Config.Dashboards: "dashboard-1", "dashboard-2", ...
func dashboardTarget(i int) string { return fmt.Sprintf("dashboard-%d", i+1) }

// routes builds the handler: every answer gets the security headers, a
// bounded body and a log line.
func (a *App) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.home)
	mux.HandleFunc(LoginPath, a.auth.Login)
	mux.HandleFunc(CallbackPath, a.auth.Callback)
	mux.HandleFunc(LogoutPath, a.logout)
	mux.Handle(BackChannelLogoutPath, oidcclaims.BackChannelLogout(a.auth.Verifier(), backChannel{a},
		oidcclaims.WithLogger(a.log), oidcclaims.WithClock(a.now)))
	mux.HandleFunc("GET /dashboards", a.dashboardList)
	mux.HandleFunc("GET /dashboards/{publicId}", a.dashboardPage)
	mux.HandleFunc("GET /ask", a.ask)
	mux.HandleFunc("GET "+ReactPath, a.reactPage)
	mux.HandleFunc("GET "+ModulePath, a.modulePage)
	mux.Handle("GET "+HostModulesPath, hostModules())
	mux.HandleFunc("GET /creator", a.creator)
	mux.HandleFunc("GET /projects", a.projectList)
	mux.HandleFunc("GET /projects/{id}", a.projectPage)
	mux.Handle("GET "+projectFramePath("{id}"), a.kit.FrameFunc(a.projectFrame))
	mux.HandleFunc(SettingsPath, a.settings)
	mux.Handle(middleware.DefaultFramePrefix, a.kit.FrameHandler())
	mux.Handle(middleware.DefaultSessionPath, a.kit.SessionHandler())
	mux.Handle(HostScriptPath, a.kit.HostScript())
	mux.Handle(HostScriptTypesPath, a.kit.HostScriptTypes())
	mux.Handle("/static/", static.Handler())
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("/", a.notFound)

	var h http.Handler = mux
	h = middleware.SecurityHeaders(a.kit.PlatformOrigin(), middleware.HeaderOptions{})(h)
	h = boundBody(h)
	return a.logRequests(h)
}

// ServeHTTP serves the app.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.handler.ServeHTTP(w, r) }

// Kit returns the app's embedding kit.
func (a *App) Kit() *middleware.Kit { return a.kit }

// PlatformOrigin returns the analytics platform's origin.
func (a *App) PlatformOrigin() string { return a.kit.PlatformOrigin() }

// Close stops the revoke retrier, makes one last attempt at queued
// revokes within ctx, and closes the Redis client, if any. It is safe to
// call more than once.
func (a *App) Close(ctx context.Context) error {
	var err error
	a.closeOnce.Do(func() {
		a.stop()
		select {
		case <-a.done:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if pending, ferr := a.kit.FlushRevokes(ctx); ferr != nil || pending > 0 {
			a.log.Warn("webapp: revokes still queued at shutdown", "pending", pending, "err", ferr)
		}
		a.closeRedis()
	})
	return err
}

func (a *App) closeRedis() {
	if a.redis != nil {
		if err := a.redis.Close(); err != nil {
			a.log.Warn("webapp: closing the Redis client", "err", err)
		}
	}
}

// backChannel ends sessions for back-channel logout: the host's login
// sessions (their cookies are refused from now on, through the ended
// logins) and the embed sessions minted for them (through the Kit, which
// could serve back-channel logout alone in an app whose login sessions
// the server can delete). oidcclaims.EndingLogins does both; this adds
// the app's log line.
type backChannel struct{ a *App }

// RevokeSubject implements oidcclaims.SubjectRevoker: every login of
// subject.
func (b backChannel) RevokeSubject(ctx context.Context, subject string) error {
	err := oidcclaims.EndingLogins(b.a.endedLogins, b.a.kit).RevokeSubject(ctx, subject)
	b.a.log.Info("webapp: back-channel logout", "subject", b.a.kit.RedactViewer(subject), "complete", err == nil)
	return err
}

// RevokeProviderSession implements oidcclaims.ProviderSessionRevoker:
// every login made in the provider session sid (Viewer.ProviderSID), for
// a logout token without a subject. The sid is not a login's key: the
// app keys each login by a random key of its own.
func (b backChannel) RevokeProviderSession(ctx context.Context, sid string) error {
	err := oidcclaims.EndingLogins(b.a.endedLogins, b.a.kit).RevokeProviderSession(ctx, sid)
	b.a.log.Info("webapp: back-channel logout", "provider_session", b.a.kit.RedactViewer(sid), "complete", err == nil)
	return err
}

// healthz answers liveness probes.
func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok\n"))
}

// boundBody limits every request body to maxRequestBody.
func boundBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
		}
		next.ServeHTTP(w, r)
	})
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// logRequests writes one record per request: method, path (never the
// query string, which carries codes and states on the callback), status
// and duration. Headers, cookies and redirect targets are not logged.
func (a *App) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := a.now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		a.log.LogAttrs(r.Context(), slog.LevelInfo, "webapp: request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", status),
			slog.Duration("duration", a.now().Sub(start)))
	})
}

// deriveKey derives a purpose-bound key from a secret.
func deriveKey(secret []byte, purpose string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// originOf returns the scheme://host[:port] of an absolute URL, or "" (the
// kit then derives the origin from each request).
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
