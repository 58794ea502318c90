package templates

// Page is what every full page needs: the document title, the product
// name, who is signed in, the navigation and the form token. It is the
// first argument of every page component.
type Page struct {
	// Title is the document title, shown in the browser tab before
	// AppName ("Dashboards · Ledgerly"). Empty shows AppName alone.
	Title string
	// AppName is the product name shown in the header and the tab.
	// Empty means DefaultAppName.
	AppName string
	// User is the signed-in user; nil means signed out, which shows a
	// sign-in link instead of the account menu.
	User *User
	// Nav is the primary navigation, in order.
	Nav []NavItem
	// CSRFToken is the form token put in every form the page renders
	// (the sign-out form and the settings form).
	CSRFToken string
	// Flash is a one-time notice shown above the page content, such as
	// "You have been signed out." Empty shows nothing.
	Flash string
	// Scheme is the user's colour scheme, "light", "dark" or "auto",
	// rendered as the data-scheme attribute of <html> so the page is
	// drawn in the chosen scheme before any script runs. Empty or
	// "auto" follows the system setting.
	Scheme string
}

// DefaultAppName is the product name used when Page.AppName is empty.
const DefaultAppName = "Ledgerly"

// User is the signed-in user as the header shows them.
type User struct {
	// DisplayName is the user's name, shown in the account menu.
	DisplayName string
	// Email is shown inside the account menu.
	Email string
	// Initials fill the avatar badge; empty derives them from
	// DisplayName.
	Initials string
	// Tenant is the customer organisation the user belongs to.
	Tenant string
	// CreatorMode marks a user who may build dashboards in the
	// workspace; the account menu shows a badge for it.
	CreatorMode bool
}

// NavItem is one link of the primary navigation.
type NavItem struct {
	// Label is the link text.
	Label string
	// Href is the link target, a path on the host app. It is sanitised
	// when rendered: a javascript: or data: URL never reaches the page.
	Href string
	// Active marks the current section (aria-current="page").
	Active bool
}

// DashboardItem is one dashboard on the dashboards list.
type DashboardItem struct {
	// PublicID is the dashboard's public id; its card links to
	// /dashboards/{PublicID}. The id is path-escaped in the link.
	PublicID string
	// Title is the card heading.
	Title string
	// Description is the card text; empty shows none.
	Description string
}

// EmbedView is an embedded dashboard (or the creator workspace) and the
// settings panel beside it.
type EmbedView struct {
	// Title is the dashboard's title: the page heading of
	// DashboardView and the accessible name of the iframe.
	Title string
	// FrameSrc is the iframe src: the platform URL the page's handler
	// minted as it rendered (middleware.Kit.FrameURL), or a frame
	// endpoint, which mints a session and redirects to the platform on
	// every load of the frame. It is sanitised when rendered.
	FrameSrc string
	// SessionURL is the kit's session endpoint, used by the host script
	// to renew the embed's session (data-embedkit-session-url). Empty
	// leaves the host script's own setting in force.
	SessionURL string
	// Target names the embed target the session endpoint mints for
	// (data-embedkit-target): the host script re-mints a frame whose src
	// is the platform's URL by this name when its session is used up or
	// due for renewal.
	Target string
	// PlatformOrigin is the analytics platform's origin, for
	// data-embedkit-origin.
	PlatformOrigin string
	// HostScriptURL is where the kit serves its host script. Empty
	// means DefaultHostScriptURL.
	HostScriptURL string
	// Settings is the settings panel shown beside the embed.
	Settings SettingsPanel
	// Lead is a line under the heading; empty shows none.
	Lead string
	// Filters are the selects of the filter bar above the embed; empty
	// shows no filter bar.
	Filters []FilterSelect
	// EventLog shows the live event log beside the embed.
	EventLog bool
}

// FilterSelect is one select of the filter bar: it sets a dashboard
// filter live (the host script's setFilter).
type FilterSelect struct {
	// Member is the filtered dashboard member, "view.dimension".
	Member string
	// Label is the select's label.
	Label string
	// Options are the choices; an option with an empty Value clears the
	// filter.
	Options []Option
}

// ProjectItem is one project on the projects list.
type ProjectItem struct {
	// ID is the project's id; its card links to /projects/{ID}.
	ID string
	// Name is the card heading.
	Name string
	// Description is the card text; empty shows none.
	Description string
}

// DefaultHostScriptURL is the path the host script is loaded from when
// EmbedView.HostScriptURL is empty.
const DefaultHostScriptURL = "/embed/host.js"

// SettingsPanel is the user's display settings for embedded dashboards
// and the choices offered for each.
type SettingsPanel struct {
	// Locale is the selected locale, such as "en-US".
	Locale string
	// TimeZone is the selected IANA time zone, such as "Europe/Paris".
	TimeZone string
	// Scheme is the selected colour scheme: "light", "dark" or "auto".
	Scheme string
	// Locales are the locales offered.
	Locales []Option
	// TimeZones are the time zones offered.
	TimeZones []Option
	// Schemes are the colour schemes offered; empty offers
	// DefaultSchemes.
	Schemes []Option
}

// Option is one choice of a select element.
type Option struct {
	// Value is the submitted value.
	Value string
	// Label is the text the user sees.
	Label string
}

// DefaultSchemes are the colour schemes offered when
// SettingsPanel.Schemes is empty.
var DefaultSchemes = []Option{
	{Value: "auto", Label: "Match system"},
	{Value: "light", Label: "Light"},
	{Value: "dark", Label: "Dark"},
}

// ErrorView is what an error page says and the next step it offers.
// ErrorFor gives the default copy for each kind.
type ErrorView struct {
	// Status is the HTTP status code, shown small above the title; 0
	// shows none. The page component does not set the response status:
	// the handler does.
	Status int
	// Kind is one of the Kind constants; it chooses the next step the
	// page offers.
	Kind string
	// Title is the page heading (#error-title).
	Title string
	// Detail is the explanation below it (#error-detail). It must not
	// carry secrets, tokens or upstream error text.
	Detail string
	// RetryURL is where the next-step link points: the page to retry
	// for an outage, the sign-in page for an expired login, the
	// dashboards list otherwise. Empty uses the kind's default.
	RetryURL string
	// RetryLabel is the next-step link text. Empty uses the kind's
	// default.
	RetryLabel string
}

// The error kinds an ErrorView can have.
const (
	// KindOutage means the analytics platform could not be reached.
	KindOutage = "outage"
	// KindLoginExpired means the user's sign-in has ended.
	KindLoginExpired = "login-expired"
	// KindForbidden means the user may not see this page.
	KindForbidden = "forbidden"
	// KindNotFound means there is nothing at this address.
	KindNotFound = "not-found"
	// KindBadRequest means the request could not be understood.
	KindBadRequest = "bad-request"
	// KindInternal means something went wrong in the host app.
	KindInternal = "internal"
)

// ErrorKinds lists every error kind, in the order of the Kind constants.
var ErrorKinds = []string{KindOutage, KindLoginExpired, KindForbidden, KindNotFound, KindBadRequest, KindInternal}
