package templates

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/a-h/templ"
)

// appName is p.AppName, or DefaultAppName when empty.
func appName(p Page) string {
	if p.AppName == "" {
		return DefaultAppName
	}
	return p.AppName
}

// documentTitle is the <title> text: "Title · AppName", or AppName alone.
func documentTitle(p Page) string {
	if p.Title == "" {
		return appName(p)
	}
	return p.Title + " · " + appName(p)
}

// schemeAttr is the data-scheme value of <html>: "light" or "dark", or
// "" to follow the system setting.
func schemeAttr(scheme string) string {
	switch scheme {
	case "light", "dark":
		return scheme
	}
	return ""
}

// initials returns u.Initials, or up to two initials of u.DisplayName
// (or of the email when there is no name), upper-cased.
func initials(u *User) string {
	if u.Initials != "" {
		return u.Initials
	}
	name := u.DisplayName
	if name == "" {
		name, _, _ = strings.Cut(u.Email, "@")
	}
	var b strings.Builder
	for _, w := range strings.FieldsFunc(name, func(r rune) bool {
		return unicode.IsSpace(r) || r == '.' || r == '-' || r == '_'
	}) {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToUpper(r))
		}
		if utf8.RuneCountInString(b.String()) == 2 {
			break
		}
	}
	if b.Len() == 0 {
		return "?"
	}
	return b.String()
}

// dashboardURL is the link to one dashboard, its id path-escaped and the
// whole sanitised.
func dashboardURL(publicID string) templ.SafeURL {
	return templ.URL("/dashboards/" + url.PathEscape(publicID))
}

// filterID is the element id of the filter select for member.
func filterID(member string) string {
	return "filter-" + strings.NewReplacer(".", "-", "_", "-").Replace(member)
}

// projectURL is the link to one project, its id path-escaped and the
// whole sanitised.
func projectURL(id string) templ.SafeURL {
	return templ.URL("/projects/" + url.PathEscape(id))
}

// hostScriptFor is v.HostScriptURL, or DefaultHostScriptURL when empty.
func hostScriptFor(v EmbedView) string {
	if v.HostScriptURL == "" {
		return DefaultHostScriptURL
	}
	return v.HostScriptURL
}

// schemes is p.Schemes, or DefaultSchemes when empty.
func schemes(p SettingsPanel) []Option {
	if len(p.Schemes) == 0 {
		return DefaultSchemes
	}
	return p.Schemes
}

// errorStatus is the small status line of an error page, "Error 503",
// or "" when there is no status.
func errorStatus(e ErrorView) string {
	if e.Status <= 0 {
		return ""
	}
	return "Error " + strconv.Itoa(e.Status)
}

// withCurrent returns opts, with current appended (labelled by its
// value) when it is set and not among them, so a select always shows
// the saved choice.
func withCurrent(opts []Option, current string) []Option {
	if current == "" {
		return opts
	}
	for _, o := range opts {
		if o.Value == current {
			return opts
		}
	}
	out := make([]Option, 0, len(opts)+1)
	out = append(out, opts...)
	return append(out, Option{Value: current, Label: current})
}

// frameTitle is the iframe's accessible name: the dashboard title, or
// fallback when the view has none.
func frameTitle(v EmbedView, fallback string) string {
	if v.Title == "" {
		return fallback
	}
	return v.Title
}

// dashboardsLead is the line under the dashboards heading, naming the
// user's organisation when known.
func dashboardsLead(p Page) string {
	if p.User != nil && p.User.Tenant != "" {
		return "Live reports on the invoices and payments of " + p.User.Tenant + ", updated as your customers pay."
	}
	return "Live reports on your invoices and payments, updated as your customers pay."
}
