package middleware

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/embedkit/embedkit/embedkit"
)

// Kind is what a Target embeds.
type Kind string

// The kinds of embed.
const (
	// KindDashboard is a published dashboard, by public id.
	KindDashboard Kind = "dashboard"
	// KindApp is the creator-mode app; its sessions are creator-mode
	// sessions, so the viewer's tenant must be allowed creator mode.
	KindApp Kind = "app"
	// KindChat is the analytics chat.
	KindChat Kind = "chat"
)

// PublicIDPattern is what a dashboard public id must look like, in a
// Target and in a frame path.
var PublicIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`)

// Target describes one embed: what it shows and how. Only the host sets
// a Target; the browser can at most name a registered one.
type Target struct {
	// Kind is what to embed. Required.
	Kind Kind
	// PublicID is the dashboard's public id (KindDashboard only).
	PublicID string
	// DeploymentPath selects the deployment-scoped dashboard URL,
	// /embed/d/{deploymentId}/dashboard/{publicId}, instead of
	// /embed/dashboard/{publicId} (KindDashboard only).
	DeploymentPath bool

	// Chrome sets the URL switches of the embedded page.
	Chrome Chrome
	// Controls preset the dashboard's filters, time grains and member
	// switchers in the iframe URL (f_, tg_ and ms_ parameters;
	// KindDashboard only). They are what the viewer sees first and can
	// change: viewer-side controls, not security. Keep rows a viewer must
	// not see out with SecurityContext.
	Controls embedkit.DashboardControls

	// SecurityContext adds keys over the Policy's SecurityContext for
	// this embed; Policy.SecurityContextFunc adds over both. It is signed
	// into the session, so the platform's row-level security applies it.
	// A host handler that scopes an embed by its own route (Kit.FrameFunc)
	// sets it here, after its own authorization check.
	SecurityContext map[string]any

	// Settings override the Policy's Settings key by key: a non-nil field
	// here wins. They are signed into the embed token.
	Settings *embedkit.EmbedSessionSettings
	// Theme, when set, replaces the Policy's Theme.
	Theme *embedkit.EmbedTheme

	// Locale, when set, is the locale of this embed whatever the viewer or
	// browser prefers; it must be one of Config.Locales.
	Locale string
	// TimeZone, when set, is the IANA time zone of this embed whatever the
	// viewer prefers.
	TimeZone string

	// RouteScoped makes the embed reachable only through a route of the
	// host that scopes it: a Kit.FrameFunc whose resolve returns it (or
	// the host's own call to Kit.FrameURL). FrameHandler and
	// SessionHandler refuse a registered RouteScoped target by name and
	// by frame path, as an unknown target (404), and AllowAnyDashboard
	// does not open its dashboard either, so the embed is never minted
	// without the SecurityContext the route adds. Set it on every target
	// whose rows a route scopes (a dashboard where a missing
	// security-context key means all rows), and register it in
	// Config.Targets (resolve takes a copy with Kit.Target): the kit
	// knows what to refuse only from the registered targets, so an
	// unregistered dashboard stays open to AllowAnyDashboard. A dashboard
	// is registered once (New refuses two targets of one dashboard), so
	// no plain target can open it either.
	//
	// RouteScoped stops the kit's endpoints, not the embedded page: a
	// session grants its whole deployment, and the embed's own navigation
	// (and the host script's navigate action) reaches every dashboard in
	// it, this one included, with the security context of whichever
	// session is open. The data model's access policy must therefore deny
	// rows when the scoping key is missing, not read a missing key as all
	// rows.
	RouteScoped bool
}

// Chrome are the page switches the platform reads from the iframe URL
// (they cannot be signed into a session). The zero value keeps the
// platform's defaults. Each switch applies to the kinds named.
type Chrome struct {
	// AllowExport enables CSV, PNG and PDF downloads (dashboard; the
	// account's data-download switch outranks it).
	AllowExport bool

	// HideDashboardHeader hides the whole header (dashboard).
	HideDashboardHeader bool
	// HideDashboardExportMenu hides the export menu (dashboard).
	HideDashboardExportMenu bool
	// HideDashboardBackButton hides the back button (dashboard).
	HideDashboardBackButton bool
	// HideDashboardTitle hides the title (dashboard).
	HideDashboardTitle bool
	// HideDashboardEditButton hides the edit button (dashboard).
	HideDashboardEditButton bool
	// HideDashboardDuplicateButton hides the duplicate button (dashboard).
	HideDashboardDuplicateButton bool

	// HideWorkbookBackButton hides the workbook back button (app).
	HideWorkbookBackButton bool

	// HideNewChat hides the new-chat button (chat).
	HideNewChat bool
	// HideChatInput hides the chat input (chat).
	HideChatInput bool
	// HideChatHistory hides the chat history (chat).
	HideChatHistory bool
}

// chromeSwitch is one Chrome field as a URL parameter.
type chromeSwitch struct {
	on    bool
	param string
	value string
	kind  Kind
}

// switches lists c's fields with their URL parameter, literal value and
// the kind they apply to. It returns an array, which costs the frame
// handler no allocation.
func (c Chrome) switches() [11]chromeSwitch {
	return [...]chromeSwitch{
		{c.AllowExport, "allowExport", "true", KindDashboard},
		{c.HideDashboardHeader, "showDashboardHeader", "false", KindDashboard},
		{c.HideDashboardExportMenu, "showDashboardExportMenu", "false", KindDashboard},
		{c.HideDashboardBackButton, "showDashboardBackButton", "false", KindDashboard},
		{c.HideDashboardTitle, "showDashboardTitle", "false", KindDashboard},
		{c.HideDashboardEditButton, "showDashboardEditButton", "false", KindDashboard},
		{c.HideDashboardDuplicateButton, "showDashboardDuplicateButton", "false", KindDashboard},
		{c.HideWorkbookBackButton, "showWorkbookBackButton", "false", KindApp},
		{c.HideNewChat, "showNewChat", "false", KindChat},
		{c.HideChatInput, "showChatInput", "false", KindChat},
		{c.HideChatHistory, "showChatHistory", "false", KindChat},
	}
}

// check reports the first thing wrong with t, as a field path below the
// target (".Kind is required").
func (t Target) check() error {
	switch t.Kind {
	case KindDashboard:
		if !PublicIDPattern.MatchString(t.PublicID) {
			return fmt.Errorf(".PublicID must match %s", PublicIDPattern)
		}
	case KindApp, KindChat:
		if t.PublicID != "" || t.DeploymentPath {
			return fmt.Errorf(".PublicID and .DeploymentPath apply to %s targets only", KindDashboard)
		}
	case "":
		return errors.New(".Kind is required (KindDashboard, KindApp or KindChat)")
	default:
		return fmt.Errorf(".Kind %q is not KindDashboard, KindApp or KindChat", string(t.Kind))
	}
	for _, s := range t.Chrome.switches() {
		if s.on && s.kind != t.Kind {
			return fmt.Errorf(".Chrome switch %s applies to %s targets only", s.param, s.kind)
		}
	}
	if !t.Controls.IsZero() {
		if t.Kind != KindDashboard {
			return fmt.Errorf(".Controls apply to %s targets only", KindDashboard)
		}
		var ve *embedkit.ValidationError
		if err := t.Controls.Validate(); errors.As(err, &ve) {
			first := ve.Problems[0]
			return fmt.Errorf(".Controls.%s %s", first.Field, first.Rule)
		}
	}
	return nil
}

// query returns the parameters of t's iframe URL that do not change from
// one load to the next: the chrome switches and the control presets.
func (t Target) query() (url.Values, error) {
	var q url.Values // nil for a target without parameters: no map to make
	for _, s := range t.Chrome.switches() {
		if s.on {
			if q == nil {
				q = url.Values{}
			}
			q.Set(s.param, s.value)
		}
	}
	if t.Controls.IsZero() {
		return q, nil
	}
	if q == nil {
		q = url.Values{}
	}
	if err := t.Controls.AddTo(q); err != nil {
		return nil, fmt.Errorf("target.Controls: %w", err)
	}
	return q, nil
}

// canonicalRef is the frame path of t below the frame prefix.
func (t Target) canonicalRef() string {
	if t.Kind == KindDashboard {
		return "dashboard/" + t.PublicID
	}
	return string(t.Kind)
}

// iframeURL returns the platform URL that loads t with sessionID. q holds
// t.query(). locale, timeZone and parent (the host page's origin, sent as
// parentOrigin) are left out when empty. The URL is written in one pass,
// as url.URL.String would write it with q.Encode() as its query (keys in
// sorted order): TestIframeURLAsURLWritesIt holds the two together.
func (k *Kit) iframeURL(t Target, q url.Values, sessionID, locale, timeZone, parent string) string {
	var b strings.Builder
	b.Grow(len(k.embedBase) + 64 + len(t.PublicID) + len(sessionID) + 3*len(parent) + 16*len(q))
	b.WriteString(k.embedBase)
	sessionKey := "session"
	switch t.Kind {
	case KindDashboard:
		if t.DeploymentPath {
			b.WriteString("d/")
			b.WriteString(strconv.FormatInt(k.cfg.Policy.DeploymentID, 10))
			b.WriteByte('/')
		}
		b.WriteString("dashboard/")
		b.WriteString(url.PathEscape(t.PublicID))
	case KindApp:
		b.WriteString("d/")
		b.WriteString(strconv.FormatInt(k.cfg.Policy.DeploymentID, 10))
		b.WriteString("/app")
	case KindChat:
		b.WriteString("chat")
		sessionKey = "sessionId"
	}
	// The per-load parameters, in sorted order ("session" and "sessionId"
	// both sort between "parentOrigin" and "timezone"), merged with q's
	// keys (also sorted) as q.Encode() would order them; a per-load
	// parameter replaces a key of q with the same name, as q.Set would.
	dynamic := [...]struct{ key, value string }{
		{"locale", locale}, {"parentOrigin", parent}, {sessionKey, sessionID}, {"timezone", timeZone},
	}
	var keys []string
	if len(q) > 0 {
		keys = slices.Sorted(maps.Keys(q))
	}
	sep := byte('?')
	write := func(key, value string) {
		b.WriteByte(sep)
		sep = '&'
		b.WriteString(url.QueryEscape(key))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(value))
	}
	ki := 0
	for _, d := range dynamic {
		if d.value == "" && d.key != sessionKey {
			continue
		}
		for ki < len(keys) && keys[ki] < d.key {
			for _, v := range q[keys[ki]] {
				write(keys[ki], v)
			}
			ki++
		}
		if ki < len(keys) && keys[ki] == d.key {
			ki++ // replaced, as q.Set would
		}
		write(d.key, d.value)
	}
	for ; ki < len(keys); ki++ {
		for _, v := range q[keys[ki]] {
			write(keys[ki], v)
		}
	}
	return b.String()
}
