package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// Status is the outcome of one check.
type Status string

// The outcomes. Only Failed makes Report.Failed true.
const (
	// OK: nothing to do.
	OK Status = "ok"
	// Warning: embedding works, but something is likely to bite later or
	// is weaker than it should be.
	Warning Status = "warning"
	// Failed: viewers will see an error until it is fixed.
	Failed Status = "failed"
	// Skipped: the check could not run, because an earlier one failed or
	// its input (such as Config.HostURL) was not given.
	Skipped Status = "skipped"
)

// Check is one finding.
type Check struct {
	// ID names the check, stable across releases: config, api-key,
	// deployment, generate-session, groups, attributes, dashboard,
	// clock, host-page, frame-src, frame-ancestors, host-origin.
	ID string `json:"id"`
	// Subject is what a check of several is about: the target name of a
	// dashboard check. Empty otherwise.
	Subject string `json:"subject,omitempty"`
	Status  Status `json:"status"`
	// Detail says what was found.
	Detail string `json:"detail"`
	// Fix says what to do; empty when the status is OK.
	Fix string `json:"fix,omitempty"`
}

// Report is the result of Run.
type Report struct {
	// Config names the configuration checked and what of it the checks
	// read: its targets, groups, attributes and host origin.
	Config Summary `json:"config"`
	// Platform is the platform's origin, Deployment the deployment
	// checked, Host the host page checked (empty when none was given),
	// its password redacted (url.URL.Redacted).
	Platform   string  `json:"platform"`
	Deployment int64   `json:"deploymentId"`
	Host       string  `json:"host,omitempty"`
	Checks     []Check `json:"checks"`
}

// Failed reports whether any check failed.
func (r *Report) Failed() bool { return r.Count(Failed) > 0 }

// Count returns how many checks ended with s.
func (r *Report) Count(s Status) int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == s {
			n++
		}
	}
	return n
}

// Find returns the first check with id (and subject, when given).
func (r *Report) Find(id, subject string) (Check, bool) {
	for _, c := range r.Checks {
		if c.ID == id && (subject == "" || c.Subject == subject) {
			return c, true
		}
	}
	return Check{}, false
}

// WriteText writes the report for a person: the configuration checked,
// one line a check, its fix under it, and a summary line.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "embedkit doctor: platform %s, deployment %d", r.Platform, r.Deployment)
	if r.Host != "" {
		fmt.Fprintf(&b, ", host %s", r.Host)
	}
	b.WriteString("\n")
	r.Config.writeText(&b)
	b.WriteString("\n")
	names := make([]string, len(r.Checks))
	width := 0
	for i, c := range r.Checks {
		names[i] = strings.TrimSpace(c.ID + " " + c.Subject)
		width = max(width, len(names[i]))
	}
	for i, c := range r.Checks {
		fmt.Fprintf(&b, "  %-8s %-*s  %s\n", c.Status, width, names[i], c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(&b, "  %-8s %-*s  fix: %s\n", "", width, "", c.Fix)
		}
	}
	fmt.Fprintf(&b, "\n%d ok, %d warning, %d failed, %d skipped\n", r.Count(OK), r.Count(Warning), r.Count(Failed), r.Count(Skipped))
	_, err := io.WriteString(w, b.String())
	return err
}

// Config is what Run checks.
type Config struct {
	// Name names the configuration in the report: the app, and the
	// instance or environment when there are several ("billing, staging").
	// Empty reads "(unnamed: set doctor.Config.Name)".
	Name string
	// Kit is the Config the host gives middleware.New: the platform URL,
	// Policy, Targets, Origins.Host and paths are read from it, so the
	// doctor and the app cannot disagree. Identity and Store may be nil
	// (the doctor mints through the client, never through the kit).
	Kit middleware.Config
	// Client calls the platform. Nil means Kit.Platform, which must then
	// be an *embedkit.Client.
	Client *embedkit.Client
	// HostURL, when set, is an absolute URL of a host page that embeds
	// (the page, not the frame endpoint): its Content-Security-Policy is
	// read, and the host app is asked whether it sees the origin browsers
	// use. Empty skips the host checks.
	HostURL string
	// HTTPClient requests the host page. Nil means a client with a 10 s
	// timeout that follows up to 5 redirects within the page's origin.
	HTTPClient *http.Client
	// ProbeExternalID is the external user the doctor mints its probe
	// sessions for. Empty means "embedkit-doctor". The platform upserts
	// it like any external user (it counts toward the account's external
	// user limit once), and each probe sets its groups and clears the
	// probed attributes; use an id no real viewer has.
	ProbeExternalID string
	// HostHeader holds headers sent with the GET of the host page only,
	// such as the Cookie of a signed-in test user, so that a page behind
	// a sign-in can be checked rather than the sign-in page a redirect
	// lands on. They are never written to a report.
	HostHeader http.Header
	// Sources names where the app reads a setting from, by field path,
	// for the fix texts: {"APIKey": "BILLING_PLATFORM_KEY",
	// "Policy.DeploymentID": "BILLING_DEPLOYMENT"} makes a fix read "set
	// Policy.DeploymentID (BILLING_DEPLOYMENT) to ...". The paths read are
	// APIKey, PlatformURL, Policy.DeploymentID and Origins.Host. Nil names
	// the fields only.
	Sources map[string]string
	// Now is the clock the skew is measured with. Nil means time.Now.
	Now func() time.Time
}

// field names a setting in a fix text: its Config field path, and where
// the app reads it from when Config.Sources says.
func (d *run) field(path string) string {
	if src := d.cfg.Sources[path]; src != "" {
		return path + " (" + src + ")"
	}
	return path
}

// DefaultProbeExternalID is the external user of the probe sessions.
const DefaultProbeExternalID = "embedkit-doctor"

// Clock skew limits: past SkewWarning the check warns, past SkewFail it
// fails (a session id has 5 minutes to be exchanged, measured by the
// platform's clock, and the kit records its expiry by this machine's).
const (
	SkewWarning = 10 * time.Second
	SkewFail    = time.Minute
)

// Run checks cfg against the platform and, when cfg.HostURL is set, the
// host app, and returns every finding. It mints probe sessions for
// cfg.ProbeExternalID with the groups, attributes, tenant, branch,
// security context, settings and theme the Policy sends, exchanges one
// for an embed token to ask about each dashboard target, and revokes
// every session it minted before it returns. The error is for a Config
// Run cannot use at all (no client); everything else is a Check.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	c := cfg.Client
	if c == nil {
		pc, ok := cfg.Kit.Platform.(*embedkit.Client)
		if !ok {
			return nil, errors.New("doctor: Config.Client is required when Config.Kit.Platform is not an *embedkit.Client")
		}
		c = pc
	}
	d := &run{cfg: cfg, client: c, now: cfg.Now, probeID: cfg.ProbeExternalID}
	if d.now == nil {
		d.now = time.Now
	}
	if d.probeID == "" {
		d.probeID = DefaultProbeExternalID
	}
	d.report = &Report{Config: summarize(cfg), Deployment: cfg.Kit.Policy.DeploymentID}
	if cfg.HostURL != "" {
		d.report.Host = redactURL(cfg.HostURL)
	}
	if u, err := embedkit.ParseBaseURL(cfg.Kit.PlatformURL); err == nil {
		d.report.Platform = u.Scheme + "://" + u.Host
	} else {
		d.report.Platform = "(invalid PlatformURL)"
	}
	defer d.revokeAll()

	// A check that cannot run is reported as skipped, with the reason,
	// rather than left out.
	kitOK := d.checkConfig()
	why := ""
	switch {
	case !kitOK:
		why = "the kit's Config is not valid (see config)"
		d.skip("api-key", "", why)
		d.skip("deployment", "", why)
	case !d.checkAPIKey(ctx):
		why = "the platform refused or did not answer the API key check (see api-key)"
		d.skip("deployment", "", why)
	case !d.checkDeployment(ctx):
		why = "the deployment check failed (see deployment)"
	}
	if why == "" {
		d.checkSession(ctx)
	} else {
		d.noToken = why
		d.skip("generate-session", "", why)
		d.skip("groups", "", why)
		d.skip("attributes", "", why)
	}
	d.checkDashboards(ctx)
	d.checkClock()
	switch {
	case cfg.HostURL == "":
		why := "no host page given (Config.HostURL)"
		d.skip("host-page", "", why)
		d.skipPageChecks(why)
		d.checkConfiguredOrigin()
	case !kitOK:
		why := "the kit's Config is not valid (see config)"
		d.skip("host-page", "", why)
		d.skipPageChecks(why)
		d.skip("host-origin", "", why)
	default:
		d.checkHost(ctx)
	}
	return d.report, nil
}

// checkConfiguredOrigin judges Origins.Host without a host page to compare
// it with: set, it is reported; unset, the kit names each request's Host
// to the platform, which a proxy that rewrites Host or ends TLS makes
// wrong.
func (d *run) checkConfiguredOrigin() {
	if ho := strings.TrimSuffix(d.cfg.Kit.Origins.Host, "/"); ho != "" {
		d.add(Check{ID: "host-origin", Status: OK, Detail: "Origins.Host is " + ho + " (not compared with a page: no host page given)"})
		return
	}
	d.add(Check{ID: "host-origin", Status: Warning,
		Detail: "Origins.Host is unset: the kit names each request's Host to the platform as the host page's origin, and behind a proxy that rewrites Host or terminates TLS that is not the origin browsers use",
		Fix:    "set " + d.field("Origins.Host") + " to the origin browsers use, such as https://app.example.com (the production setting); give a host page to check the derived origin instead"})
}

// run is the state of one Run.
type run struct {
	cfg     Config
	client  *embedkit.Client
	kit     *middleware.Kit
	now     func() time.Time
	probeID string
	report  *Report

	// minted are the probe sessions, all revoked when Run returns.
	minted []string
	// noToken says why there is no probe token for the dashboard checks.
	noToken string
	// token is the embed token of a probe session without the probed
	// groups and attributes, for the dashboard checks; nil when none
	// could be minted.
	token *embedkit.EmbedToken
	// skew is the platform's clock minus this machine's, measured on the
	// first answer with a Date header; skewKnown says whether it was.
	skew      time.Duration
	skewSlack time.Duration
	skewKnown bool
}

func (d *run) add(c Check) { d.report.Checks = append(d.report.Checks, c) }

func (d *run) skip(id, subject, why string) {
	d.add(Check{ID: id, Subject: subject, Status: Skipped, Detail: why})
}

// checkConfig builds a Kit from the Config the host gives the middleware:
// the same rules, the same error.
func (d *run) checkConfig() bool {
	kc := d.cfg.Kit
	if kc.Identity == nil {
		kc.Identity = middleware.IdentityFunc(func(*http.Request) (*middleware.Viewer, error) { return nil, middleware.ErrNoViewer })
	}
	if kc.Store == nil {
		kc.Store = noStore{}
	}
	kit, err := middleware.New(kc)
	if err != nil {
		d.add(Check{ID: "config", Status: Failed, Detail: err.Error(), Fix: "correct the field the error names in the app's middleware.Config"})
		return false
	}
	d.kit = kit
	d.add(Check{ID: "config", Status: OK, Detail: fmt.Sprintf("middleware.New accepts the Config: %d targets, platform %s", len(kc.Targets), kit.PlatformOrigin())})
	return true
}

// noStore stands in for the host's store: the doctor never mints through
// the kit.
type noStore struct{}

func (noStore) Add(context.Context, string, middleware.Minted) error {
	return errors.New("doctor: the doctor's kit keeps no sessions")
}
func (noStore) Take(context.Context, string) ([]middleware.Minted, error) { return nil, nil }

// checkAPIKey lists the deployments the key sees, and reads the platform's
// clock from the answer.
func (d *run) checkAPIKey(ctx context.Context) bool {
	req, err := d.client.NewRequest(ctx, http.MethodGet, "/api/v1/deployments?limit=1", nil)
	if err != nil {
		d.add(Check{ID: "api-key", Status: Failed, Detail: err.Error()})
		return false
	}
	before, start := d.now(), time.Now()
	resp, err := d.client.Do(req, io.Discard)
	rtt := time.Since(start)
	if resp != nil {
		d.readDate(resp.Header.Get("Date"), before, rtt)
	}
	switch {
	case errors.Is(err, embedkit.ErrUnauthorized):
		d.add(Check{ID: "api-key", Status: Failed, Detail: "the platform refused the API key (401): it is missing, malformed, expired or rotated",
			Fix: "create an API key of an admin user in the platform's account settings and give it to the app's client (" + d.field("APIKey") + ")"})
		return false
	case err != nil:
		d.add(Check{ID: "api-key", Status: Failed, Detail: "listing deployments failed: " + err.Error(),
			Fix: "check " + d.field("PlatformURL") + " and that this machine reaches the platform"})
		return false
	}
	d.add(Check{ID: "api-key", Status: OK, Detail: "the platform accepts the API key"})
	return true
}

// checkDeployment finds the Policy's deployment among those the key
// lists, and asks for its environments, which a key scoped to other
// deployments is refused (403).
func (d *run) checkDeployment(ctx context.Context) bool {
	id := d.cfg.Kit.Policy.DeploymentID
	name, found, seen := "", false, 0
	for dep, err := range d.client.Deployments(ctx) {
		if err != nil {
			d.add(Check{ID: "deployment", Status: Failed, Detail: "listing deployments failed: " + err.Error()})
			return false
		}
		seen++
		if dep.ID == id {
			name, found = dep.Name, true
			break
		}
	}
	if !found {
		d.add(Check{ID: "deployment", Status: Failed,
			Detail: fmt.Sprintf("deployment %d is not among the %d deployments this API key lists: the id is wrong, or the key's user or scope does not include it", id, seen),
			Fix:    "set " + d.field("Policy.DeploymentID") + " to the id in the deployment's URL, or use a key whose user and scope include it"})
		return false
	}
	_, err := d.client.ListEnvironments(ctx, id, embedkit.EnvironmentListOptions{})
	switch {
	case errors.Is(err, embedkit.ErrForbidden):
		d.add(Check{ID: "deployment", Status: Failed,
			Detail: fmt.Sprintf("the API key is refused for deployment %d (%s) (403): it is scoped to other deployments", id, name),
			Fix:    "use a key whose scope includes this deployment, or an unscoped key"})
		return false
	case err != nil:
		d.add(Check{ID: "deployment", Status: Failed, Detail: fmt.Sprintf("reading deployment %d failed: %v", id, err)})
		return false
	}
	d.add(Check{ID: "deployment", Status: OK, Detail: fmt.Sprintf("the key reaches deployment %d (%s)", id, name)})
	return true
}

// readDate measures the skew from an answer's Date header, sent between
// before and before+rtt. Date has a resolution of one second.
func (d *run) readDate(date string, before time.Time, rtt time.Duration) {
	if d.skewKnown || date == "" {
		return
	}
	t, err := http.ParseTime(date)
	if err != nil {
		return
	}
	local := before.Add(rtt / 2) // this machine's time midway through the call
	d.skew = t.Sub(local)
	d.skewSlack = rtt/2 + time.Second
	d.skewKnown = true
}

func (d *run) checkClock() {
	if !d.skewKnown {
		d.skip("clock", "", "no platform answer carried a Date header")
		return
	}
	// The Date header is whole seconds: only what exceeds the slack counts.
	abs := time.Duration(math.Abs(float64(d.skew)))
	excess := max(abs-d.skewSlack, 0)
	dir := "ahead of"
	if d.skew < 0 {
		dir = "behind"
	}
	detail := fmt.Sprintf("the platform's clock is %s %s this machine's (±%s)", abs.Round(time.Second), dir, d.skewSlack.Round(100*time.Millisecond))
	if excess == 0 {
		detail = fmt.Sprintf("the platform's clock agrees with this machine's (within ±%s, the Date header's precision and half the round trip)", d.skewSlack.Round(100*time.Millisecond))
	}
	switch {
	case excess > SkewFail:
		d.add(Check{ID: "clock", Status: Failed, Detail: detail,
			Fix: "synchronise this machine's clock (NTP): a session id has 5 minutes to be used, by the platform's clock"})
	case excess > SkewWarning:
		d.add(Check{ID: "clock", Status: Warning, Detail: detail, Fix: "synchronise this machine's clock (NTP)"})
	default:
		d.add(Check{ID: "clock", Status: OK, Detail: detail})
	}
}

// probeGroups are the platform groups the Policy can send, and whether
// that set is known.
func probeGroups(p middleware.Policy) (groups []string, known bool) {
	if p.Groups.Allowed == nil {
		for _, g := range p.Groups.Map {
			if g != "" {
				groups = append(groups, g)
			}
		}
		slices.Sort(groups)
		return slices.Compact(groups), false
	}
	groups = slices.Clone(p.Groups.Allowed)
	slices.Sort(groups)
	return slices.Compact(groups), true
}

// baseRequest is a probe request with everything of the Policy that does
// not depend on a viewer.
func (d *run) baseRequest() *embedkit.GenerateSessionRequest {
	p := d.cfg.Kit.Policy
	req := &embedkit.GenerateSessionRequest{
		DeploymentID:    p.DeploymentID,
		ExternalID:      d.probeID,
		EmbedTenantName: p.Tenants.Default,
		SecurityContext: p.SecurityContext,
		Settings:        p.Settings,
		EmbedTheme:      p.Theme,
		BranchName:      p.BranchName,
	}
	return req
}

// mint generates a probe session and remembers it for revocation.
func (d *run) mint(ctx context.Context, req *embedkit.GenerateSessionRequest) (*embedkit.Session, error) {
	s, err := d.client.GenerateSession(ctx, req)
	if err == nil {
		d.minted = append(d.minted, s.SessionID)
	}
	return s, err
}

// revokeAll revokes every probe session, exchanged or not.
func (d *run) revokeAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, id := range d.minted {
		_ = d.client.RevokeSession(ctx, id) // idempotent; an id left over expires in 5 minutes
	}
}

// checkSession mints a plain probe session (the Policy's tenant, branch,
// security context, settings and theme), then one with the groups and one
// with the attributes the Policy can send.
func (d *run) checkSession(ctx context.Context) {
	s, err := d.mint(ctx, d.baseRequest())
	if err != nil {
		d.add(sessionFailure(err))
		d.noToken = "generate-session failed (see generate-session)"
		d.skip("groups", "", d.noToken)
		d.skip("attributes", "", d.noToken)
		return
	}
	d.add(Check{ID: "generate-session", Status: OK, Detail: fmt.Sprintf("the key mints embed sessions for deployment %d (probe user %q)", d.cfg.Kit.Policy.DeploymentID, d.probeID)})
	tok, err := d.client.ExchangeSession(ctx, s.SessionID)
	if err != nil {
		d.add(Check{ID: "generate-session", Subject: "exchange", Status: Failed, Detail: "exchanging the probe session failed: " + err.Error()})
		d.noToken = "the probe session could not be exchanged (see generate-session exchange)"
	} else {
		d.token = tok
	}
	d.checkGroups(ctx)
	d.checkAttributes(ctx)
}

// sessionFailure explains a failed probe mint.
func sessionFailure(err error) Check {
	c := Check{ID: "generate-session", Status: Failed, Detail: err.Error()}
	var ve *embedkit.ValidationError
	switch {
	case errors.As(err, &ve):
		c.Fix = "the Policy's static fields (tenant, branch, security context, settings, theme) break a rule of the platform: correct the field named"
	case errors.Is(err, embedkit.ErrForbidden):
		c.Fix = "turn on embedding for the account, and use the API key of an admin user (not a personal key) whose scope includes the deployment"
	case errors.Is(err, embedkit.ErrNotFound):
		c.Fix = "Policy.BranchName names no branch of the deployment"
	default:
		c.Fix = "read the platform's message above; Policy.BranchName must name a branch someone has open or with its staging environment enabled"
	}
	return c
}

func (d *run) checkGroups(ctx context.Context) {
	p := d.cfg.Kit.Policy
	if p.Groups.KeepPlatform {
		d.skip("groups", "", "Policy.Groups.KeepPlatform: the kit sends no groups")
		return
	}
	groups, known := probeGroups(p)
	if len(groups) == 0 {
		if known {
			d.add(Check{ID: "groups", Status: OK, Detail: "Policy.Groups.Allowed is empty: viewers are sent with no groups"})
		} else {
			d.add(Check{ID: "groups", Status: Warning, Detail: "Policy.Groups.Allowed is nil: every host group is sent as it is, and one the platform does not know fails that viewer's embeds",
				Fix: "list the platform groups viewers may have in Policy.Groups.Allowed"})
		}
		return
	}
	req := d.baseRequest()
	req.Groups = groups
	_, err := d.mint(ctx, req)
	var gnf *embedkit.GroupsNotFoundError
	switch {
	case errors.As(err, &gnf):
		d.add(Check{ID: "groups", Status: Failed, Detail: "the platform has no groups named " + strings.Join(gnf.Names, ", "),
			Fix: "create them on the platform, or remove them from Policy.Groups.Allowed and Policy.Groups.Map"})
	case err != nil:
		d.add(Check{ID: "groups", Status: Failed, Detail: "a session with the Policy's groups failed: " + err.Error()})
	case known:
		d.add(Check{ID: "groups", Status: OK, Detail: fmt.Sprintf("the platform knows every group of Policy.Groups.Allowed (%s)", strings.Join(groups, ", "))})
	default:
		d.add(Check{ID: "groups", Status: Warning, Detail: fmt.Sprintf("the platform knows the groups of Policy.Groups.Map (%s), but Policy.Groups.Allowed is nil: other host groups are sent as they are", strings.Join(groups, ", ")),
			Fix: "list the platform groups viewers may have in Policy.Groups.Allowed"})
	}
}

// checkAttributes sends each allowed attribute with a null value (which
// clears it on the probe user): an unknown name fails with "User
// attributes not found", which names none, so each is tried alone when
// the whole set fails.
func (d *run) checkAttributes(ctx context.Context) {
	names := d.cfg.Kit.Policy.Attributes.Allowed
	switch {
	case names == nil:
		d.add(Check{ID: "attributes", Status: Warning, Detail: "Policy.Attributes.Allowed is nil: every attribute of a viewer is sent, and one the platform does not know fails that viewer's embeds",
			Fix: "list the user attributes defined on the platform in Policy.Attributes.Allowed"})
		return
	case len(names) == 0:
		d.add(Check{ID: "attributes", Status: OK, Detail: "Policy.Attributes.Allowed is empty: no attributes are sent"})
		return
	}
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	try := func(ns []string) error {
		req := d.baseRequest()
		for _, n := range ns {
			req.UserAttributes = append(req.UserAttributes, embedkit.UserAttributeInput{Name: n})
		}
		_, err := d.mint(ctx, req)
		return err
	}
	err := try(names)
	if err == nil {
		d.add(Check{ID: "attributes", Status: OK, Detail: fmt.Sprintf("the platform's catalog defines every attribute of Policy.Attributes.Allowed (%s)", strings.Join(names, ", "))})
		return
	}
	if !errors.Is(err, embedkit.ErrUserAttributesNotFound) {
		d.add(Check{ID: "attributes", Status: Failed, Detail: "a session with the Policy's attributes failed: " + err.Error()})
		return
	}
	var missing []string
	for _, n := range names {
		if err := try([]string{n}); errors.Is(err, embedkit.ErrUserAttributesNotFound) {
			missing = append(missing, n)
		}
	}
	detail := "the platform's attribute catalog has none named " + strings.Join(missing, ", ")
	if len(missing) == 0 {
		detail = "the platform refused the attributes together but accepted each alone"
	}
	d.add(Check{ID: "attributes", Status: Failed, Detail: detail,
		Fix: "define them in the platform's user attributes, or remove them from Policy.Attributes.Allowed (creator-mode viewers use their embed tenant's own catalog)"})
}

// checkDashboards asks the platform about each dashboard target with the
// probe session's embed token.
func (d *run) checkDashboards(ctx context.Context) {
	names := slices.Sorted(maps.Keys(d.cfg.Kit.Targets))
	for _, name := range names {
		t := d.cfg.Kit.Targets[name]
		if t.Kind != middleware.KindDashboard {
			continue
		}
		if d.token == nil {
			d.skip("dashboard", name, "no probe session to ask with: "+d.noToken)
			continue
		}
		err := d.client.CheckEmbedDashboard(ctx, d.token, t.PublicID)
		var ae *embedkit.APIError
		switch {
		case err == nil:
			d.add(Check{ID: "dashboard", Subject: name, Status: OK, Detail: fmt.Sprintf("dashboard %s can be embedded", t.PublicID)})
		case errors.As(err, &ae) && ae.StatusCode == http.StatusForbidden:
			d.add(Check{ID: "dashboard", Subject: name, Status: Failed, Detail: fmt.Sprintf("dashboard %s does not allow signed embedding (403)", t.PublicID),
				Fix: fmt.Sprintf("turn on \"Allow signed embedding\" in the dashboard's settings, or run: cube embed enable-dashboard %s", t.PublicID)})
		case errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound:
			d.add(Check{ID: "dashboard", Subject: name, Status: Failed, Detail: fmt.Sprintf("deployment %d has no published dashboard %s (404)", d.cfg.Kit.Policy.DeploymentID, t.PublicID),
				Fix: "publish the dashboard, or correct the target's PublicID"})
		default:
			d.add(Check{ID: "dashboard", Subject: name, Status: Failed, Detail: fmt.Sprintf("asking about dashboard %s failed: %v", t.PublicID, err)})
		}
	}
	if d.cfg.Kit.AllowAnyDashboard {
		d.add(Check{ID: "dashboard", Subject: "(any)", Status: Warning, Detail: "AllowAnyDashboard lets the browser choose any dashboard id; only the named targets were checked",
			Fix: "register the dashboards viewers may open as Targets, unless any published dashboard is meant to be open to every viewer"})
	}
}
