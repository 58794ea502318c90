package emulator

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

//go:embed fixtures/demo.json
var demoFixtureJSON []byte

// Fixture is the complete initial state of an emulated account: tenant
// flags, users and API keys, the global group and attribute catalogs, embed
// tenants, deployments with their environments, branches, versions and
// dashboards, and audit events. It is usually written as JSON and read with
// LoadFixture; see the package documentation for a full example.
//
// Every JSON object of a fixture is closed: an unknown member is a load
// error, as are duplicate ids and references to users or deployments that
// do not exist. Errors name the path, for example
// "deployments[0].branches[2].kind: must be production, shared or personal".
type Fixture struct {
	// Tenant is the account's tenant name and the default embed tenant.
	Tenant string `json:"tenant"`
	// Embedding enables signed embedding; without it generate-session and
	// revoke answer 403.
	Embedding bool `json:"embedding"`
	// CreatorMode is the account's useCreatorMode flag.
	CreatorMode bool `json:"creatorMode"`
	// AuditLog is the audit log plan feature; without it the audit export
	// answers 403.
	AuditLog bool `json:"auditLog"`
	// DataDownloadsRestricted makes dashboard export answer 403.
	DataDownloadsRestricted bool `json:"dataDownloadsRestricted"`
	// RevocationClaim makes exchanged tokens carry the revocation claim, so
	// revoking their session rejects them. False emulates tokens minted
	// before the platform supported revocation.
	RevocationClaim bool `json:"revocationClaim"`
	// MaxExternalUsers is the account's external user limit (0 means
	// 10,000).
	MaxExternalUsers int `json:"maxExternalUsers,omitempty"`
	// MaxExportsInFlight bounds the dashboard exports in flight per
	// rendered identity (0 means 3).
	MaxExportsInFlight int `json:"maxExportsInFlight,omitempty"`
	// PredatesSessionRenewal plays a platform from before "Session
	// renewal in place": the embedded pages send neither
	// cube:event:session-expiring nor cube:event:session-expired, ignore
	// cube:action:set-session as an unknown action, and when the page
	// stops trusting its token (about 23 hours after the exchange) it
	// posts a fatal cube:event:error (context embed-session) and shows
	// "session ended", so the host loads the frame again. False, the
	// default, plays the current platform.
	PredatesSessionRenewal bool `json:"predatesSessionRenewal,omitempty"`
	// SessionExpiringLead is how long before the page stops trusting its
	// token it posts cube:event:session-expiring: a Go duration such as
	// "15m", from 1m to 12h; empty means 10m. The platform's
	// documentation does not say when the event comes: the default and
	// the range are the emulator's choice. It has no effect with
	// PredatesSessionRenewal.
	SessionExpiringLead string `json:"sessionExpiringLead,omitempty"`

	Users          []User                `json:"users,omitempty"`
	APIKeys        []APIKey              `json:"apiKeys,omitempty"`
	Groups         []string              `json:"groups,omitempty"`
	UserAttributes []AttributeDefinition `json:"userAttributes,omitempty"`
	EmbedTenants   []EmbedTenant         `json:"embedTenants,omitempty"`
	Deployments    []Deployment          `json:"deployments,omitempty"`
	AuditEvents    []AuditEvent          `json:"auditEvents,omitempty"`
}

// User is an internal (console) user of the account.
type User struct {
	// Username identifies the user; API keys and dashboard managers
	// reference it, and it is the internalId of generate-session.
	Username string `json:"username"`
	Email    string `json:"email,omitempty"`
	// Admin marks an account administrator.
	Admin bool `json:"admin"`
	// Active defaults to true; the keys of an inactive user are rejected
	// with 401.
	Active *bool `json:"active,omitempty"`
	// Permissions are role permissions such as "AuditLogManage".
	Permissions []string `json:"permissions,omitempty"`
}

// APIKey is an API key of a user.
type APIKey struct {
	// Key is the secret sent in the Authorization header.
	Key string `json:"key"`
	// User is the username the key belongs to.
	User string `json:"user"`
	// Deployments scopes the key; empty means every deployment.
	Deployments []int64 `json:"deployments,omitempty"`
	// Personal marks a personal key, which cannot generate sessions.
	Personal bool `json:"personal,omitempty"`
}

// AttributeDefinition is a user attribute definition of the tenant-wide
// catalog or of an embed tenant's catalog.
type AttributeDefinition struct {
	Name string `json:"name"`
	// Type is string, number, boolean, string_array or number_array.
	Type         string `json:"type"`
	DisplayName  string `json:"displayName,omitempty"`
	DefaultValue string `json:"defaultValue,omitempty"`
	Description  string `json:"description,omitempty"`
}

// EmbedTenant is an embed tenant that exists before any session names it,
// with its own group and attribute catalogs (creator mode).
type EmbedTenant struct {
	Name           string                `json:"name"`
	DisplayName    string                `json:"displayName,omitempty"`
	Groups         []TenantGroup         `json:"groups,omitempty"`
	UserAttributes []AttributeDefinition `json:"userAttributes,omitempty"`
}

// TenantGroup is a group of an embed tenant.
type TenantGroup struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Deployment is a deployment with everything the API exposes about it.
type Deployment struct {
	ID           int64         `json:"id"`
	Name         string        `json:"name"`
	CreatedAt    time.Time     `json:"createdAt"`
	Environments []Environment `json:"environments,omitempty"`
	Branches     []Branch      `json:"branches,omitempty"`
	Versions     []Version     `json:"versions,omitempty"`
	Dashboards   []Dashboard   `json:"dashboards,omitempty"`
	// TemplateVariables are the deployment's initial template variables.
	TemplateVariables map[string]any `json:"templateVariables,omitempty"`
}

// Environment is a production or development environment of a deployment.
// Staging environments are derived from branches whose staging environment
// is enabled.
type Environment struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Type    string `json:"type"`
	RestURL string `json:"restUrl"`
	SQLHost string `json:"sqlHost"`
	SQLPort int    `json:"sqlPort"`
}

// Branch is a data model branch.
type Branch struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// Kind is production, shared or personal; exactly one branch of a
	// deployment with branches is the production branch.
	Kind string `json:"kind"`
	// Served says someone has the branch open (the production branch is
	// always served, as is a branch with its staging environment enabled).
	Served bool `json:"served,omitempty"`
	// StagingEnvironment is the initial state of the staging environment
	// (shared branches only).
	StagingEnvironment bool   `json:"stagingEnvironment,omitempty"`
	ParentBranch       string `json:"parentBranch,omitempty"`
	LastHash           string `json:"lastHash,omitempty"`
}

// Version is a software version a deployment can run.
type Version struct {
	// ReleaseChannelVersion has the shape <image_repo>:v<semver>.
	ReleaseChannelVersion string `json:"releaseChannelVersion"`
	// Version is the semantic version and must match ReleaseChannelVersion.
	Version string `json:"version"`
	// ReleaseChannel is latest or release, the platform's channels.
	ReleaseChannel    string `json:"releaseChannel"`
	IsLatestInChannel bool   `json:"isLatestInChannel"`
	// IsCurrent marks the version in effect; exactly one per deployment.
	IsCurrent bool `json:"isCurrent"`
}

// Dashboard is a dashboard of a deployment's workspace.
type Dashboard struct {
	ID        int64  `json:"id"`
	PublicID  string `json:"publicId"`
	Title     string `json:"title"`
	Published bool   `json:"published"`
	// Managers are the usernames with manage access to its workbook.
	Managers []string `json:"managers,omitempty"`
	// AllowEmbed is the dashboard's "Allow signed embedding" switch:
	// false makes GET /api/v1/embed/dashboard/{publicId} answer 403, as
	// the platform's documentation says, and the embedded page show an
	// error. Unset means on: the emulator's default, so that fixtures
	// written before the switch was modelled keep working (the
	// documentation does not say which way a new dashboard starts).
	AllowEmbed *bool `json:"allowEmbed,omitempty"`
	// RenderError, when set, makes every export of it fail with this
	// message.
	RenderError string `json:"renderError,omitempty"`
	// TestOnly marks a dashboard that exists for tests (such as one with
	// a RenderError): it stays published and opens at its address, but
	// the embedded pages leave it out of their in-embed navigation, so
	// people browsing an emulated deployment do not meet it. The
	// navigation is the emulator's; the switch is not a platform setting.
	TestOnly bool `json:"testOnly,omitempty"`
	// RequiredSecurityContext are the security-context keys the data
	// model's access policy filters this dashboard's rows by, written to
	// deny every row when one is missing (a row-level filter on
	// securityContext.project, with a condition that the key is set): a
	// session whose security context lacks one of them, or holds null or
	// "" for it, sees no rows of the dashboard, in its page and its
	// exports. It stands for the deployment's data model,
	// which the emulator does not hold (see the sample data rules in the
	// package documentation); it is no setting of a dashboard on the
	// platform.
	RequiredSecurityContext []string `json:"requiredSecurityContext,omitempty"`
	// SharedWithTenants names the embed tenants that hold a share of the
	// dashboard's workbook. An export rendered as an embed subject of
	// another tenant is refused with 403, as the platform documents. Left
	// out, every embed tenant holds one: the emulator's default (the
	// platform's documents do not say how shares start), so fixtures
	// written before shares were modelled keep working. A list, when
	// given, is not empty.
	SharedWithTenants []string `json:"sharedWithTenants,omitempty"`
}

// AuditEvent is an audit log event.
type AuditEvent struct {
	Time      time.Time      `json:"time"`
	EventName string         `json:"eventName"`
	UserEmail string         `json:"userEmail,omitempty"`
	Data      map[string]any `json:"data,omitempty"`
}

// LoadFixture reads a JSON fixture and checks it completely: shape, unique
// ids, references and enumerations. The error names the offending path.
func LoadFixture(r io.Reader) (*Fixture, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFixtureBytes+1))
	if err != nil {
		return nil, fmt.Errorf("emulator: reading fixture: %w", err)
	}
	if len(data) > maxFixtureBytes {
		return nil, fmt.Errorf("emulator: fixture larger than %d bytes", maxFixtureBytes)
	}
	return parseFixture(data)
}

func parseFixture(data []byte) (*Fixture, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("emulator: invalid fixture: empty")
	}
	var f Fixture
	if err := decodeStrict(data, &f); err != nil {
		msg := strings.Replace(err.Error(), "body", "fixture", 1)
		return nil, fmt.Errorf("emulator: invalid fixture: %s", msg)
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// DemoFixture returns a fresh copy of the built-in demo fixture: tenant
// "acme" with deployment 1 "Sales analytics" and dev-only API keys
// ek_dev_only_admin_all, ek_dev_only_admin_d1 and ek_dev_only_personal.
func DemoFixture() *Fixture {
	f, err := parseFixture(demoFixtureJSON)
	if err != nil {
		panic("emulator: built-in demo fixture is invalid: " + err.Error())
	}
	return f
}

// clone returns a deep copy of f.
func (f *Fixture) clone() *Fixture {
	data, err := json.Marshal(f)
	if err != nil {
		panic("emulator: fixture does not marshal: " + err.Error())
	}
	var c Fixture
	if err := json.Unmarshal(data, &c); err != nil {
		panic("emulator: fixture does not round-trip: " + err.Error())
	}
	return &c
}

var (
	tenantNamePattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,34}[a-z0-9]$`)
	imageVersionRE    = regexp.MustCompile(`^[^:\s]+:v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$`)
	attributeTypes    = map[string]bool{"string": true, "number": true, "boolean": true, "string_array": true, "number_array": true}
)

type fixtureChecker struct{ err error }

func (c *fixtureChecker) fail(path, format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("emulator: invalid fixture: %s: %s", path, fmt.Sprintf(format, args...))
	}
}

// validate checks the fixture's semantics (shape was checked on decode, or
// is guaranteed by the Go types when the fixture was built in code).
func (f *Fixture) validate() error {
	c := &fixtureChecker{}
	if !tenantNamePattern.MatchString(f.Tenant) {
		c.fail("tenant", "must match %s", tenantNamePattern)
	}
	if f.MaxExternalUsers < 0 {
		c.fail("maxExternalUsers", "must not be negative")
	}
	if f.MaxExportsInFlight < 0 {
		c.fail("maxExportsInFlight", "must not be negative")
	}
	if f.SessionExpiringLead != "" {
		switch d, err := time.ParseDuration(f.SessionExpiringLead); {
		case err != nil:
			c.fail("sessionExpiringLead", "must be a duration such as \"15m\"")
		case d < minSessionExpiringLead || d > maxSessionExpiringLead:
			c.fail("sessionExpiringLead", "must be between %s and %s", fmtLead(minSessionExpiringLead), fmtLead(maxSessionExpiringLead))
		}
	}
	users := map[string]bool{}
	for i, u := range f.Users {
		p := indexPath("users", i)
		switch {
		case u.Username == "":
			c.fail(p+".username", "is required")
		case users[u.Username]:
			c.fail(p+".username", "duplicate username %q", u.Username)
		}
		users[u.Username] = true
		for j, perm := range u.Permissions {
			if perm == "" {
				c.fail(indexPath(p+".permissions", j), "must not be empty")
			}
		}
	}
	deps := map[int64]bool{}
	for _, d := range f.Deployments {
		deps[d.ID] = true
	}
	keys := map[string]bool{}
	for i, k := range f.APIKeys {
		p := indexPath("apiKeys", i)
		validateKey(c, p, k, keys, users, deps)
	}
	groups := map[string]bool{}
	for i, g := range f.Groups {
		p := indexPath("groups", i)
		switch {
		case g == "":
			c.fail(p, "must not be empty")
		case groups[g]:
			c.fail(p, "duplicate group %q", g)
		}
		groups[g] = true
	}
	validateAttributes(c, "userAttributes", f.UserAttributes)
	tenants := map[string]bool{}
	for i, t := range f.EmbedTenants {
		p := indexPath("embedTenants", i)
		switch {
		case !tenantNamePattern.MatchString(t.Name):
			c.fail(p+".name", "must match %s", tenantNamePattern)
		case tenants[t.Name]:
			c.fail(p+".name", "duplicate embed tenant %q", t.Name)
		}
		tenants[t.Name] = true
		names := map[string]bool{}
		for j, g := range t.Groups {
			gp := indexPath(p+".groups", j)
			switch {
			case g.Name == "":
				c.fail(gp+".name", "is required")
			case names[g.Name]:
				c.fail(gp+".name", "duplicate group %q", g.Name)
			}
			names[g.Name] = true
		}
		validateAttributes(c, p+".userAttributes", t.UserAttributes)
	}
	seenDeps := map[int64]bool{}
	dashIDs := map[int64]bool{}
	publicIDs := map[string]bool{}
	for i, d := range f.Deployments {
		p := indexPath("deployments", i)
		switch {
		case d.ID <= 0:
			c.fail(p+".id", "must be a positive integer")
		case seenDeps[d.ID]:
			c.fail(p+".id", "duplicate deployment id %d", d.ID)
		}
		seenDeps[d.ID] = true
		if d.Name == "" {
			c.fail(p+".name", "is required")
		}
		if d.CreatedAt.IsZero() {
			c.fail(p+".createdAt", "is required")
		}
		validateEnvironments(c, p, d.Environments)
		validateBranches(c, p, d.Branches)
		validateVersions(c, p, d.Versions)
		for j, db := range d.Dashboards {
			dp := indexPath(p+".dashboards", j)
			switch {
			case db.ID <= 0:
				c.fail(dp+".id", "must be a positive integer")
			case dashIDs[db.ID]:
				c.fail(dp+".id", "duplicate dashboard id %d", db.ID)
			}
			dashIDs[db.ID] = true
			switch {
			case db.PublicID == "":
				c.fail(dp+".publicId", "is required")
			case publicIDs[db.PublicID]:
				c.fail(dp+".publicId", "duplicate publicId %q", db.PublicID)
			}
			publicIDs[db.PublicID] = true
			if db.Title == "" {
				c.fail(dp+".title", "is required")
			}
			if db.SharedWithTenants != nil && len(db.SharedWithTenants) == 0 {
				c.fail(dp+".sharedWithTenants", "must not be empty (leave it out for every embed tenant)")
			}
			for k, name := range db.SharedWithTenants {
				if !tenantNamePattern.MatchString(name) {
					c.fail(indexPath(dp+".sharedWithTenants", k), "must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$")
				}
			}
			for k, key := range db.RequiredSecurityContext {
				if strings.TrimSpace(key) == "" {
					c.fail(indexPath(dp+".requiredSecurityContext", k), "must be a security-context key, not empty")
				}
			}
			for k, m := range db.Managers {
				if !users[m] {
					c.fail(indexPath(dp+".managers", k), "unknown user %q", m)
				}
			}
		}
	}
	for i, e := range f.AuditEvents {
		p := indexPath("auditEvents", i)
		if e.Time.IsZero() {
			c.fail(p+".time", "is required")
		}
		if e.EventName == "" {
			c.fail(p+".eventName", "is required")
		}
	}
	return c.err
}

func validateKey(c *fixtureChecker, p string, k APIKey, keys, users map[string]bool, deps map[int64]bool) {
	switch {
	case k.Key == "":
		c.fail(p+".key", "is required")
	case strings.ContainsAny(k.Key, " \t\r\n"):
		c.fail(p+".key", "must not contain white space")
	case keys[k.Key]:
		c.fail(p+".key", "duplicate key")
	}
	keys[k.Key] = true
	if !users[k.User] {
		c.fail(p+".user", "unknown user %q", k.User)
	}
	for j, d := range k.Deployments {
		if !deps[d] {
			c.fail(indexPath(p+".deployments", j), "unknown deployment %d", d)
		}
	}
}

func validateAttributes(c *fixtureChecker, p string, attrs []AttributeDefinition) {
	names := map[string]bool{}
	for i, a := range attrs {
		ap := indexPath(p, i)
		switch {
		case a.Name == "":
			c.fail(ap+".name", "is required")
		case names[a.Name]:
			c.fail(ap+".name", "duplicate attribute %q", a.Name)
		}
		names[a.Name] = true
		if !attributeTypes[a.Type] {
			c.fail(ap+".type", "must be string, number, boolean, string_array or number_array")
		}
	}
}

func validateEnvironments(c *fixtureChecker, p string, envs []Environment) {
	ids := map[string]bool{}
	for j, e := range envs {
		ep := indexPath(p+".environments", j)
		switch {
		case e.ID == "":
			c.fail(ep+".id", "is required")
		case ids[e.ID]:
			c.fail(ep+".id", "duplicate environment id %q", e.ID)
		}
		ids[e.ID] = true
		if e.Name == "" {
			c.fail(ep+".name", "is required")
		}
		if e.Type != "production" && e.Type != "development" {
			c.fail(ep+".type", "must be production or development (staging environments come from branches)")
		}
		if !strings.HasPrefix(e.RestURL, "http://") && !strings.HasPrefix(e.RestURL, "https://") {
			c.fail(ep+".restUrl", "must be an absolute http or https URL")
		}
		if e.SQLPort < 0 || e.SQLPort > 65535 {
			c.fail(ep+".sqlPort", "must be between 0 and 65535")
		}
	}
}

func validateBranches(c *fixtureChecker, p string, branches []Branch) {
	ids := map[int64]bool{}
	names := map[string]bool{}
	production := 0
	for j, b := range branches {
		bp := indexPath(p+".branches", j)
		switch {
		case b.ID <= 0:
			c.fail(bp+".id", "must be a positive integer")
		case ids[b.ID]:
			c.fail(bp+".id", "duplicate branch id %d", b.ID)
		}
		ids[b.ID] = true
		switch {
		case b.Name == "":
			c.fail(bp+".name", "is required")
		case names[b.Name]:
			c.fail(bp+".name", "duplicate branch name %q", b.Name)
		}
		names[b.Name] = true
		switch b.Kind {
		case "production":
			production++
		case "shared", "personal":
		default:
			c.fail(bp+".kind", "must be production, shared or personal")
		}
		if b.StagingEnvironment && b.Kind != "shared" {
			c.fail(bp+".stagingEnvironment", "only a shared branch can have a staging environment")
		}
	}
	if len(branches) > 0 && production != 1 {
		c.fail(p+".branches", "must have exactly one production branch, has %d", production)
	}
}

func validateVersions(c *fixtureChecker, p string, versions []Version) {
	current := 0
	latest := map[string]int{}
	seen := map[string]bool{}
	for j, v := range versions {
		vp := indexPath(p+".versions", j)
		m := imageVersionRE.FindStringSubmatch(v.ReleaseChannelVersion)
		switch {
		case m == nil:
			c.fail(vp+".releaseChannelVersion", "must have the shape <image_repo>:v<semver>")
		case m[1] != v.Version:
			c.fail(vp+".version", "must be %q to match releaseChannelVersion", m[1])
		case seen[v.ReleaseChannelVersion]:
			c.fail(vp+".releaseChannelVersion", "duplicate version %q", v.ReleaseChannelVersion)
		}
		seen[v.ReleaseChannelVersion] = true
		if !slices.Contains(releaseChannels, v.ReleaseChannel) {
			c.fail(vp+".releaseChannel", "must be one of %s (the platform's channels), got %q", strings.Join(releaseChannels, ", "), v.ReleaseChannel)
		}
		if v.IsCurrent {
			current++
		}
		if v.IsLatestInChannel {
			latest[v.ReleaseChannel]++
		}
	}
	if len(versions) > 0 && current != 1 {
		c.fail(p+".versions", "must have exactly one current version, has %d", current)
	}
	for _, v := range versions {
		if latest[v.ReleaseChannel] != 1 {
			c.fail(p+".versions", "channel %q must have exactly one latest version, has %d", v.ReleaseChannel, latest[v.ReleaseChannel])
			break
		}
	}
}

// The lead of cube:event:session-expiring before the trust end: the
// emulator's choice, as the platform's documentation gives none. At least
// a minute, so that the event can precede the end on a page that polls
// every two seconds; at most 12 hours, half of the token's life.
const (
	defaultSessionExpiringLead = 10 * time.Minute
	minSessionExpiringLead     = time.Minute
	maxSessionExpiringLead     = 12 * time.Hour
)

// sessionExpiringLead is the fixture's SessionExpiringLead, or the
// default when it is empty. The fixture was validated.
func (f *Fixture) sessionExpiringLead() time.Duration {
	if d, err := time.ParseDuration(f.SessionExpiringLead); err == nil {
		return d
	}
	return defaultSessionExpiringLead
}

// fmtLead writes a whole number of minutes or hours as "1m" or "12h".
func fmtLead(d time.Duration) string {
	if d%time.Hour == 0 {
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	}
	return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
}

// formatID renders a numeric id the way list envelopes show it.
func formatID(id int64) string { return strconv.FormatInt(id, 10) }
