package emulator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// state is everything an emulated account holds. The Server guards it with
// its mutex; Reset swaps in a fresh one. Records reachable from a
// principal (users, keys) are never mutated after newState.
type state struct {
	fx *Fixture

	users    map[string]*userRec // by username
	userByID map[int64]*userRec
	keys     map[string]*keyRec // by key
	groups   map[string]bool
	attrs    map[string]*AttributeDefinition // tenant-wide catalog
	tenants  map[string]*tenantRec

	deployments map[int64]*deploymentRec
	dashboards  map[int64]*dashboardRec
	byPublicID  map[string]*dashboardRec
	audit       []AuditEvent

	external map[string]*externalUser // by externalId
	sessions map[string]*session      // by session id
	revoked  map[string]time.Time     // revoked token jti -> token expiry
	exports  map[string]*exportJob    // by job id

	nextTenantGroupID int64
	lastSweep         time.Time
	maxExternal       int
	maxExports        int
}

type userRec struct {
	id       int64
	username string
	email    string
	admin    bool
	active   bool
	perms    map[string]bool
}

type keyRec struct {
	user     *userRec
	scope    map[int64]bool // empty: every deployment
	personal bool
}

type tenantRec struct {
	name        string
	displayName string
	groups      map[string]*tenantGroupRec
	attrs       map[string]*AttributeDefinition
}

type tenantGroupRec struct {
	id          int64
	name        string
	description string
}

type deploymentRec struct {
	id        int64
	name      string
	createdAt time.Time
	envs      []Environment
	branches  []*branchRec
	versions  []Version // IsCurrent is kept up to date

	releaseChannelVersionHold bool
	templateVariables         map[string]any
	cloudProvider             *string
	region                    *string
	template                  *string
	defaultLaunchpadViewGroup *string
	launchpadTabs             []string
	creationMethod            *string
	deployMode                *string
}

type branchRec struct {
	Branch
	staging bool
}

type dashboardRec struct {
	Dashboard
	deploymentID int64
	managers     map[string]bool
}

// externalUser is an external (embed) user provisioned by generate-session
// or by an export rendered as an embed subject. One user, keyed by
// externalId, may sign in to several embed tenants: its tenant-group
// memberships are kept per embed tenant (rule 7) and its attribute values
// per catalog they were set in (rule 8), so that no session carries a
// membership or a value of another tenant's.
type externalUser struct {
	externalID   string
	email        string
	displayName  string
	picture      string
	groups       []string            // global groups
	tenantGroups map[string][]string // by embed tenant name
	attributes   map[string]map[string]any
}

// tenantWideCatalog is the key of the tenant-wide attribute catalog in
// externalUser.attributes; creatorCatalog(t) is the key of embed tenant
// t's own catalog. A tenant name never starts with ':', so they never
// collide.
const tenantWideCatalog = ""

func creatorCatalog(tenant string) string { return ":creator:" + tenant }

func newExternalUser(externalID string) *externalUser {
	return &externalUser{externalID: externalID, tenantGroups: map[string][]string{}, attributes: map[string]map[string]any{}}
}

// values returns the user's attribute values set in catalog, creating the
// map when create is true (nil otherwise when none are stored).
func (u *externalUser) values(catalog string, create bool) map[string]any {
	m := u.attributes[catalog]
	if m == nil && create {
		m = map[string]any{}
		u.attributes[catalog] = m
	}
	return m
}

func newState(f *Fixture, now time.Time) *state {
	st := &state{
		fx:          f,
		users:       map[string]*userRec{},
		userByID:    map[int64]*userRec{},
		keys:        map[string]*keyRec{},
		groups:      map[string]bool{},
		attrs:       map[string]*AttributeDefinition{},
		tenants:     map[string]*tenantRec{},
		deployments: map[int64]*deploymentRec{},
		dashboards:  map[int64]*dashboardRec{},
		byPublicID:  map[string]*dashboardRec{},
		external:    map[string]*externalUser{},
		sessions:    map[string]*session{},
		revoked:     map[string]time.Time{},
		exports:     map[string]*exportJob{},
		lastSweep:   now,
		maxExternal: f.MaxExternalUsers,
		maxExports:  f.MaxExportsInFlight,
	}
	if st.maxExternal == 0 {
		st.maxExternal = 10000
	}
	if st.maxExports == 0 {
		st.maxExports = 3
	}
	for i, u := range f.Users {
		rec := &userRec{
			id:       int64(i + 1),
			username: u.Username,
			email:    u.Email,
			admin:    u.Admin,
			active:   u.Active == nil || *u.Active,
			perms:    map[string]bool{},
		}
		for _, p := range u.Permissions {
			rec.perms[p] = true
		}
		st.users[u.Username] = rec
		st.userByID[rec.id] = rec
	}
	for _, g := range f.Groups {
		st.groups[g] = true
	}
	for _, a := range f.UserAttributes {
		a := a
		st.attrs[a.Name] = &a
	}
	st.tenant(f.Tenant)
	for _, t := range f.EmbedTenants {
		tr := st.tenant(t.Name)
		tr.displayName = t.DisplayName
		for _, g := range t.Groups {
			st.nextTenantGroupID++
			tr.groups[g.Name] = &tenantGroupRec{id: st.nextTenantGroupID, name: g.Name, description: g.Description}
		}
		for _, a := range t.UserAttributes {
			a := a
			tr.attrs[a.Name] = &a
		}
	}
	for _, d := range f.Deployments {
		dr := &deploymentRec{
			id:                d.ID,
			name:              d.Name,
			createdAt:         d.CreatedAt,
			envs:              d.Environments,
			versions:          d.Versions,
			templateVariables: map[string]any{},
		}
		for k, v := range d.TemplateVariables {
			dr.templateVariables[k] = v
		}
		production := ""
		for _, b := range d.Branches {
			if b.Kind == "production" {
				production = b.Name
			}
		}
		for _, b := range d.Branches {
			br := &branchRec{Branch: b, staging: b.StagingEnvironment}
			if br.ParentBranch == "" && b.Kind != "production" {
				br.ParentBranch = production
			}
			if br.LastHash == "" {
				br.LastHash = deriveHash(fmt.Sprintf("%d/%s", d.ID, b.Name))
			}
			dr.branches = append(dr.branches, br)
		}
		for _, db := range d.Dashboards {
			rec := &dashboardRec{Dashboard: db, deploymentID: d.ID, managers: map[string]bool{}}
			for _, m := range db.Managers {
				rec.managers[m] = true
			}
			st.dashboards[db.ID] = rec
			st.byPublicID[db.PublicID] = rec
		}
		st.deployments[d.ID] = dr
	}
	for _, k := range f.APIKeys {
		_ = st.addKey(k) // checked with the fixture
	}
	st.audit = append([]AuditEvent(nil), f.AuditEvents...)
	return st
}

// addKey adds an API key after the checks a fixture key gets.
func (st *state) addKey(k APIKey) error {
	if k.Key == "" {
		return fmt.Errorf("emulator: API key: key is required")
	}
	if _, dup := st.keys[k.Key]; dup {
		return fmt.Errorf("emulator: API key: duplicate key")
	}
	u, ok := st.users[k.User]
	if !ok {
		return fmt.Errorf("%w %q", errUnknownUser, k.User)
	}
	rec := &keyRec{user: u, scope: map[int64]bool{}, personal: k.Personal}
	for _, d := range k.Deployments {
		if _, ok := st.deployments[d]; !ok {
			return fmt.Errorf("emulator: API key: unknown deployment %d", d)
		}
		rec.scope[d] = true
	}
	st.keys[k.Key] = rec
	return nil
}

// tenant returns the embed tenant named name, creating it when missing.
func (st *state) tenant(name string) *tenantRec {
	t, ok := st.tenants[name]
	if !ok {
		t = &tenantRec{name: name, groups: map[string]*tenantGroupRec{}, attrs: map[string]*AttributeDefinition{}}
		st.tenants[name] = t
	}
	return t
}

// productionBranch returns the production branch name ("" without branches).
// deriveHash returns a stable 40-hex commit-like hash of s.
func deriveHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:20])
}

func (d *deploymentRec) productionBranch() string {
	for _, b := range d.branches {
		if b.Kind == "production" {
			return b.Name
		}
	}
	return ""
}

func (d *deploymentRec) branchByName(name string) *branchRec {
	for _, b := range d.branches {
		if b.Name == name {
			return b
		}
	}
	return nil
}

func (d *deploymentRec) branchByID(id int64) *branchRec {
	for _, b := range d.branches {
		if b.ID == id {
			return b
		}
	}
	return nil
}
