package embedkit

import (
	"encoding/json"
	"time"
)

// This file holds the request and response shapes of the platform's
// management API. JSON names match the specification exactly. Optional
// fields use `omitzero`: a nil pointer, nil slice or nil map is left out of
// the request, which the platform treats the same as null. A non-nil empty
// slice is sent as [] (for Groups that clears memberships; see
// GenerateSessionRequest.Groups).

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

// EmbedTheme colours and fonts of the embedded UI.
type EmbedTheme struct {
	PrimaryColor  string                   `json:"primaryColor,omitzero"`
	Font          string                   `json:"font,omitzero"`
	Chat          *EmbedThemeChat          `json:"chat,omitzero"`
	AnalyticsChat *EmbedThemeAnalyticsChat `json:"analyticsChat,omitzero"`
}

// EmbedThemeChat themes the chat input.
type EmbedThemeChat struct {
	InputColor string `json:"inputColor,omitzero"`
}

// EmbedThemeAnalyticsChat themes the analytics chat surface.
type EmbedThemeAnalyticsChat struct {
	BackgroundColor string               `json:"backgroundColor,omitzero"`
	ChatInput       *EmbedThemeChatInput `json:"chatInput,omitzero"`
}

// EmbedThemeChatInput themes the analytics chat input box.
type EmbedThemeChatInput struct {
	BackgroundColor string `json:"backgroundColor,omitzero"`
	BorderColor     string `json:"borderColor,omitzero"`
}

// EmbedSessionSettings are per-session overrides, signed into the embed
// token so a viewer cannot change them. A nil field is omitted and keeps
// the platform default. Use new(false) and new("de-DE") to set values.
type EmbedSessionSettings struct {
	AllowAI                     *bool `json:"allowAi,omitzero"`
	ShowDashboardChat           *bool `json:"showDashboardChat,omitzero"`
	ShowWorkbookChat            *bool `json:"showWorkbookChat,omitzero"`
	ShowAIWidgets               *bool `json:"showAiWidgets,omitzero"`
	AllowChatWorkspaceAuthoring *bool `json:"allowChatWorkspaceAuthoring,omitzero"`
	ShowWorkbookShare           *bool `json:"showWorkbookShare,omitzero"`
	ShowDashboardSettings       *bool `json:"showDashboardSettings,omitzero"`
	ShowMemberNames             *bool `json:"showMemberNames,omitzero"`
	ShowGroupByCube             *bool `json:"showGroupByCube,omitzero"`
	// Locale is a BCP-47 language tag.
	Locale *string `json:"locale,omitzero"`
	// Timezone is an IANA zone name. The platform ignores unknown names, so
	// the client passes it through unchecked.
	Timezone *string `json:"timezone,omitzero"`
}

// Merge returns s with every non-nil key of over applied, as a fresh
// value: defaults (s) overridden key by key (over). Either may be nil; the
// result is nil only when both are.
func (s *EmbedSessionSettings) Merge(over *EmbedSessionSettings) *EmbedSessionSettings {
	if s == nil && over == nil {
		return nil
	}
	var out EmbedSessionSettings
	if s != nil {
		out = *s
	}
	if over == nil {
		return &out
	}
	pick(&out.AllowAI, over.AllowAI)
	pick(&out.ShowDashboardChat, over.ShowDashboardChat)
	pick(&out.ShowWorkbookChat, over.ShowWorkbookChat)
	pick(&out.ShowAIWidgets, over.ShowAIWidgets)
	pick(&out.AllowChatWorkspaceAuthoring, over.AllowChatWorkspaceAuthoring)
	pick(&out.ShowWorkbookShare, over.ShowWorkbookShare)
	pick(&out.ShowDashboardSettings, over.ShowDashboardSettings)
	pick(&out.ShowMemberNames, over.ShowMemberNames)
	pick(&out.ShowGroupByCube, over.ShowGroupByCube)
	pick(&out.Locale, over.Locale)
	pick(&out.Timezone, over.Timezone)
	return &out
}

// pick sets *dst to src when src is set.
func pick[T any](dst **T, src *T) {
	if src != nil {
		*dst = src
	}
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

// TenantGroup is an item of the embed-tenant group list. The platform does
// not document the item fields beyond these; Raw holds the whole item.
type TenantGroup struct {
	ID          string          `json:"-"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitzero"`
	Raw         json.RawMessage `json:"-"`
}

// PageInfo is the cursor of a cursor-paginated list. Pass EndCursor as
// CursorOptions.After to get the next page.
type PageInfo struct {
	HasNextPage     bool   `json:"hasNextPage"`
	HasPreviousPage bool   `json:"hasPreviousPage"`
	StartCursor     string `json:"startCursor,omitzero"`
	EndCursor       string `json:"endCursor,omitzero"`
}

// CursorOptions select a page of a cursor-paginated list. Zero First means
// the platform default.
type CursorOptions struct {
	First int
	After string
}

// TenantGroupPage is one page of embed-tenant groups.
type TenantGroupPage struct {
	Items    []TenantGroup
	PageInfo PageInfo
}

// ListOptions select a page of an offset-paginated list. Zero Limit means
// the platform default (20).
type ListOptions struct {
	Offset int
	Limit  int
}

// Pagination is the position of an offset-paginated page.
type Pagination struct {
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
	Total  int `json:"total"`
}

// Deployment is an item of the deployment list. The platform documents
// the id as a string in one place and a number in another; both decode.
type Deployment struct {
	ID        int64
	Name      string
	CreatedAt time.Time
}

// DeploymentPage is one page of deployments.
type DeploymentPage struct {
	Deployments []Deployment
	Pagination  Pagination
}

// EnvironmentType is the kind of a deployment environment.
type EnvironmentType string

// The environment types.
const (
	EnvironmentProduction  EnvironmentType = "production"
	EnvironmentStaging     EnvironmentType = "staging"
	EnvironmentDevelopment EnvironmentType = "development"
)

// Environment is an item of a deployment's environment list. An enabled
// branch staging environment is listed with type staging.
type Environment struct {
	ID      string
	Name    string
	Type    EnvironmentType
	RESTURL string // api_credentials.rest.url
	SQLHost string // api_credentials.sql.host
	SQLPort int    // api_credentials.sql.port
}

// EnvironmentListOptions select a page of environments, optionally of one
// type.
type EnvironmentListOptions struct {
	Type EnvironmentType
	ListOptions
}

// EnvironmentPage is one page of environments.
type EnvironmentPage struct {
	Environments []Environment
	Pagination   Pagination
}

// MetaTokenRequest is the body of tokens-for-meta-sync.
type MetaTokenRequest struct {
	// SecurityContext is embedded in the token and controls which parts of
	// the data model are visible. Required (may be empty, not nil).
	SecurityContext map[string]any `json:"security_context"`
	// ExpiresIn is the lifetime in seconds; zero means the default, 86400.
	ExpiresIn int `json:"expires_in,omitzero"`
}

// MetaToken is a metadata-only token. Its String method never prints the
// token.
type MetaToken struct {
	Token     string    `json:"token"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// DataAPITokenRequest is the optional body of POST /deployments/{id}/token.
type DataAPITokenRequest struct {
	// ExpiresIn is the lifetime in seconds, 60 to 86400; zero means 86400.
	ExpiresIn int `json:"expiresIn,omitzero"`
}

// DataAPIToken is a data API token. Its String method never prints the
// token.
type DataAPIToken struct {
	Token string `json:"token"`
}

// StagingEnvironmentRequest is the body of PUT
// /build/api/v1/deployments/{id}/branches/staging-environment. Give
// exactly one of BranchName or BranchID (branch ids are positive; zero
// means unset).
type StagingEnvironmentRequest struct {
	Enabled    bool   `json:"enabled"`
	BranchName string `json:"branchName,omitzero"`
	BranchID   int64  `json:"branchId,omitzero"`
}

// Branch is a data model branch.
type Branch struct {
	ID                          int64  `json:"id"`
	Name                        string `json:"name"`
	ParentBranch                string `json:"parentBranch"`
	LastHash                    string `json:"lastHash"`
	IsStagingEnvironmentEnabled bool   `json:"isStagingEnvironmentEnabled"`
}

// DeploymentVersion is a version a deployment can switch to.
type DeploymentVersion struct {
	ReleaseChannelVersion string `json:"releaseChannelVersion"`
	Version               string `json:"version"`
	ReleaseChannel        string `json:"releaseChannel"`
	IsLatestInChannel     bool   `json:"isLatestInChannel"`
	IsCurrent             bool   `json:"isCurrent"`
}

// UpdateDeploymentRequest is a partial update of a deployment: zero fields
// are left untouched, TemplateVariables merge key by key.
//
// To switch versions set ReleaseChannelVersion to "1.4.2", "v1.4.2" or
// "image/repo:v1.4.2"; setting only ReleaseChannel moves the deployment to
// that channel's latest version.
type UpdateDeploymentRequest struct {
	ReleaseChannelVersion     string         `json:"releaseChannelVersion,omitzero"`
	ReleaseChannel            string         `json:"releaseChannel,omitzero"`
	ReleaseChannelVersionHold *bool          `json:"releaseChannelVersionHold,omitzero"`
	CloudProvider             string         `json:"cloudProvider,omitzero"`
	Region                    string         `json:"region,omitzero"`
	Template                  string         `json:"template,omitzero"`
	TemplateVariables         map[string]any `json:"templateVariables,omitzero"`
	DefaultLaunchpadViewGroup string         `json:"defaultLaunchpadViewGroup,omitzero"`
	LaunchpadTabs             []string       `json:"launchpadTabs,omitzero"`
	CreationMethod            string         `json:"creationMethod,omitzero"`
	DeployMode                string         `json:"deployMode,omitzero"`
}

// DeploymentSettings is the answer of a deployment update. The platform
// does not document it fully: the fields below are decoded when present and
// Raw holds the whole object.
type DeploymentSettings struct {
	ID                        int64           `json:"-"`
	Name                      string          `json:"name"`
	ReleaseChannel            string          `json:"releaseChannel"`
	ReleaseChannelVersion     string          `json:"releaseChannelVersion"`
	ReleaseChannelVersionHold bool            `json:"releaseChannelVersionHold"`
	TemplateVariables         map[string]any  `json:"templateVariables"`
	Raw                       json.RawMessage `json:"-"`
}

// AuditLogOptions filter the audit-log export. All are optional. Start and
// End are sent as ISO 8601 dates (YYYY-MM-DD) when they fall on midnight
// UTC, otherwise as RFC 3339 timestamps.
type AuditLogOptions struct {
	Start     time.Time
	End       time.Time
	Search    string
	EventName string
	UserEmail string
}

// ExportFormat is the file format of a dashboard export.
type ExportFormat string

// The dashboard export formats.
const (
	FormatPNG ExportFormat = "png"
	FormatPDF ExportFormat = "pdf"
)

// DashboardExportRequest is the body of POST
// /api/v1/deployments/{id}/dashboard-exports. Give exactly one of
// DashboardID or DashboardPublicID.
type DashboardExportRequest struct {
	DashboardID       int64                     `json:"dashboardId,omitzero"`
	DashboardPublicID string                    `json:"dashboardPublicId,omitzero"`
	Format            ExportFormat              `json:"format"`
	RenderAs          *RenderAs                 `json:"renderAs,omitzero"`
	Filters           []DashboardFilter         `json:"filters,omitzero"`
	TimeGrains        []DashboardTimeGrain      `json:"timeGrains,omitzero"`
	MemberSwitchers   []DashboardMemberSwitcher `json:"memberSwitchers,omitzero"`
}

// RenderAs subject types.
const (
	SubjectUser      = "USER"
	SubjectEmbedUser = "EMBED_USER"
)

// RenderAs renders an export as another identity (account administrators
// only) so that identity's row-level security applies. Groups,
// UserAttributes and SecurityContext apply to that render only.
type RenderAs struct {
	Type            string               `json:"type"`
	UserID          int64                `json:"userId,omitzero"`
	Email           string               `json:"email,omitzero"`
	EmbedTenantName string               `json:"embedTenantName,omitzero"`
	ExternalID      string               `json:"externalId,omitzero"`
	Groups          []string             `json:"groups,omitzero"`
	SecurityContext map[string]any       `json:"securityContext,omitzero"`
	UserAttributes  []UserAttributeInput `json:"userAttributes,omitzero"`
}

// DashboardFilter overrides a dashboard filter for one export. Member is
// "view.member".
type DashboardFilter struct {
	Member   string `json:"member"`
	Operator string `json:"operator,omitzero"`
	Value    any    `json:"value,omitzero"`
}

// DashboardTimeGrain overrides a time grain for one export.
type DashboardTimeGrain struct {
	Member string `json:"member"`
	Grain  string `json:"grain"`
}

// DashboardMemberSwitcher overrides a member switcher for one export.
type DashboardMemberSwitcher struct {
	Member   string `json:"member"`
	Selected string `json:"selected"`
}

// ExportJob is a submitted dashboard export. The job and its file are
// dropped at ExpiresAt, 5 minutes after submission.
type ExportJob struct {
	JobID     string    `json:"jobId"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// ExportStatusValue is the state of an export job.
type ExportStatusValue string

// Export job states. Pending and processing mean keep polling.
const (
	ExportPending    ExportStatusValue = "pending"
	ExportProcessing ExportStatusValue = "processing"
	ExportCompleted  ExportStatusValue = "completed"
	ExportFailed     ExportStatusValue = "failed"
)

// ExportStatus is the polled state of an export job.
type ExportStatus struct {
	Status      ExportStatusValue `json:"status"`
	Progress    *float64          `json:"progress,omitzero"`
	Error       string            `json:"error,omitzero"`
	ContentType string            `json:"contentType,omitzero"`
}
