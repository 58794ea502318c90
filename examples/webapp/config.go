package webapp

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvBaseURL      = "EMBEDKIT_BASE_URL"
	EnvAPIKey       = "EMBEDKIT_API_KEY"
	EnvDeploymentID = "EMBEDKIT_DEPLOYMENT_ID"
	EnvDashboards   = "EMBEDKIT_DASHBOARDS"
	EnvOIDCIssuer   = "OIDC_ISSUER"
	EnvOIDCClientID = "OIDC_CLIENT_ID"
	EnvOIDCSecret   = "OIDC_CLIENT_SECRET"
	EnvSessionKeys  = "SESSION_KEYS"
	EnvRedisAddr    = "REDIS_ADDR"
)

// Limits of EMBEDKIT_DASHBOARDS.
const (
	maxDashboards    = 100
	maxDashboardName = 200
)

// Dashboard is a published dashboard the app offers.
type Dashboard struct {
	// PublicID is the dashboard's public id on the platform.
	PublicID string
	// Title is shown on the list and as the page heading.
	Title string
	// Description is shown on the list; empty shows none.
	Description string
	// Filters are the live filters offered above the dashboard; each must
	// name a filter control the dashboard has. Empty shows no filter bar.
	Filters []FilterChoice
}

// FilterChoice is one live filter of a dashboard page: a select whose
// choices set the dashboard's filter control on Member.
type FilterChoice struct {
	// Member is the filtered dimension, "view.dimension".
	Member string
	// Label is the select's label.
	Label string
	// Values are the choices, value and label; the page adds an "All"
	// choice that clears the filter.
	Values [][2]string
}

// demoFilters are the filters of the demo fixture's dashboards, whose
// controls are a region and a month filter.
var demoFilters = []FilterChoice{
	{Member: "sales.region", Label: "Region", Values: [][2]string{{"EMEA", "EMEA"}, {"AMER", "AMER"}, {"APAC", "APAC"}}},
	{Member: "sales.month", Label: "Month", Values: [][2]string{
		{"2025-01", "January 2025"}, {"2025-02", "February 2025"}, {"2025-03", "March 2025"},
		{"2025-04", "April 2025"}, {"2025-05", "May 2025"}, {"2025-06", "June 2025"},
	}},
}

// DemoDashboards are the dashboards of the built-in demo fixture, offered
// when Config.Dashboards is empty.
func DemoDashboards() []Dashboard {
	return []Dashboard{
		{PublicID: "sales-overview", Title: "Sales overview", Description: "Revenue, invoices paid and the pipeline, by month.", Filters: demoFilters},
		{PublicID: "regional-performance", Title: "Regional performance", Description: "How each region is doing against its targets.", Filters: demoFilters},
	}
}

// DemoGroups are the platform groups of the built-in demo fixture, the
// default of Config.AllowedGroups.
var DemoGroups = []string{"sales", "emea", "amer", "apac", "analysts"}

// DemoCreatorTenants are the embed tenants allowed creator mode by
// default.
var DemoCreatorTenants = []string{"contoso-labs"}

// Config configures the app. PublicURL, PlatformURL, APIKey, DeploymentID,
// the three OIDC fields and SessionKeys are required; the rest have
// defaults. ConfigFromEnv fills the fields that come from the environment;
// RunDemo fills whatever is missing with the embedded emulator and
// identity provider.
type Config struct {
	// PublicURL is the app's absolute base URL as browsers reach it, such
	// as "http://127.0.0.1:8080". The OIDC redirect URI is PublicURL +
	// "/auth/callback". Cookies are marked Secure when it is https.
	PublicURL string

	// PlatformURL is the analytics platform's base URL (https, or http on
	// a loopback host).
	PlatformURL string
	// APIKey is the platform's admin API key. It is never logged or sent
	// to a browser.
	APIKey string
	// DeploymentID is the deployment every embed session is for.
	DeploymentID int64
	// Dashboards are the dashboards offered. Empty means DemoDashboards.
	Dashboards []Dashboard
	// Projects are the projects whose pages embed a dashboard scoped to
	// the project. nil means DemoProjects when the dashboards are the
	// demo's, and none otherwise; an empty non-nil list offers none.
	Projects []Project

	// OIDCIssuer, OIDCClientID and OIDCClientSecret are the app's
	// registration at its OpenID provider.
	OIDCIssuer       string
	OIDCClientID     string
	OIDCClientSecret string

	// SessionKeys sign (and encrypt) the session cookie: key pairs as
	// gorillasession.KeysFromEnv returns them, newest first.
	SessionKeys [][]byte

	// RedisAddr, when set, keeps minted embed session ids in Redis
	// (adapters/redisstore) instead of process memory.
	RedisAddr string
	// Store, when set, replaces the store RedisAddr or the default picks.
	Store middleware.SessionStore

	// AllowedGroups are the platform groups a viewer's groups may map to.
	// nil means DemoGroups.
	AllowedGroups []string
	// GroupMap renames host groups to platform groups (see
	// middleware.Policy.Groups.Map).
	GroupMap map[string]string
	// CreatorTenants are the embed tenants allowed creator mode. nil
	// means DemoCreatorTenants.
	CreatorTenants []string
	// PrimaryColor is the embed theme's primary colour. Empty means the
	// app's brand colour.
	PrimaryColor string

	// HTTPClient, when set, makes the calls to the OpenID provider and to
	// the platform (for a proxy or private certificate authority).
	HTTPClient *http.Client
	// Metrics receives the kit's mint and revoke counts. Nil means none.
	Metrics middleware.Metrics
	// Logger receives the app's records. Nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}

// PlatformConfigured reports whether the platform fields are set.
func (c Config) PlatformConfigured() bool { return c.PlatformURL != "" }

// OIDCConfigured reports whether the OpenID provider fields are set.
func (c Config) OIDCConfigured() bool { return c.OIDCIssuer != "" }

// ConfigFromEnv reads the environment through getenv (os.Getenv in a
// program). Every variable is optional, but related ones go together:
//
//   - EMBEDKIT_BASE_URL, EMBEDKIT_API_KEY and EMBEDKIT_DEPLOYMENT_ID name
//     a real platform: all three or none; EMBEDKIT_DASHBOARDS
//     ("publicId:Title,publicId:Title") only with them;
//   - OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET name a real
//     OpenID provider: all three or none;
//   - SESSION_KEYS are the cookie keys, newest first (see
//     gorillasession.KeysFromEnv);
//   - REDIS_ADDR keeps minted session ids in Redis.
//
// A group left unset stays empty in the Config (RunDemo then runs the
// embedded stand-in). Errors name the variable and never quote a secret.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	var c Config

	base, key, dep, dash := get(EnvBaseURL), getenv(EnvAPIKey), get(EnvDeploymentID), get(EnvDashboards)
	switch {
	case base != "":
		if err := checkPlatformURL(base); err != nil {
			return Config{}, fmt.Errorf("webapp: %s: %w", EnvBaseURL, err)
		}
		if strings.TrimSpace(key) == "" {
			return Config{}, fmt.Errorf("webapp: %s is required when %s is set", EnvAPIKey, EnvBaseURL)
		}
		if dep == "" {
			return Config{}, fmt.Errorf("webapp: %s is required when %s is set", EnvDeploymentID, EnvBaseURL)
		}
		id, err := strconv.ParseInt(dep, 10, 64)
		if err != nil || id <= 0 {
			return Config{}, fmt.Errorf("webapp: %s must be a positive integer", EnvDeploymentID)
		}
		c.PlatformURL, c.APIKey, c.DeploymentID = base, strings.TrimSpace(key), id
		if dash != "" {
			ds, err := ParseDashboards(dash)
			if err != nil {
				return Config{}, fmt.Errorf("webapp: %s: %w", EnvDashboards, err)
			}
			c.Dashboards = ds
		}
	case strings.TrimSpace(key) != "":
		return Config{}, fmt.Errorf("webapp: %s is required when %s is set", EnvBaseURL, EnvAPIKey)
	case dep != "":
		return Config{}, fmt.Errorf("webapp: %s is required when %s is set", EnvBaseURL, EnvDeploymentID)
	case dash != "":
		return Config{}, fmt.Errorf("webapp: %s is required when %s is set (the built-in emulator offers its own dashboards)", EnvBaseURL, EnvDashboards)
	}

	iss, cid, secret := get(EnvOIDCIssuer), get(EnvOIDCClientID), getenv(EnvOIDCSecret)
	switch {
	case iss != "":
		if u, err := url.Parse(iss); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return Config{}, fmt.Errorf("webapp: %s must be an absolute https URL", EnvOIDCIssuer)
		}
		if cid == "" {
			return Config{}, fmt.Errorf("webapp: %s is required when %s is set", EnvOIDCClientID, EnvOIDCIssuer)
		}
		if strings.TrimSpace(secret) == "" {
			return Config{}, fmt.Errorf("webapp: %s is required when %s is set", EnvOIDCSecret, EnvOIDCIssuer)
		}
		c.OIDCIssuer, c.OIDCClientID, c.OIDCClientSecret = iss, cid, secret
	case cid != "":
		return Config{}, fmt.Errorf("webapp: %s is required when %s is set", EnvOIDCIssuer, EnvOIDCClientID)
	case strings.TrimSpace(secret) != "":
		return Config{}, fmt.Errorf("webapp: %s is required when %s is set", EnvOIDCIssuer, EnvOIDCSecret)
	}

	if v := get(EnvSessionKeys); v != "" {
		keys, err := gorillasession.KeysFromEnv(v)
		if err != nil {
			return Config{}, fmt.Errorf("webapp: %s: %w", EnvSessionKeys, err)
		}
		c.SessionKeys = keys
	}
	c.RedisAddr = get(EnvRedisAddr)
	return c, nil
}

// ParseDashboards reads "publicId:Title,publicId:Title". A missing title
// uses the public id.
func ParseDashboards(s string) ([]Dashboard, error) {
	var out []Dashboard
	seen := map[string]bool{}
	for i, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			return nil, fmt.Errorf("entry %d is empty", i+1)
		}
		id, title, _ := strings.Cut(entry, ":")
		id, title = strings.TrimSpace(id), strings.TrimSpace(title)
		if !middleware.PublicIDPattern.MatchString(id) {
			return nil, fmt.Errorf("entry %d: public id %q must match %s", i+1, id, middleware.PublicIDPattern)
		}
		if seen[id] {
			return nil, fmt.Errorf("entry %d: public id %q is listed twice", i+1, id)
		}
		seen[id] = true
		if title == "" {
			title = id
		}
		if len(title) > maxDashboardName {
			return nil, fmt.Errorf("entry %d: title is longer than %d bytes", i+1, maxDashboardName)
		}
		out = append(out, Dashboard{PublicID: id, Title: title})
		if len(out) > maxDashboards {
			return nil, fmt.Errorf("more than %d dashboards", maxDashboards)
		}
	}
	return out, nil
}

// checkPlatformURL applies the client's rule (embedkit.ParseBaseURL):
// https, or http on a loopback host.
func checkPlatformURL(s string) error {
	if _, err := embedkit.ParseBaseURL(s); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "embedkit: "))
	}
	return nil
}

// check reports the first missing or invalid field of a complete Config.
func (c *Config) check() error {
	if c.PublicURL == "" {
		return errors.New("webapp: Config.PublicURL is required (the app's base URL)")
	}
	if err := c.checkPublicURL(); err != nil {
		return err
	}
	if err := c.requirePlatform(); err != nil {
		return err
	}
	switch {
	case c.OIDCIssuer == "":
		return fmt.Errorf("webapp: Config.OIDCIssuer is required (%s)", EnvOIDCIssuer)
	case c.OIDCClientID == "" || c.OIDCClientSecret == "":
		return fmt.Errorf("webapp: Config.OIDCClientID and OIDCClientSecret are required (%s, %s)", EnvOIDCClientID, EnvOIDCSecret)
	case len(c.SessionKeys) == 0 || len(c.SessionKeys[0]) == 0:
		return fmt.Errorf("webapp: Config.SessionKeys is required (%s)", EnvSessionKeys)
	}
	return c.platformDefaults()
}

// checkPlatform reports the first missing or invalid platform field of
// c, and fills in the defaults of the fields the kit's Config is built
// from: the part of check that KitConfig needs. PublicURL is optional
// here; when set it must be valid.
func (c *Config) checkPlatform() error {
	if c.PublicURL != "" {
		if err := c.checkPublicURL(); err != nil {
			return err
		}
	}
	if err := c.requirePlatform(); err != nil {
		return err
	}
	return c.platformDefaults()
}

// checkPublicURL checks PublicURL and drops its trailing slash.
func (c *Config) checkPublicURL() error {
	pu, err := url.Parse(c.PublicURL)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" || (pu.Path != "" && pu.Path != "/") || pu.RawQuery != "" {
		return fmt.Errorf("webapp: Config.PublicURL %q must be an absolute http or https URL without path or query", c.PublicURL)
	}
	c.PublicURL = strings.TrimSuffix(c.PublicURL, "/")
	return nil
}

// requirePlatform reports the first missing platform field.
func (c *Config) requirePlatform() error {
	switch {
	case c.PlatformURL == "":
		return fmt.Errorf("webapp: Config.PlatformURL is required (%s)", EnvBaseURL)
	case c.APIKey == "":
		return fmt.Errorf("webapp: Config.APIKey is required (%s)", EnvAPIKey)
	case c.DeploymentID <= 0:
		return fmt.Errorf("webapp: Config.DeploymentID is required (%s)", EnvDeploymentID)
	}
	return nil
}

// platformDefaults checks the platform URL, the dashboards and projects,
// and fills in every default.
func (c *Config) platformDefaults() error {
	if err := checkPlatformURL(c.PlatformURL); err != nil {
		return fmt.Errorf("webapp: Config.PlatformURL %w", err)
	}
	if len(c.Dashboards) == 0 {
		c.Dashboards = DemoDashboards()
		if c.Projects == nil {
			c.Projects = DemoProjects()
		}
	}
	projectIDs := map[string]bool{}
	for i, p := range c.Projects {
		if !middleware.PublicIDPattern.MatchString(p.ID) || !middleware.PublicIDPattern.MatchString(p.Dashboard) {
			return fmt.Errorf("webapp: Config.Projects[%d]: ID %q and Dashboard %q must match %s", i, p.ID, p.Dashboard, middleware.PublicIDPattern)
		}
		if projectIDs[p.ID] {
			return fmt.Errorf("webapp: Config.Projects[%d].ID %q is listed twice", i, p.ID)
		}
		projectIDs[p.ID] = true
	}
	ids := map[string]bool{}
	for i, d := range c.Dashboards {
		if !middleware.PublicIDPattern.MatchString(d.PublicID) {
			return fmt.Errorf("webapp: Config.Dashboards[%d].PublicID %q must match %s", i, d.PublicID, middleware.PublicIDPattern)
		}
		if ids[d.PublicID] {
			return fmt.Errorf("webapp: Config.Dashboards[%d].PublicID %q is listed twice", i, d.PublicID)
		}
		ids[d.PublicID] = true
	}
	for i, p := range c.Projects {
		if ids[p.Dashboard] {
			return fmt.Errorf("webapp: Config.Projects[%d].Dashboard %q is also one of Config.Dashboards: a project's dashboard is served only with the project signed in, so it cannot also be offered unscoped", i, p.Dashboard)
		}
	}
	if c.AllowedGroups == nil {
		c.AllowedGroups = slices.Clone(DemoGroups)
	}
	if c.CreatorTenants == nil {
		c.CreatorTenants = slices.Clone(DemoCreatorTenants)
	}
	if c.PrimaryColor == "" {
		c.PrimaryColor = "#0f766e"
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}
