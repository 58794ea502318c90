// The generate-session endpoint: its body, the platform's rules for it,
// and minting the session.

package emulator

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
)

type generateSessionBody struct {
	DeploymentID             *float64            `json:"deploymentId"`
	ExternalID               *string             `json:"externalId"`
	InternalID               *string             `json:"internalId"`
	Email                    *string             `json:"email"`
	UserProfile              *userProfileBody    `json:"userProfile"`
	EmbedTenantName          *string             `json:"embedTenantName"`
	EmbedTenantProfile       *tenantProfileBody  `json:"embedTenantProfile"`
	CreatorMode              *bool               `json:"creatorMode"`
	Groups                   *[]string           `json:"groups"`
	TenantGroups             *[]string           `json:"tenantGroups"`
	TenantGroupDefinitions   []groupDefinition   `json:"tenantGroupDefinitions"`
	GroupDefinitions         []groupDefinition   `json:"groupDefinitions"`
	UserAttributes           []attributeInput    `json:"userAttributes"`
	UserAttributeDefinitions []attributeDefInput `json:"userAttributeDefinitions"`
	SecurityContext          map[string]any      `json:"securityContext"`
	Settings                 *sessionSettings    `json:"settings"`
	EmbedTheme               *embedTheme         `json:"embedTheme"`
	IsEphemeral              *bool               `json:"isEphemeral"`
	PublicDashboardID        *string             `json:"publicDashboardId"`
	Roles                    []string            `json:"roles"`
	BranchName               *string             `json:"branchName"`
}

type userProfileBody struct {
	DisplayName *string `json:"displayName"`
	Picture     *string `json:"picture"`
}

type tenantProfileBody struct {
	DisplayName *string `json:"displayName"`
}

type groupDefinition struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
}

type attributeInput struct {
	Name  *string `json:"name"`
	Value any     `json:"value"`
}

type attributeDefInput struct {
	Name         *string `json:"name"`
	Type         *string `json:"type"`
	DisplayName  *string `json:"displayName"`
	DefaultValue *string `json:"defaultValue"`
	Description  *string `json:"description"`
}

type sessionSettings struct {
	AllowAI                     *bool   `json:"allowAi,omitempty"`
	ShowDashboardChat           *bool   `json:"showDashboardChat,omitempty"`
	ShowWorkbookChat            *bool   `json:"showWorkbookChat,omitempty"`
	ShowAIWidgets               *bool   `json:"showAiWidgets,omitempty"`
	AllowChatWorkspaceAuthoring *bool   `json:"allowChatWorkspaceAuthoring,omitempty"`
	ShowWorkbookShare           *bool   `json:"showWorkbookShare,omitempty"`
	ShowDashboardSettings       *bool   `json:"showDashboardSettings,omitempty"`
	ShowMemberNames             *bool   `json:"showMemberNames,omitempty"`
	ShowGroupByCube             *bool   `json:"showGroupByCube,omitempty"`
	Locale                      *string `json:"locale,omitempty"`
	Timezone                    *string `json:"timezone,omitempty"`
}

type embedTheme struct {
	PrimaryColor  *string            `json:"primaryColor,omitempty"`
	Font          *string            `json:"font,omitempty"`
	Chat          *embedThemeChat    `json:"chat,omitempty"`
	AnalyticsChat *embedThemeAnalyst `json:"analyticsChat,omitempty"`
}

type embedThemeChat struct {
	InputColor *string `json:"inputColor,omitempty"`
}

type embedThemeAnalyst struct {
	BackgroundColor *string             `json:"backgroundColor,omitempty"`
	ChatInput       *embedThemeInputBox `json:"chatInput,omitempty"`
}

type embedThemeInputBox struct {
	BackgroundColor *string `json:"backgroundColor,omitempty"`
	BorderColor     *string `json:"borderColor,omitempty"`
}

// toMap turns a settings or theme value into the map signed into the
// token (null members left out).
func toMap[T any](v *T) map[string]any {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil || len(m) == 0 {
		return nil
	}
	return m
}

func (s *Server) handleGenerateSession(w http.ResponseWriter, r *http.Request) {
	p, ok := s.authenticate(w, r, authOptions{apiKeyPrefix: true})
	if !ok {
		return
	}
	switch {
	case !s.embeddingEnabled():
		s.writeError(w, http.StatusForbidden, "embedding is not enabled for this tenant")
		return
	case !p.admin:
		s.writeError(w, http.StatusForbidden, "session generation needs an admin principal")
		return
	case p.personal:
		s.writeError(w, http.StatusForbidden, "a personal API key cannot generate embed sessions")
		return
	}
	var b generateSessionBody
	if !s.decodeBody(w, r, &b) {
		return
	}
	if b.DeploymentID == nil {
		s.writeError(w, http.StatusBadRequest, "deploymentId: is required")
		return
	}
	dep := *b.DeploymentID
	if dep != math.Trunc(dep) || dep < 1 || dep > 1<<53 {
		s.writeError(w, http.StatusBadRequest, "deploymentId: must be a positive integer")
		return
	}
	depID := int64(dep)
	if !p.inScope(depID) {
		s.writeError(w, http.StatusForbidden, fmt.Sprintf("the API key is not scoped to deployment %d", depID))
		return
	}
	if err := s.checkGenerateBody(&b); err != nil {
		s.writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	id, serr := s.mintSession(depID, &b)
	if serr != nil {
		s.writeError(w, serr.status, serr.msg)
		return
	}
	s.logger.Info("embed session generated", "session", shortHash(id), "deployment", depID, "key", p.keyHash)
	s.writeJSON(w, http.StatusOK, map[string]string{"sessionId": id})
}

// checkGenerateBody applies the rules that need no state. Every failure is
// a 400 whose message names the field.
func (s *Server) checkGenerateBody(b *generateSessionBody) error {
	switch {
	case b.ExternalID == nil && b.InternalID == nil, b.ExternalID != nil && b.InternalID != nil:
		return errAt("externalId", "give exactly one of externalId or internalId")
	}
	if b.ExternalID != nil {
		x := *b.ExternalID
		switch {
		case x == "":
			return errAt("externalId", "must not be empty")
		case x != strings.TrimSpace(x):
			return errAt("externalId", "must be trimmed (no leading or trailing white space)")
		case x != strings.ToLower(x):
			return errAt("externalId", "must be lowercase")
		}
	}
	if b.InternalID != nil {
		if *b.InternalID == "" {
			return errAt("internalId", "must not be empty")
		}
		forbidden := []struct {
			name    string
			present bool
		}{
			{"groups", b.Groups != nil},
			{"userAttributes", b.UserAttributes != nil},
			{"groupDefinitions", b.GroupDefinitions != nil},
			{"userAttributeDefinitions", b.UserAttributeDefinitions != nil},
			{"securityContext", b.SecurityContext != nil},
			{"userProfile", b.UserProfile != nil},
		}
		for _, f := range forbidden {
			if f.present {
				return errAt(f.name, "not allowed with internalId (the internal user's existing permissions are used)")
			}
		}
	}
	if b.EmbedTenantName != nil && !tenantNamePattern.MatchString(*b.EmbedTenantName) {
		return errAt("embedTenantName", "must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$")
	}
	creator := b.CreatorMode != nil && *b.CreatorMode
	if creator {
		s.mu.Lock()
		enabled := s.st.fx.CreatorMode
		s.mu.Unlock()
		if !enabled {
			return errAt("creatorMode", "creator mode is not enabled for this tenant (useCreatorMode)")
		}
	}
	if b.TenantGroups != nil && (!creator || b.EmbedTenantName == nil) {
		return errAt("tenantGroups", "requires creatorMode: true and embedTenantName")
	}
	if b.TenantGroupDefinitions != nil && (!creator || b.EmbedTenantName == nil) {
		return errAt("tenantGroupDefinitions", "requires creatorMode: true and embedTenantName")
	}
	if b.UserAttributeDefinitions != nil && !creator {
		return errAt("userAttributeDefinitions", "requires creatorMode: true")
	}
	if b.UserProfile != nil && b.UserProfile.Picture != nil {
		if !absoluteHTTPURL(*b.UserProfile.Picture) {
			return errAt("userProfile.picture", "must be an absolute http:// or https:// URL")
		}
	}
	if b.Groups != nil {
		for i, g := range *b.Groups {
			if g == "" {
				return errAt(indexPath("groups", i), "must not be empty")
			}
		}
	}
	if b.TenantGroups != nil {
		for i, g := range *b.TenantGroups {
			if g == "" {
				return errAt(indexPath("tenantGroups", i), "must not be empty")
			}
		}
	}
	if err := checkNames("tenantGroupDefinitions", len(b.TenantGroupDefinitions), func(i int) *string { return b.TenantGroupDefinitions[i].Name }); err != nil {
		return err
	}
	if err := checkNames("userAttributeDefinitions", len(b.UserAttributeDefinitions), func(i int) *string { return b.UserAttributeDefinitions[i].Name }); err != nil {
		return err
	}
	for i, d := range b.UserAttributeDefinitions {
		if d.Type == nil {
			return errAt(indexPath("userAttributeDefinitions", i)+".type", "is required")
		}
		if !attributeTypes[*d.Type] {
			return errAt(indexPath("userAttributeDefinitions", i)+".type", "must be one of string, number, boolean, string_array, number_array")
		}
	}
	if err := checkNames("userAttributes", len(b.UserAttributes), func(i int) *string { return b.UserAttributes[i].Name }); err != nil {
		return err
	}
	for i, a := range b.UserAttributes {
		if valueType(a.Value) == "" {
			return errAt(indexPath("userAttributes", i)+".value", "must be a string, number, boolean, array of strings, array of numbers or null")
		}
	}
	return nil
}

// checkNames checks that every element has a non-empty, unique name.
func checkNames(field string, n int, name func(int) *string) error {
	seen := map[string]bool{}
	for i := range n {
		p := indexPath(field, i) + ".name"
		v := name(i)
		switch {
		case v == nil:
			return errAt(p, "is required")
		case *v == "":
			return errAt(p, "must not be empty")
		case seen[*v]:
			return errAt(field, fmt.Sprintf("duplicate name %q", *v))
		}
		seen[*v] = true
	}
	return nil
}

func absoluteHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Hostname() != ""
}

// valueType classifies an attribute value: "null", "string", "number",
// "boolean", "string_array", "number_array", "array" (empty, fits both
// array types) or "" (not an allowed value).
func valueType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		if len(x) == 0 {
			return "array"
		}
		kind := ""
		for _, e := range x {
			var k string
			switch e.(type) {
			case string:
				k = "string_array"
			case float64:
				k = "number_array"
			default:
				return ""
			}
			if kind != "" && k != kind {
				return ""
			}
			kind = k
		}
		return kind
	}
	return ""
}

func valueMatches(def, got string) bool {
	return got == def || (got == "array" && (def == "string_array" || def == "number_array"))
}

// statusError is an error with the HTTP status it maps to.
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string { return e.msg }

// mintSession applies the stateful rules and, when every one passes,
// provisions the user, upserts the catalogs and stores the session. It
// changes nothing when it fails.
func (s *Server) mintSession(depID int64, b *generateSessionBody) (string, *statusError) {
	fail := func(status int, format string, args ...any) (string, *statusError) {
		return "", &statusError{status, fmt.Sprintf(format, args...)}
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	st.sweepLocked(now)
	d, ok := st.deployments[depID]
	if !ok {
		return fail(http.StatusNotFound, "deployment %d not found", depID)
	}
	var internal *userRec
	if b.InternalID != nil {
		internal = st.users[*b.InternalID]
		if internal == nil || !internal.active {
			return fail(http.StatusBadRequest, "internalId: user %q not found", *b.InternalID)
		}
	}
	branchName := ""
	if b.BranchName != nil && *b.BranchName != d.productionBranch() {
		br := d.branchByName(*b.BranchName)
		switch {
		case br == nil:
			return fail(http.StatusNotFound, "branchName: %q is not a branch of deployment %d", *b.BranchName, depID)
		case br.Kind != "production" && !br.Served && !br.staging:
			return fail(http.StatusBadRequest, "branchName: branch %q is not served (open it or enable its staging environment)", br.Name)
		}
		if br.Kind != "production" {
			branchName = br.Name
		}
	}
	if b.Groups != nil {
		var missing []string
		for _, g := range dedupe(*b.Groups) {
			if !st.groups[g] {
				missing = append(missing, g)
			}
		}
		if len(missing) > 0 {
			return fail(http.StatusBadRequest, "Groups with names %s not found", strings.Join(missing, ", "))
		}
	}
	creator := b.CreatorMode != nil && *b.CreatorMode
	tenantName := st.fx.Tenant
	if b.EmbedTenantName != nil {
		tenantName = *b.EmbedTenantName
	}
	tenant := st.tenants[tenantName] // may be nil: created on success
	if b.TenantGroups != nil {
		defined := map[string]bool{}
		for _, gd := range b.TenantGroupDefinitions {
			defined[*gd.Name] = true
		}
		var missing []string
		for _, g := range dedupe(*b.TenantGroups) {
			if defined[g] {
				continue
			}
			if tenant == nil || tenant.groups[g] == nil {
				missing = append(missing, g)
			}
		}
		if len(missing) > 0 {
			return fail(http.StatusBadRequest, "Groups with names %s not found", strings.Join(missing, ", "))
		}
	}
	// The catalog the attribute values resolve against.
	catalog := map[string]string{}
	if creator {
		if tenant != nil {
			for n, a := range tenant.attrs {
				catalog[n] = a.Type
			}
		}
		for _, def := range b.UserAttributeDefinitions {
			if old, ok := catalog[*def.Name]; ok && old != *def.Type {
				return fail(http.StatusBadRequest, "cannot change type")
			}
			catalog[*def.Name] = *def.Type
		}
	} else {
		for n, a := range st.attrs {
			catalog[n] = a.Type
		}
	}
	for _, a := range b.UserAttributes {
		if _, ok := catalog[*a.Name]; !ok {
			return fail(http.StatusBadRequest, "User attributes not found")
		}
	}
	for i, a := range b.UserAttributes {
		want := catalog[*a.Name]
		got := valueType(a.Value)
		if got != "null" && !valueMatches(want, got) {
			return fail(http.StatusBadRequest, "userAttributes[%d].value: attribute %q has type %s", i, *a.Name, want)
		}
	}
	var user *externalUser
	if b.ExternalID != nil {
		user = st.external[*b.ExternalID]
		if user == nil && len(st.external) >= st.maxExternal {
			return fail(http.StatusBadRequest, "externalId: the account limit of %d external users is reached", st.maxExternal)
		}
	}

	// Every rule passed: apply.
	if tenant == nil {
		tenant = st.tenant(tenantName)
	}
	if b.EmbedTenantProfile != nil && b.EmbedTenantProfile.DisplayName != nil {
		tenant.displayName = *b.EmbedTenantProfile.DisplayName
	}
	for _, gd := range b.TenantGroupDefinitions {
		g := tenant.groups[*gd.Name]
		if g == nil {
			st.nextTenantGroupID++
			g = &tenantGroupRec{id: st.nextTenantGroupID, name: *gd.Name}
			tenant.groups[g.name] = g
		}
		// Rule 7: updated when supplied and different, never cleared (an
		// empty description is not one supplied).
		if gd.Description != nil && *gd.Description != "" && *gd.Description != g.description {
			g.description = *gd.Description
		}
	}
	for _, def := range b.UserAttributeDefinitions {
		a := tenant.attrs[*def.Name]
		if a == nil {
			a = &AttributeDefinition{Name: *def.Name, Type: *def.Type}
			tenant.attrs[a.Name] = a
		}
		if def.DisplayName != nil {
			a.DisplayName = *def.DisplayName
		}
		if def.DefaultValue != nil {
			a.DefaultValue = *def.DefaultValue
		}
		if def.Description != nil {
			a.Description = *def.Description
		}
	}
	c := tokenClaims{
		Issuer:       tokenIssuer,
		DeploymentID: depID,
		Tenant:       tenantName,
		CreatorMode:  creator,
		BranchName:   branchName,
		Settings:     toMap(b.Settings),
		Theme:        toMap(b.EmbedTheme),
	}
	var groupNames []string
	if internal != nil {
		c.Subject = internal.username
		c.InternalID = internal.username
		c.Email = internal.email
		groupNames = []string{}
	} else {
		if user == nil {
			user = newExternalUser(*b.ExternalID)
			st.external[user.externalID] = user
		}
		if b.Email != nil {
			user.email = *b.Email
		}
		if b.UserProfile != nil {
			if b.UserProfile.DisplayName != nil {
				user.displayName = *b.UserProfile.DisplayName
			}
			if b.UserProfile.Picture != nil {
				user.picture = *b.UserProfile.Picture
			}
		}
		if b.Groups != nil {
			user.groups = dedupe(*b.Groups)
		}
		if b.TenantGroups != nil {
			user.tenantGroups[tenantName] = dedupe(*b.TenantGroups)
		}
		// Values persist per user, in the catalog they resolved against:
		// the embed tenant's own in creator mode, the tenant-wide one
		// otherwise (rule 8).
		catalogKey := tenantWideCatalog
		if creator {
			catalogKey = creatorCatalog(tenantName)
		}
		values := user.values(catalogKey, len(b.UserAttributes) > 0)
		for _, a := range b.UserAttributes {
			if a.Value == nil {
				delete(values, *a.Name)
			} else {
				values[*a.Name] = a.Value
			}
		}
		c.Subject = user.externalID
		c.ExternalID = user.externalID
		c.Email = user.email
		c.DisplayName = user.displayName
		c.Picture = user.picture
		groupNames = append([]string{}, user.groups...)
		for _, g := range user.tenantGroups[tenantName] {
			groupNames = append(groupNames, "system:tenant:"+tenantName+":group:"+g)
		}
		if len(values) > 0 {
			// Not copied: the claims are encoded below, under the lock.
			c.Attributes = values
		}
	}
	c.SecurityContext = withGroups(b.SecurityContext, groupNames)
	claims, err := json.Marshal(&c)
	if err != nil {
		return fail(http.StatusInternalServerError, "encoding the session's claims: %v", err)
	}

	id := randomHex(16)
	se := &session{
		id: id, state: stateUnexchanged, createdAt: now, deploymentID: depID, claims: claims,
	}
	if user != nil {
		se.externalID = user.externalID // the user's string, not another copy
	} else {
		se.internalID = *b.InternalID
	}
	st.sessions[id] = se
	return id, nil
}

// withGroups copies the request's security context and sets
// platformCloud.groups to the effective group names (global names verbatim,
// tenant groups as system:tenant:{t}:group:{g}). Other members of a
// platformCloud object sent by the caller are kept.
func withGroups(sc map[string]any, groups []string) map[string]any {
	out := cloneMap(sc)
	if out == nil {
		out = map[string]any{}
	}
	pc, _ := out["platformCloud"].(map[string]any)
	pc = cloneMap(pc)
	if pc == nil {
		pc = map[string]any{}
	}
	list := make([]any, len(groups))
	for i, g := range groups {
		list[i] = g
	}
	pc["groups"] = list
	out["platformCloud"] = pc
	return out
}

// cloneMap deep-copies a JSON object.
func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneMap(x)
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = cloneValue(e)
		}
		return c
	}
	return v
}

// dedupe keeps the first occurrence of each name, in order.
func dedupe(names []string) []string {
	seen := make(map[string]bool, len(names))
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
