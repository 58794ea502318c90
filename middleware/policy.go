package middleware

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/embedkit/embedkit/embedkit"
)

// ErrDenied is returned when the Policy refuses a viewer a target, for
// example the creator-mode app for a tenant not allowed creator mode. A
// Policy.Customize hook returns an error wrapping it to refuse; handlers
// answer 403.
var ErrDenied = errors.New("middleware: not allowed for this viewer")

// ErrMisconfigured wraps every error that comes from the host's own
// setup rather than from the viewer or the platform: a Policy that
// produces an invalid request, a failing SecurityContextFunc. Handlers
// answer 500 with a plain page and log the cause; nothing is sent to the
// platform.
var ErrMisconfigured = errors.New("middleware: embedding is misconfigured")

// Policy turns a Viewer into the generate-session request for a target.
// Only DeploymentID is required. The zero values pass the viewer through
// as the Identity gives it: Groups.Allowed and Attributes.Allowed nil send
// every group and attribute the viewer has (the platform refuses the
// whole session for one it does not know), the email, name and picture
// are sent, and no security context is added. Nothing is limited until
// you list, in Groups.Allowed and Attributes.Allowed, what the platform
// defines (an empty list sends none); embedkit doctor warns while they
// are nil. The other zero values add nothing: no creator mode, no
// settings or theme beyond the platform's defaults. Its options come in
// groups, as Config's do:
// Groups, Attributes, Tenants and Profile decide what of the viewer
// reaches the platform; SecurityContext, Settings and Theme are the
// defaults of every session; the hooks run per request.
//
// Which wins: the Policy gives every session its defaults; a Target
// overrides them for its embed (its SecurityContext adds keys over the
// Policy's, its Settings override key by key, its Theme replaces the
// Policy's); at request time SecurityContextFunc adds keys over both,
// and Customize, last, may change anything. What is set closer to the
// request applies later and wins.
//
// Nothing a browser sends reaches the request: the Viewer comes from the
// Identity, the Target from the host's registry or the host's own handler
// (Kit.FrameFunc).
//
// The hooks receive the request being served, so an embed can be scoped by
// the host's own route (r.PathValue("project")) or request context. Read
// from r only what the host's own code put there or checked: the route a
// handler authorized, values its middleware stored in the context. A query
// parameter or header is the browser's choice, never a scope.
type Policy struct {
	// DeploymentID is the deployment every session is for. Required.
	DeploymentID int64
	// BranchName, when set, makes the sessions query that branch's data
	// model instead of production.
	BranchName string

	// Groups decides which of the viewer's groups reach the platform.
	Groups GroupOptions
	// Attributes decides which of the viewer's attributes reach the
	// platform.
	Attributes AttributeOptions
	// Tenants decides the viewer's embed tenant and creator mode.
	Tenants TenantOptions
	// Profile decides which of the viewer's profile fields reach the
	// platform.
	Profile ProfileOptions

	// SecurityContext is passed to the platform's data queries for every
	// viewer. A Target's SecurityContext adds keys over it.
	SecurityContext map[string]any
	// SecurityContextFunc, when set, adds viewer- and request-specific
	// keys over SecurityContext and the Target's. An error fails the mint
	// as ErrMisconfigured; an error wrapping ErrDenied refuses the viewer
	// (403).
	SecurityContextFunc func(r *http.Request, v *Viewer) (map[string]any, error)

	// Settings are the default session settings; a Target's Settings
	// override them key by key.
	Settings *embedkit.EmbedSessionSettings
	// Theme is the default embed theme; a Target's Theme replaces it.
	Theme *embedkit.EmbedTheme

	// Customize, when set, runs last and may change the request. An error
	// wrapping ErrDenied refuses the viewer (403); any other error is a
	// misconfiguration (500).
	Customize func(r *http.Request, v *Viewer, t Target, req *embedkit.GenerateSessionRequest) error
	// CustomizeIgnoresTarget declares that Customize reads nothing of its
	// Target argument: for one viewer and request it changes the request
	// alike whatever the target. Only then can the kit tell that two
	// targets mint the same request, so that a frame may move between
	// them in place (HostSettings.Targets); with Customize set and this
	// false, every change of target loads a new frame, which mints.
	CustomizeIgnoresTarget bool
}

// GroupOptions decide which of a viewer's groups reach the platform
// (Policy.Groups).
type GroupOptions struct {
	// Map renames host groups to platform groups before the allow-list
	// applies. A host group mapped to "" is dropped; a host group not in
	// the map keeps its name.
	Map map[string]string
	// Allowed lists the platform groups that may be sent. nil sends every
	// (renamed) group as is; an empty non-nil slice sends none. The
	// platform fails the whole request for a group it does not know, so
	// list here the groups that exist on it.
	Allowed []string
	// KeepPlatform leaves the groups field out of the request, so the
	// platform keeps whatever memberships the user has there (for
	// accounts whose groups are managed elsewhere). By default the kit
	// sends the viewer's mapped groups on every mint, an empty list
	// included, so a user who left a group at the host leaves it on the
	// platform too.
	KeepPlatform bool
}

// AttributeOptions decide which of a viewer's user attributes reach the
// platform (Policy.Attributes).
type AttributeOptions struct {
	// Allowed lists the user attributes that may be sent, with the same
	// rule as GroupOptions.Allowed: nil sends all of the viewer's
	// attributes, an empty non-nil slice none. Attributes are sent sorted
	// by name.
	Allowed []string
}

// TenantOptions decide a viewer's embed tenant and creator mode
// (Policy.Tenants).
type TenantOptions struct {
	// Default is the embed tenant of a viewer whose Tenant is empty.
	// Empty means the account's current tenant.
	Default string
	// Creator are the embed tenants whose viewers may get creator-mode
	// sessions: always for an app target, and for other targets when
	// Viewer.CreatorMode is set. Anyone else gets a viewer-mode session,
	// or ErrDenied for an app target.
	Creator []string
	// Groups, when set, names the embed-tenant groups a creator-mode
	// viewer is put in (shown in the creator-mode UI for sharing).
	Groups func(r *http.Request, v *Viewer) []string
	// DefineGroups also sends a definition for each of those groups, so
	// the platform creates any that are missing.
	DefineGroups bool
}

// ProfileOptions decide which of a viewer's profile fields reach the
// platform (Policy.Profile).
type ProfileOptions struct {
	// OmitEmail leaves the viewer's email out of the request. An email
	// that is not an address (embedkit.IsEmailAddress) is always left out,
	// and the viewer minted without it: the platform states no format for
	// it, but attaches it to the user as their address.
	OmitEmail bool
	// OmitNameAndPicture leaves the viewer's display name and picture
	// out. A picture the platform would refuse (embedkit.IsPictureURL: an
	// absolute http or https URL of at most 2048 bytes) is always left
	// out, and the viewer minted without it.
	OmitNameAndPicture bool
}

// check reports the first thing wrong with the static part of p.
func (p *Policy) check() error {
	if p.DeploymentID <= 0 {
		return errors.New("middleware: Config.Policy.DeploymentID is required (the deployment to embed)")
	}
	if p.Tenants.Default != "" && !embedkit.IsTenantName(p.Tenants.Default) {
		return fmt.Errorf("middleware: Config.Policy.Tenants.Default %q must match %s", p.Tenants.Default, embedkit.TenantNameRule)
	}
	for i, t := range p.Tenants.Creator {
		if !embedkit.IsTenantName(t) {
			return fmt.Errorf("middleware: Config.Policy.Tenants.Creator[%d] %q must match %s", i, t, embedkit.TenantNameRule)
		}
	}
	return nil
}

// Request builds the generate-session request for viewer v and target t,
// in answer to r, and validates it. r is handed to the hooks; it may be
// nil outside a request, and the hooks then get nil. Errors wrap ErrDenied
// (the viewer may not have this target) or ErrMisconfigured (the host's
// setup produced an invalid request); the request is never sent by
// Request itself.
func (p *Policy) Request(r *http.Request, v *Viewer, t Target) (*embedkit.GenerateSessionRequest, error) {
	req, err := p.build(r, v, t)
	if err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMisconfigured, err)
	}
	return req, nil
}

// build is Request without the validation.
func (p *Policy) build(r *http.Request, v *Viewer, t Target) (*embedkit.GenerateSessionRequest, error) {
	if v == nil {
		return nil, fmt.Errorf("%w: no viewer", ErrMisconfigured)
	}
	req := &embedkit.GenerateSessionRequest{
		DeploymentID: p.DeploymentID,
		ExternalID:   embedkit.NormalizeExternalID(v.Subject),
		BranchName:   p.BranchName,
	}
	if !embedkit.ExternalIDCaseSafe(v.Subject) {
		// Left as given, for validation to refuse by name: lower-cased
		// it could be another user's id (the Kelvin sign U+212A becomes
		// "k").
		req.ExternalID = v.Subject
	}
	// An email or picture the platform would refuse is left out, never
	// sent to fail validation: the viewer is minted without it.
	if email := strings.TrimSpace(v.Email); !p.Profile.OmitEmail && embedkit.IsEmailAddress(email) {
		req.Email = email
	}
	if !p.Profile.OmitNameAndPicture {
		prof := embedkit.EmbedUserProfile{DisplayName: strings.TrimSpace(v.DisplayName)}
		if embedkit.IsPictureURL(v.Picture) {
			prof.Picture = v.Picture
		}
		if prof != (embedkit.EmbedUserProfile{}) {
			req.UserProfile = &prof
		}
	}

	if !p.Groups.KeepPlatform {
		req.Groups = p.groups(v.Groups)
	}
	req.UserAttributes = p.attributes(v.Attributes)

	tenant := strings.ToLower(strings.TrimSpace(v.Tenant))
	if tenant == "" {
		tenant = p.Tenants.Default
	}
	if tenant != "" && !embedkit.IsTenantName(tenant) {
		return nil, fmt.Errorf("%w: the viewer's tenant does not match %s", ErrMisconfigured, embedkit.TenantNameRule)
	}
	req.EmbedTenantName = tenant

	creatorAllowed := tenant != "" && slices.Contains(p.Tenants.Creator, tenant)
	switch {
	case t.Kind == KindApp && !creatorAllowed:
		return nil, fmt.Errorf("%w: the creator-mode app needs a tenant listed in Policy.Tenants.Creator", ErrDenied)
	case creatorAllowed && (t.Kind == KindApp || v.CreatorMode):
		on := true
		req.CreatorMode = &on
		if p.Tenants.Groups != nil {
			names := dedupe(p.Tenants.Groups(r, v))
			req.TenantGroups = names
			if p.Tenants.DefineGroups {
				for _, n := range names {
					req.TenantGroupDefinitions = append(req.TenantGroupDefinitions, embedkit.GroupDefinition{Name: n})
				}
			}
		}
	}

	sc, err := p.securityContext(r, v, t)
	if err != nil {
		return nil, err
	}
	req.SecurityContext = sc
	req.Settings = p.Settings.Merge(t.Settings)
	req.EmbedTheme = p.Theme
	if t.Theme != nil {
		req.EmbedTheme = t.Theme
	}

	if p.Customize != nil {
		if err := p.Customize(r, v, t, req); err != nil {
			if errors.Is(err, ErrDenied) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: Policy.Customize: %w", ErrMisconfigured, err)
		}
	}
	return req, nil
}

// groups maps host groups to the platform groups to send: renamed,
// allow-listed, deduplicated and sorted. The result is never nil, so an
// empty result clears memberships.
func (p *Policy) groups(host []string) []string {
	out := make([]string, 0, len(host))
	for _, g := range host {
		g = strings.TrimSpace(g)
		if to, ok := p.Groups.Map[g]; ok {
			g = to
		}
		if g == "" {
			continue
		}
		if p.Groups.Allowed != nil && !slices.Contains(p.Groups.Allowed, g) {
			continue
		}
		out = append(out, g)
	}
	return dedupe(out)
}

// attributes turns the viewer's attributes into the request's list,
// allow-listed and sorted by name.
func (p *Policy) attributes(attrs map[string]any) []embedkit.UserAttributeInput {
	if len(attrs) == 0 {
		return nil
	}
	// The names are sorted in a buffer on the stack for the usual handful.
	var buf [8]string
	names := buf[:0]
	for name := range attrs {
		if p.Attributes.Allowed == nil || slices.Contains(p.Attributes.Allowed, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	out := make([]embedkit.UserAttributeInput, len(names))
	for i, name := range names {
		out[i] = embedkit.UserAttributeInput{Name: name, Value: attrs[name]}
	}
	return out
}

// securityContext merges the Policy's, the Target's and the per-request
// security context, later keys winning, into a fresh map, or nil when all
// are empty.
func (p *Policy) securityContext(r *http.Request, v *Viewer, t Target) (map[string]any, error) {
	var extra map[string]any
	if p.SecurityContextFunc != nil {
		var err error
		extra, err = p.SecurityContextFunc(r, v)
		switch {
		case errors.Is(err, ErrDenied):
			return nil, err
		case err != nil:
			return nil, fmt.Errorf("%w: Policy.SecurityContextFunc: %w", ErrMisconfigured, err)
		}
	}
	n := len(p.SecurityContext) + len(t.SecurityContext) + len(extra)
	if n == 0 {
		return nil, nil
	}
	sc := make(map[string]any, n)
	maps.Copy(sc, p.SecurityContext)
	maps.Copy(sc, t.SecurityContext)
	maps.Copy(sc, extra)
	return sc, nil
}

// dedupe returns the sorted distinct non-empty names, never nil.
func dedupe(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
