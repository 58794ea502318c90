package embedkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// This file holds embed sessions: the generate-session request and its
// validation, and generate, revoke and exchange. JSON names match the
// specification exactly. Optional fields use `omitzero`: a nil pointer,
// nil slice or nil map is left out of the request, which the platform
// treats the same as null. A non-nil empty slice is sent as [] (for Groups
// that clears memberships; see GenerateSessionRequest.Groups).

// SessionLifetime is how long a minted session id can be exchanged for an
// embed token: 5 minutes, once.
const SessionLifetime = 5 * time.Minute

// EmbedTokenLifetime is the signed expiry of an embed token obtained from a
// session id. A session id minted now can therefore give access for at most
// SessionLifetime + EmbedTokenLifetime; stores that keep ids for revocation
// keep them that long.
const EmbedTokenLifetime = 24 * time.Hour

// GenerateSessionRequest is the body of POST /api/v1/embed/generate-session.
//
// Give exactly one of ExternalID (an external viewer, provisioned on the
// fly) or InternalID (an existing platform user). Validate reports every
// broken rule at once; the Client calls it before sending.
type GenerateSessionRequest struct {
	// DeploymentID is the deployment the session grants access to. Required.
	DeploymentID int64 `json:"deploymentId"`

	// ExternalID is the stable identifier of the external user. The
	// platform requires it lowercase and trimmed; the client sends
	// NormalizeExternalID(ExternalID).
	ExternalID string `json:"externalId,omitzero"`
	// InternalID is the username of an existing internal user. With it,
	// Groups, UserAttributes, GroupDefinitions, UserAttributeDefinitions,
	// SecurityContext and UserProfile are not allowed.
	InternalID string `json:"internalId,omitzero"`
	// Email is attached to the provisioned external user (ExternalID only).
	Email string `json:"email,omitzero"`
	// UserProfile is persisted on the external user (ExternalID only).
	UserProfile *EmbedUserProfile `json:"userProfile,omitzero"`

	// EmbedTenantName selects the embed tenant; it must match
	// ^[a-z][a-z0-9-]{0,34}[a-z0-9]$. Empty means the current tenant.
	EmbedTenantName    string              `json:"embedTenantName,omitzero"`
	EmbedTenantProfile *EmbedTenantProfile `json:"embedTenantProfile,omitzero"`

	// CreatorMode mints a creator-mode session (tenant flag useCreatorMode).
	CreatorMode *bool `json:"creatorMode,omitzero"`

	// Groups are global group names. nil leaves memberships as they are,
	// an empty non-nil slice clears them, a populated slice replaces them.
	Groups []string `json:"groups,omitzero"`
	// TenantGroups are per-embed-tenant group names; they need CreatorMode
	// and EmbedTenantName.
	TenantGroups []string `json:"tenantGroups,omitzero"`
	// TenantGroupDefinitions create or update the groups named in
	// TenantGroups before assignment; they need CreatorMode and
	// EmbedTenantName.
	TenantGroupDefinitions []GroupDefinition `json:"tenantGroupDefinitions,omitzero"`
	// GroupDefinitions is accepted by the platform without error and has no
	// effect.
	//
	// Deprecated: global groups cannot be created through generate-session;
	// use TenantGroupDefinitions for tenant groups.
	GroupDefinitions []GroupDefinition `json:"groupDefinitions,omitzero"`

	// UserAttributes are attribute values for the user; names are unique.
	UserAttributes []UserAttributeInput `json:"userAttributes,omitzero"`
	// UserAttributeDefinitions upsert attribute definitions before the
	// values are applied; they need CreatorMode.
	UserAttributeDefinitions []UserAttributeDefinition `json:"userAttributeDefinitions,omitzero"`

	// SecurityContext is passed to data queries.
	SecurityContext map[string]any `json:"securityContext,omitzero"`
	// Settings are per-session overrides signed into the embed token.
	Settings *EmbedSessionSettings `json:"settings,omitzero"`
	// EmbedTheme colours and fonts of the embedded UI.
	EmbedTheme *EmbedTheme `json:"embedTheme,omitzero"`

	// IsEphemeral, PublicDashboardID and Roles are accepted by the platform;
	// their meaning is not documented. They are sent as given.
	IsEphemeral       *bool    `json:"isEphemeral,omitzero"`
	PublicDashboardID string   `json:"publicDashboardId,omitzero"`
	Roles             []string `json:"roles,omitzero"`

	// BranchName makes every data query of the session run against that
	// branch's data model. Empty (or the production branch) is production.
	BranchName string `json:"branchName,omitzero"`
}

// EmbedTenantProfile describes the embed tenant.
type EmbedTenantProfile struct {
	DisplayName *string `json:"displayName,omitzero"`
}

// GroupDefinition names a group to create or update.
type GroupDefinition struct {
	Name        string  `json:"name"`
	Description *string `json:"description,omitzero"`
}

// AttributeType is the declared type of a user attribute.
type AttributeType string

// The attribute types the platform accepts.
const (
	AttributeString      AttributeType = "string"
	AttributeNumber      AttributeType = "number"
	AttributeBoolean     AttributeType = "boolean"
	AttributeStringArray AttributeType = "string_array"
	AttributeNumberArray AttributeType = "number_array"
)

// UserAttributeDefinition declares a user attribute (creator mode).
type UserAttributeDefinition struct {
	Name         string        `json:"name"`
	Type         AttributeType `json:"type"`
	DisplayName  string        `json:"displayName,omitzero"`
	DefaultValue string        `json:"defaultValue,omitzero"`
	Description  string        `json:"description,omitzero"`
}

// UserAttributeInput sets one attribute value. Value is a string, a number,
// a bool, a []string, a number slice, or nil; nil is sent as null and clears
// the saved value.
type UserAttributeInput struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// EmbedUserProfile is saved on the external user. Picture must be an
// absolute http:// or https:// URL.
type EmbedUserProfile struct {
	DisplayName string `json:"displayName,omitzero"`
	Picture     string `json:"picture,omitzero"`
}

// Session is the answer of generate-session: a single-use id, valid for
// SessionLifetime. Its String method never prints the id.
type Session struct {
	SessionID string `json:"sessionId"`
	// ExpiresAt is the local estimate of when the id can no longer be
	// exchanged (the client's clock at response time plus SessionLifetime).
	ExpiresAt time.Time `json:"-"`
}

// EmbedToken is the answer of the session-token exchange. Its String
// method never prints the token.
type EmbedToken struct {
	Token string `json:"token"`
}

// NormalizeExternalID returns s as the platform requires external ids:
// without leading and trailing Unicode white space, and lower-cased.
// GenerateSessionRequest.Validate checks the normalised form.
//
// A string that is not valid UTF-8 is returned unchanged, for Validate to
// refuse: lower-casing would turn each invalid byte into U+FFFD, so that
// distinct ids would reach the platform as one user.
func NormalizeExternalID(s string) string {
	if !utf8.ValidString(s) {
		return s
	}
	return strings.ToLower(strings.TrimSpace(s))
}

// asciiSpace is the white space ExternalIDCaseSafe lets
// NormalizeExternalID trim.
const asciiSpace = " \t\n\v\f\r"

// ExternalIDCaseSafe reports whether NormalizeExternalID changes s in
// ASCII only: white space (space, tab, CR, LF, VT, FF) at its ends and the
// letters A-Z. For such ids the mapping is injective up to ASCII case and
// those spaces: two that normalise alike differ in nothing else. Any other
// change would make two users one on the platform: lower-casing turns the
// Kelvin sign U+212A into "k", so "\u212Aate" would sign in as "kate";
// the Angstrom sign U+212B, capital I with dot U+0130 and any other
// upper-case letter outside ASCII are refused alike, and so is non-ASCII
// white space at an end (a no-break space). GenerateSessionRequest.Validate
// refuses an externalId for which it is false, and the kit's Policy and
// Kit.RevokeSubject refuse such a subject. Characters that lower-casing
// leaves alone (Cyrillic "а", dotless "ı", fullwidth "ａ") are kept as
// they are: different strings, different users.
func ExternalIDCaseSafe(s string) bool {
	t := strings.Trim(s, asciiSpace)
	if strings.TrimSpace(t) != t {
		return false
	}
	for _, r := range t {
		if r >= utf8.RuneSelf && unicode.ToLower(r) != r {
			return false
		}
	}
	return true
}

// Validate reports every rule of the generate-session request that r
// breaks, in one *ValidationError with Op "generate-session" (errors.Is
// matches ErrInvalidRequest); it returns nil for a valid request. It checks
// ExternalID in its normalised form (see NormalizeExternalID) and never
// changes r. A nil r is checked as an empty request.
//
// A field counts as present when it would be sent: a non-empty string, a
// non-nil pointer, slice or map (an empty non-nil slice is sent as []).
// The rules:
//
//   - deploymentId is required and positive.
//   - Exactly one of externalId or internalId. Each is valid UTF-8 without
//     control characters (no length limit: the platform states none);
//     externalId must not be blank once trimmed, and normalising it may
//     change it in ASCII only (ExternalIDCaseSafe).
//   - With internalId, groups, userAttributes, groupDefinitions,
//     userAttributeDefinitions, securityContext and userProfile are not
//     allowed (rule 5). email is "used only with externalId" (the
//     specification's field table); it has no format (neither the
//     specification nor the platform's schema gives one) and is only held
//     to valid UTF-8 without control characters.
//   - userProfile.picture is an absolute http:// or https:// URL with a host.
//   - embedTenantName matches ^[a-z][a-z0-9-]{0,34}[a-z0-9]$. This is the
//     schema pattern, which allows 2 to 36 characters; the platform's prose
//     says 5 to 36, and the schema is followed.
//   - tenantGroups and tenantGroupDefinitions need creatorMode true and
//     embedTenantName; userAttributeDefinitions need creatorMode true.
//   - Group names (groups, tenantGroups) are non-blank; a name may repeat.
//     The names of tenantGroupDefinitions, userAttributeDefinitions and
//     userAttributes are non-blank and unique within their list (the
//     platform rejects repeated names there). groupDefinitions is
//     deprecated, "accepted without error, has no effect": its items are
//     not checked.
//   - A definition's type is one of the five AttributeType values.
//   - An attribute value is nil, a string, a bool, a Go number or
//     json.Number (finite), a []string, a slice of a Go number type, or a
//     []any holding only strings or only numbers. When the request also
//     defines that attribute, the value matches the definition's type (nil
//     always does).
//   - securityContext is JSON-encodable and nests at most
//     MaxSecurityContextDepth levels.
//   - settings.locale, when set, is a well-formed BCP-47 tag as
//     golang.org/x/text/language parses it (unknown but well-formed
//     subtags pass: the platform falls back to its default locale) and
//     uses '-' separators (the specification: "a BCP-47 code"; an empty
//     locale is not one). settings.timezone, when set, is free of control
//     characters; it is not looked up, and may be empty, because an
//     unknown name "falls through and does not fail the session".
//   - embedTheme colours and font are free-form (CSS colours and font
//     names): any string without control characters passes.
//   - branchName has no control characters.
func (r *GenerateSessionRequest) Validate() error {
	if r == nil {
		r = &GenerateSessionRequest{}
	}
	p := problems{op: "generate-session"}
	internal := r.InternalID != ""

	switch {
	case r.DeploymentID == 0:
		p.add("deploymentId", ruleRequired)
	case r.DeploymentID < 0:
		p.add("deploymentId", "must be positive")
	}

	if (r.ExternalID != "") == internal {
		p.add("externalId", ruleExactlyOneID)
	}
	if r.ExternalID != "" {
		checkIdentifier(&p, "externalId", r.ExternalID, true)
	}
	if internal {
		checkIdentifier(&p, "internalId", r.InternalID, false)
	}
	// The specification's table says email is "used only with
	// externalId"; it states no format for it (nor does the platform's
	// schema: "No format in spec"), so no address syntax is checked. Like
	// every free-form string, it must be sent as given: valid UTF-8 (JSON
	// would replace other bytes) without control characters.
	if r.Email != "" {
		if r.ExternalID == "" {
			p.add("email", ruleEmailInternal)
		}
		if !utf8.ValidString(r.Email) {
			p.add("email", ruleUTF8)
		} else if hasControlChar(r.Email) {
			p.add("email", ruleControl)
		}
	}
	if r.UserProfile != nil {
		if internal {
			p.add("userProfile", ruleNotInternal)
		}
		if pic := r.UserProfile.Picture; pic != "" && !IsPictureURL(pic) {
			p.add("userProfile.picture", rulePicture)
		}
	}
	if r.EmbedTenantName != "" && !IsTenantName(r.EmbedTenantName) {
		p.add("embedTenantName", ruleTenantName)
	}

	creator := r.CreatorMode != nil && *r.CreatorMode
	tenant := r.EmbedTenantName != ""
	if r.Groups != nil {
		if internal {
			p.add("groups", ruleNotInternal)
		}
		checkGroupNames(&p, "groups", r.Groups)
	}
	if r.TenantGroups != nil {
		checkTenantScope(&p, "tenantGroups", creator, tenant)
		checkGroupNames(&p, "tenantGroups", r.TenantGroups)
	}
	if r.TenantGroupDefinitions != nil {
		checkTenantScope(&p, "tenantGroupDefinitions", creator, tenant)
		checkGroupDefinitions(&p, "tenantGroupDefinitions", r.TenantGroupDefinitions)
	}
	// groupDefinitions is deprecated, "accepted without error, has no
	// effect": its items are not checked. Rule 5 still forbids the field
	// with internalId.
	if r.GroupDefinitions != nil && internal {
		p.add("groupDefinitions", ruleNotInternal)
	}
	if r.UserAttributes != nil {
		if internal {
			p.add("userAttributes", ruleNotInternal)
		}
		checkAttributeInputs(&p, "userAttributes", r.UserAttributes, r.UserAttributeDefinitions)
	}
	if r.UserAttributeDefinitions != nil {
		if internal {
			p.add("userAttributeDefinitions", ruleNotInternal)
		}
		if !creator {
			p.add("userAttributeDefinitions", ruleNeedsCreator)
		}
		checkAttributeDefinitions(&p, "userAttributeDefinitions", r.UserAttributeDefinitions)
	}
	if r.SecurityContext != nil {
		if internal {
			p.add("securityContext", ruleNotInternal)
		}
		checkEncodable(&p, "securityContext", r.SecurityContext)
	}
	if r.Settings != nil {
		checkSettingsValues(&p, r.Settings)
	}
	if t := r.EmbedTheme; t != nil {
		checkThemeString(&p, "embedTheme.primaryColor", t.PrimaryColor)
		checkThemeString(&p, "embedTheme.font", t.Font)
		if t.Chat != nil {
			checkThemeString(&p, "embedTheme.chat.inputColor", t.Chat.InputColor)
		}
		if a := t.AnalyticsChat; a != nil {
			checkThemeString(&p, "embedTheme.analyticsChat.backgroundColor", a.BackgroundColor)
			if in := a.ChatInput; in != nil {
				checkThemeString(&p, "embedTheme.analyticsChat.chatInput.backgroundColor", in.BackgroundColor)
				checkThemeString(&p, "embedTheme.analyticsChat.chatInput.borderColor", in.BorderColor)
			}
		}
	}
	if r.BranchName != "" {
		if !utf8.ValidString(r.BranchName) {
			p.add("branchName", ruleUTF8)
		} else if hasControlChar(r.BranchName) {
			p.add("branchName", ruleControl)
		}
	}
	return p.err()
}

// checkTenantScope reports a per-embed-tenant field sent without creator
// mode or without a tenant.
func checkTenantScope(p *problems, field string, creator, tenant bool) {
	if !creator {
		p.add(field, ruleNeedsCreator)
	}
	if !tenant {
		p.add(field, ruleNeedsTenant)
	}
}

// checkGroupNames checks a list of group names: each non-blank (a group
// must already exist, and none is named blank). A name may repeat: the
// platform has no rule against it (it rejects repeated definition names
// only).
func checkGroupNames(p *problems, field string, names []string) {
	for i, n := range names {
		if strings.TrimSpace(n) == "" {
			p.add(indexField(field, i, ""), ruleRequired)
		}
	}
}

// checkGroupDefinitions checks the names of group definitions.
func checkGroupDefinitions(p *problems, field string, defs []GroupDefinition) {
	seen := nameSet(len(defs))
	for i := range defs {
		checkName(p, field, i, ".name", defs[i].Name, defs, groupDefinitionName, seen)
	}
}

// checkAttributeDefinitions checks names and types of attribute
// definitions.
func checkAttributeDefinitions(p *problems, field string, defs []UserAttributeDefinition) {
	seen := nameSet(len(defs))
	for i := range defs {
		d := &defs[i]
		checkName(p, field, i, ".name", d.Name, defs, attributeDefinitionName, seen)
		switch d.Type {
		case AttributeString, AttributeNumber, AttributeBoolean, AttributeStringArray, AttributeNumberArray:
		case "":
			p.add(indexField(field, i, ".type"), ruleRequired)
		default:
			p.add(indexField(field, i, ".type"), ruleAttrType)
		}
	}
}

// checkAttributeInputs checks attribute values: names non-blank and
// unique, values of a sendable kind, and of the type of a definition of
// the same name in defs.
func checkAttributeInputs(p *problems, field string, inputs []UserAttributeInput, defs []UserAttributeDefinition) {
	seen := nameSet(len(inputs))
	for i := range inputs {
		in := &inputs[i]
		checkName(p, field, i, ".name", in.Name, inputs, attributeInputName, seen)
		kind := attributeKind(in.Value)
		if kind == kindInvalid {
			p.add(indexField(field, i, ".value"), ruleAttrValue)
			continue
		}
		if kind == kindNull {
			continue
		}
		for j := range defs {
			if defs[j].Name != in.Name {
				continue
			}
			if t := defs[j].Type; !kind.fits(t) && t.known() {
				p.add(indexField(field, i, ".value"), "must be of type "+string(t)+" to match its definition")
			}
			break
		}
	}
}

// ValidateSessionID reports whether id has the shape of a session id, 32
// lower-case hexadecimal characters, as revoke requires. The error, a
// *ValidationError with Op "session" and Field "sessionId", never quotes
// the id.
func ValidateSessionID(id string) error {
	if isSessionID(id) {
		return nil
	}
	p := problems{op: "session"}
	p.add("sessionId", "must match "+sessionIDRule)
	return p.err()
}

// GenerateSession mints a single-use embed session:
// POST /api/v1/embed/generate-session.
//
// The request is checked with its Validate method first. What is sent is a
// normalised copy (ExternalID trimmed and lower-cased); req itself is never
// modified. Session.ExpiresAt is the Client's clock at response time plus
// SessionLifetime.
//
// The call is not retried once it may have reached the platform (after a
// 5xx or a connection broken mid-request), because a retry could mint a
// second session; it is retried when the connection could not be opened
// and on 429.
func (c *Client) GenerateSession(ctx context.Context, req *GenerateSessionRequest) (*Session, error) {
	if req == nil {
		return nil, &ValidationError{Op: "generate-session", Problems: []FieldError{{Field: "deploymentId", Rule: "is required"}}}
	}
	// Validate checks the id as given (a change beyond ASCII case is
	// refused there) in its normalised form. The caller's request is never
	// changed: it is copied when its external id needs normalising.
	if err := req.Validate(); err != nil {
		return nil, err
	}
	send := req
	if id := NormalizeExternalID(req.ExternalID); id != req.ExternalID {
		cp := *req
		cp.ExternalID = id
		send = &cp
	}
	const path = "/api/v1/embed/generate-session"
	return fetch(ctx, c, http.MethodPost, path, send, call{template: path, secretResponse: true}, func(body []byte) (*Session, error) {
		id, ok := plainSessionID(body)
		if !ok {
			var w struct {
				SessionID flexString `json:"sessionId"`
			}
			if err := json.Unmarshal(unwrapData(body), &w); err != nil {
				return nil, err
			}
			id = string(w.SessionID)
		}
		if id == "" {
			return nil, errors.New("sessionId missing")
		}
		return &Session{SessionID: id, ExpiresAt: c.now().Add(SessionLifetime)}, nil
	})
}

// plainSessionID reads the documented answer of generate-session in its
// plainest form, {"sessionId":"<id>"} with nothing else but surrounding
// whitespace and an id without escapes, without a JSON decoder. Any other
// form (another member, a data envelope, a number) is left to
// encoding/json: ok is false.
func plainSessionID(body []byte) (string, bool) {
	const prefix, suffix = `{"sessionId":"`, `"}`
	b := bytes.TrimSpace(body)
	if !bytes.HasPrefix(b, []byte(prefix)) || !bytes.HasSuffix(b, []byte(suffix)) || len(b) < len(prefix)+len(suffix) {
		return "", false
	}
	id := b[len(prefix) : len(b)-len(suffix)]
	for _, c := range id {
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x7f {
			return "", false
		}
	}
	return string(id), true
}

// RevokeSession revokes a session id and any embed token already
// exchanged for it: POST /api/v1/embed/session/revoke. The platform
// answers 204 also for unknown, expired or already revoked ids, so the
// call is idempotent and is retried like a GET.
func (c *Client) RevokeSession(ctx context.Context, sessionID string) error {
	if err := ValidateSessionID(sessionID); err != nil {
		return err
	}
	const path = "/api/v1/embed/session/revoke"
	hreq, err := c.NewRequest(ctx, http.MethodPost, path, map[string]string{"sessionId": sessionID})
	if err != nil {
		return err
	}
	_, _, err = c.send(hreq, call{template: path, idempotent: true, secrets: []string{sessionID}})
	return err
}

// ExchangeSession exchanges a session id for a signed embed token:
// POST /api/v1/embed/session/token. No credential is sent: the session id
// is the credential. The id is single-use, so the call is retried only
// when the platform cannot have seen it. The embedding iframe normally
// does this exchange itself; the method exists for tests and for hosts
// that render the embed themselves.
func (c *Client) ExchangeSession(ctx context.Context, sessionID string) (*EmbedToken, error) {
	if err := ValidateSessionID(sessionID); err != nil {
		return nil, err
	}
	const path = "/api/v1/embed/session/token"
	cl := call{template: path, noAuth: true, secrets: []string{sessionID}, secretResponse: true}
	return fetch(ctx, c, http.MethodPost, path, map[string]string{"sessionId": sessionID}, cl, func(body []byte) (*EmbedToken, error) {
		var w struct {
			Token string `json:"token"`
		}
		if err := json.Unmarshal(unwrapData(body), &w); err != nil {
			return nil, err
		}
		if w.Token == "" {
			return nil, errors.New("token missing")
		}
		return &EmbedToken{Token: w.Token}, nil
	})
}
