package templates

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"golang.org/x/net/html"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// Fixtures.

func signedIn() Page {
	return Page{
		Title:   "Dashboards",
		AppName: "Ledgerly",
		User: &User{
			DisplayName: "Ada Lovelace",
			Email:       "ada@northwind.example",
			Tenant:      "Northwind Traders",
			CreatorMode: true,
		},
		Nav: []NavItem{
			{Label: "Invoices", Href: "/invoices"},
			{Label: "Dashboards", Href: "/dashboards", Active: true},
			{Label: "Workspace", Href: "/workspace"},
		},
		CSRFToken: "csrf-token-123",
	}
}

func signedOut() Page {
	return Page{Title: "Welcome", AppName: "Ledgerly", Nav: []NavItem{{Label: "Home", Href: "/", Active: true}}}
}

func embedView() EmbedView {
	return EmbedView{
		Title:          "Revenue overview",
		FrameSrc:       "https://analytics.example/embed/dashboard/revenue?session=s-1&locale=fr-FR",
		SessionURL:     "/embed/session",
		Target:         "sales",
		PlatformOrigin: "https://analytics.example",
		Settings:       settingsPanel(),
	}
}

// projectView is an embed with a lead, a filter bar and the event log.
func projectView() EmbedView {
	v := embedView()
	v.FrameSrc = "/projects/p1/analytics/frame"
	v.Lead = "Figures of <p1> only."
	v.EventLog = true
	v.Filters = []FilterSelect{
		{Member: "sales.region", Label: "Region", Options: []Option{{Value: "", Label: "All"}, {Value: "EMEA", Label: "EMEA"}}},
		{Member: "sales.month", Label: "Month <m>", Options: []Option{{Value: "", Label: "All"}, {Value: "2025-01", Label: "January"}}},
	}
	return v
}

func settingsPanel() SettingsPanel {
	return SettingsPanel{
		Locale:   "fr-FR",
		TimeZone: "Europe/Paris",
		Scheme:   "dark",
		Locales: []Option{
			{Value: "en-US", Label: "English (United States)"},
			{Value: "fr-FR", Label: "Français (France)"},
		},
		TimeZones: []Option{
			{Value: "UTC", Label: "UTC"},
			{Value: "Europe/Paris", Label: "Paris (UTC+1)"},
		},
	}
}

func dashboardItems() []DashboardItem {
	return []DashboardItem{
		{PublicID: "revenue", Title: "Revenue overview", Description: "Invoiced and paid, month by month."},
		{PublicID: "overdue", Title: "Overdue invoices"},
	}
}

// Helpers.

func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return buf.String()
}

func parse(t *testing.T, s string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatalf("parsing the rendered HTML: %v", err)
	}
	return doc
}

// all returns every element under n for which match is true, in
// document order.
func all(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && match(d) {
			out = append(out, d)
		}
	}
	return out
}

func byID(n *html.Node, id string) *html.Node {
	if found := all(n, func(e *html.Node) bool { return attr(e, "id") == id }); len(found) > 0 {
		return found[0]
	}
	return nil
}

func byTag(n *html.Node, tag string) []*html.Node {
	return all(n, func(e *html.Node) bool { return e.Data == tag })
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	return slices.ContainsFunc(n.Attr, func(a html.Attribute) bool { return a.Key == key })
}

func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func mustID(t *testing.T, doc *html.Node, id string) *html.Node {
	t.Helper()
	n := byID(doc, id)
	if n == nil {
		t.Fatalf("#%s missing", id)
	}
	return n
}

// pages are every page component, rendered with representative data.
func pages() []struct {
	name string
	c    templ.Component
} {
	return []struct {
		name string
		c    templ.Component
	}{
		{"home signed out", Home(signedOut())},
		{"home signed in", Home(signedIn())},
		{"dashboards", Dashboards(signedIn(), dashboardItems())},
		{"dashboards empty", Dashboards(signedIn(), nil)},
		{"dashboard view", DashboardView(signedIn(), embedView())},
		{"creator view", CreatorView(signedIn(), embedView())},
		{"ask view", AskView(signedIn(), embedView())},
		{"error outage", ErrorPage(signedIn(), ErrorFor(KindOutage))},
		{"error login expired", ErrorPage(signedOut(), ErrorFor(KindLoginExpired))},
		{"layout with flash", Layout(Page{Flash: "You have been signed out."}, templ.NopComponent)},
	}
}

// Tests.

func TestRequiredIDs(t *testing.T) {
	tests := []struct {
		name    string
		c       templ.Component
		want    []string
		notWant []string
	}{
		{
			name:    "home signed out",
			c:       Home(signedOut()),
			want:    []string{"main", "sign-in", "sign-in-cta", "home-title", "nav-menu"},
			notWant: []string{"account-menu", "logout-form", "dashboards-cta", "flash"},
		},
		{
			name:    "home signed in",
			c:       Home(signedIn()),
			want:    []string{"main", "account-menu", "account-name", "account-tenant", "logout-form", "logout-button", "dashboards-cta"},
			notWant: []string{"sign-in", "sign-in-cta"},
		},
		{
			name:    "dashboards",
			c:       Dashboards(signedIn(), dashboardItems()),
			want:    []string{"page-title", "dashboards", "account-menu", "logout-form"},
			notWant: []string{"dashboards-empty"},
		},
		{
			name: "dashboards empty",
			c:    Dashboards(signedIn(), nil),
			want: []string{"page-title", "dashboards", "dashboards-empty"},
		},
		{
			name: "dashboard view",
			c:    DashboardView(signedIn(), embedView()),
			want: []string{"page-title", "embed-frame", "embed-status", "settings", "locale-select", "timezone-select", "scheme-select", "settings-save", "settings-status"},
		},
		{
			name: "creator view",
			c:    CreatorView(signedIn(), embedView()),
			want: []string{"page-title", "embed-frame", "embed-status", "settings", "locale-select", "timezone-select", "scheme-select"},
		},
		{
			name: "ask view",
			c:    AskView(signedIn(), embedView()),
			want: []string{"page-title", "embed-frame", "embed-status", "settings"},
		},
		{
			name:    "error outage",
			c:       ErrorPage(signedIn(), ErrorFor(KindOutage)),
			want:    []string{"error-title", "error-detail", "error-retry"},
			notWant: []string{"error-sign-in", "error-back"},
		},
		{
			name:    "error login expired",
			c:       ErrorPage(signedOut(), ErrorFor(KindLoginExpired)),
			want:    []string{"error-title", "error-detail", "error-sign-in", "sign-in"},
			notWant: []string{"error-retry", "error-back", "logout-form"},
		},
		{
			name:    "error forbidden",
			c:       ErrorPage(signedIn(), ErrorFor(KindForbidden)),
			want:    []string{"error-title", "error-detail", "error-back"},
			notWant: []string{"error-retry", "error-sign-in"},
		},
		{
			name: "flash",
			c:    Layout(Page{Flash: "Settings saved."}, templ.NopComponent),
			want: []string{"flash", "main", "sign-in"},
		},
		{
			name:    "no nav",
			c:       Layout(Page{}, templ.NopComponent),
			want:    []string{"main", "sign-in"},
			notWant: []string{"nav-menu", "flash"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parse(t, render(t, tt.c))
			for _, id := range tt.want {
				if byID(doc, id) == nil {
					t.Errorf("#%s missing", id)
				}
			}
			for _, id := range tt.notWant {
				if byID(doc, id) != nil {
					t.Errorf("#%s present, want absent", id)
				}
			}
			seen := map[string]bool{}
			for _, e := range all(doc, func(e *html.Node) bool { return hasAttr(e, "id") }) {
				if id := attr(e, "id"); seen[id] {
					t.Errorf("id %q used twice", id)
				} else {
					seen[id] = true
				}
			}
		})
	}
}

func TestStrictCSP(t *testing.T) {
	for _, pg := range pages() {
		t.Run(pg.name, func(t *testing.T) {
			out := render(t, pg.c)
			doc := parse(t, out)
			for _, s := range byTag(doc, "script") {
				src := attr(s, "src")
				if src == "" {
					t.Errorf("<script> without src")
				}
				if !strings.HasPrefix(src, "/") || strings.HasPrefix(src, "//") {
					t.Errorf("script src %q is not a same-origin path", src)
				}
				if s.FirstChild != nil {
					t.Errorf("<script src=%q> has inline content", src)
				}
			}
			if n := len(byTag(doc, "style")); n > 0 {
				t.Errorf("%d <style> elements", n)
			}
			for _, e := range all(doc, func(*html.Node) bool { return true }) {
				for _, a := range e.Attr {
					if a.Key == "style" || strings.HasPrefix(a.Key, "on") {
						t.Errorf("<%s> has a %s attribute", e.Data, a.Key)
					}
				}
			}
			for _, l := range byTag(doc, "link") {
				if href := attr(l, "href"); !strings.HasPrefix(href, "/static/") {
					t.Errorf("<link> href %q is not under /static/", href)
				}
			}
			if strings.Contains(out, "style=") {
				t.Errorf("output contains style=")
			}
		})
	}
}

func TestLandmarksAndLabels(t *testing.T) {
	for _, pg := range pages() {
		t.Run(pg.name, func(t *testing.T) {
			doc := parse(t, render(t, pg.c))
			htmlEl := byTag(doc, "html")[0]
			if attr(htmlEl, "lang") == "" {
				t.Error("<html> has no lang")
			}
			for _, tag := range []string{"header", "main", "footer", "title"} {
				if len(byTag(doc, tag)) != 1 {
					t.Errorf("want exactly one <%s>, got %d", tag, len(byTag(doc, tag)))
				}
			}
			if len(byTag(doc, "h1")) != 1 && pg.name != "layout with flash" {
				t.Errorf("want one <h1>, got %d", len(byTag(doc, "h1")))
			}
			for _, nav := range byTag(doc, "nav") {
				if attr(nav, "aria-label") == "" {
					t.Error("<nav> without aria-label")
				}
			}
			labels := map[string]bool{}
			for _, l := range byTag(doc, "label") {
				labels[attr(l, "for")] = true
			}
			for _, f := range all(doc, func(e *html.Node) bool {
				return e.Data == "select" || (e.Data == "input" && attr(e, "type") != "hidden")
			}) {
				if !labels[attr(f, "id")] {
					t.Errorf("<%s id=%q> has no label", f.Data, attr(f, "id"))
				}
			}
			for _, f := range byTag(doc, "iframe") {
				if attr(f, "title") == "" {
					t.Error("<iframe> without title")
				}
			}
			for _, b := range byTag(doc, "button") {
				if text(b) == "" && attr(b, "aria-label") == "" {
					t.Error("<button> without a name")
				}
			}
		})
	}
}

func TestEscaping(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	p := signedIn()
	p.Title = evil
	p.Flash = evil
	p.CSRFToken = `"><script>alert(1)</script>`
	p.User.DisplayName = evil
	p.User.Tenant = evil
	p.User.Email = evil
	p.Nav = []NavItem{{Label: evil, Href: "javascript:alert(1)"}}

	v := embedView()
	v.Title = evil
	v.FrameSrc = "javascript:alert(1)"
	v.Target = `" onload="alert(1)`
	v.SessionURL = `" onload="alert(1)`
	v.PlatformOrigin = `"><script>alert(1)</script>`
	v.HostScriptURL = "javascript:alert(1)"
	v.Settings.Locale = evil
	v.Settings.Locales = []Option{{Value: evil, Label: evil}}

	e := ErrorView{Kind: KindOutage, Title: evil, Detail: evil, RetryURL: "javascript:alert(1)", RetryLabel: evil}

	tests := []struct {
		name  string
		c     templ.Component
		check func(t *testing.T, doc *html.Node)
	}{
		{"display name", DashboardView(p, v), func(t *testing.T, doc *html.Node) {
			if got := text(mustID(t, doc, "account-name")); got != evil {
				t.Errorf("#account-name = %q, want the literal name", got)
			}
		}},
		{"iframe src", DashboardView(p, v), func(t *testing.T, doc *html.Node) {
			if got := attr(mustID(t, doc, "embed-frame"), "src"); got != string(templ.FailedSanitizationURL) {
				t.Errorf("iframe src = %q, want %q", got, templ.FailedSanitizationURL)
			}
		}},
		{"iframe data attributes", DashboardView(p, v), func(t *testing.T, doc *html.Node) {
			f := mustID(t, doc, "embed-frame")
			if attr(f, "data-embedkit-target") != v.Target || attr(f, "data-embedkit-session-url") != v.SessionURL || attr(f, "data-embedkit-origin") != v.PlatformOrigin {
				t.Errorf("data attributes changed by escaping: %v", f.Attr)
			}
			if hasAttr(f, "onload") {
				t.Error("iframe gained an onload attribute")
			}
		}},
		{"host script", DashboardView(p, v), func(t *testing.T, doc *html.Node) {
			scripts := byTag(doc, "script")
			if src := attr(scripts[len(scripts)-1], "src"); src != string(templ.FailedSanitizationURL) {
				t.Errorf("host script src = %q, want sanitised", src)
			}
		}},
		{"nav href", DashboardView(p, v), func(t *testing.T, doc *html.Node) {
			for _, a := range all(doc, func(e *html.Node) bool { return attr(e, "class") == "nav-link" }) {
				if attr(a, "href") != string(templ.FailedSanitizationURL) || text(a) != evil {
					t.Errorf("nav link = %v %q", a.Attr, text(a))
				}
			}
		}},
		{"csrf token", DashboardView(p, v), func(t *testing.T, doc *html.Node) {
			for _, in := range all(doc, func(e *html.Node) bool { return attr(e, "name") == "csrf_token" }) {
				if attr(in, "value") != p.CSRFToken {
					t.Errorf("csrf_token value = %q", attr(in, "value"))
				}
			}
		}},
		{"error page", ErrorPage(p, e), func(t *testing.T, doc *html.Node) {
			if text(mustID(t, doc, "error-title")) != evil || text(mustID(t, doc, "error-detail")) != evil {
				t.Error("error texts not rendered literally")
			}
			if got := attr(mustID(t, doc, "error-retry"), "href"); got != string(templ.FailedSanitizationURL) {
				t.Errorf("retry href = %q, want sanitised", got)
			}
		}},
		{"dashboard link", Dashboards(p, []DashboardItem{{PublicID: "../../admin?x=1#y", Title: evil}}), func(t *testing.T, doc *html.Node) {
			links := all(doc, func(e *html.Node) bool { return attr(e, "class") == "dashboard-link" })
			if len(links) != 1 {
				t.Fatalf("%d dashboard links, want 1", len(links))
			}
			if got, want := attr(links[0], "href"), "/dashboards/..%2F..%2Fadmin%3Fx=1%23y"; got != want {
				t.Errorf("href = %q, want %q", got, want)
			}
			if text(links[0]) != evil {
				t.Errorf("link text = %q", text(links[0]))
			}
		}},
		{"script dashboard id", Dashboards(p, []DashboardItem{{PublicID: "javascript:alert(1)", Title: "x"}}), func(t *testing.T, doc *html.Node) {
			link := all(doc, func(e *html.Node) bool { return attr(e, "class") == "dashboard-link" })[0]
			if got := attr(link, "href"); got != "/dashboards/javascript:alert%281%29" {
				t.Errorf("href = %q, want a path under /dashboards/", got)
			}
		}},
		{"embed scripts", EmbedScripts("javascript:alert(1)"), func(t *testing.T, doc *html.Node) {
			if src := attr(byTag(doc, "script")[0], "src"); src != string(templ.FailedSanitizationURL) {
				t.Errorf("src = %q, want sanitised", src)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := render(t, tt.c)
			if strings.Contains(out, evil) {
				t.Errorf("output contains the unescaped payload %q", evil)
			}
			if strings.Contains(out, `="javascript:`) {
				t.Errorf("an attribute holds a javascript: URL")
			}
			if strings.Contains(out, "<title>"+evil) {
				t.Error("title not escaped")
			}
			tt.check(t, parse(t, out))
		})
	}
}

func TestSignedOutLayout(t *testing.T) {
	doc := parse(t, render(t, Layout(signedOut(), templ.NopComponent)))
	a := mustID(t, doc, "sign-in")
	if a.Data != "a" || attr(a, "href") != "/login" {
		t.Errorf("#sign-in = <%s href=%q>, want <a href=\"/login\">", a.Data, attr(a, "href"))
	}
	for _, id := range []string{"logout-form", "logout-button", "account-menu", "account-name"} {
		if byID(doc, id) != nil {
			t.Errorf("#%s present when signed out", id)
		}
	}
	if n := len(byTag(doc, "form")); n != 0 {
		t.Errorf("%d forms when signed out, want 0", n)
	}
}

func TestAccountMenu(t *testing.T) {
	doc := parse(t, render(t, Layout(signedIn(), templ.NopComponent)))
	menu := mustID(t, doc, "account-menu")
	if menu.Data != "details" {
		t.Errorf("#account-menu is <%s>, want <details>", menu.Data)
	}
	if got := text(mustID(t, doc, "account-name")); got != "Ada Lovelace" {
		t.Errorf("#account-name = %q", got)
	}
	if got := text(mustID(t, doc, "account-tenant")); got != "Northwind Traders" {
		t.Errorf("#account-tenant = %q", got)
	}
	if got := text(menu); !strings.Contains(got, "ada@northwind.example") || !strings.Contains(got, "Creator") {
		t.Errorf("menu text %q lacks the email or the creator badge", got)
	}
	avatar := all(menu, func(e *html.Node) bool { return attr(e, "class") == "avatar" })
	if len(avatar) != 1 || text(avatar[0]) != "AL" {
		t.Errorf("avatar = %v", avatar)
	}

	form := mustID(t, doc, "logout-form")
	if form.Data != "form" || attr(form, "method") != "post" || attr(form, "action") != "/logout" {
		t.Errorf("#logout-form = <%s method=%q action=%q>", form.Data, attr(form, "method"), attr(form, "action"))
	}
	inputs := byTag(form, "input")
	if len(inputs) != 1 || attr(inputs[0], "type") != "hidden" || attr(inputs[0], "name") != "csrf_token" || attr(inputs[0], "value") != "csrf-token-123" {
		t.Errorf("logout form inputs = %v", inputs)
	}
	btn := mustID(t, form, "logout-button")
	if btn.Data != "button" || attr(btn, "type") != "submit" || text(btn) != "Sign out" {
		t.Errorf("#logout-button = <%s type=%q>%s", btn.Data, attr(btn, "type"), text(btn))
	}
	if !isInside(form, menu) {
		t.Error("#logout-form is not inside #account-menu")
	}
}

func isInside(n, ancestor *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p == ancestor {
			return true
		}
	}
	return false
}

func TestLayoutHead(t *testing.T) {
	tests := []struct {
		name       string
		p          Page
		title      string
		scheme     string
		hasScheme  bool
		activeHref string
	}{
		{"titled", signedIn(), "Dashboards · Ledgerly", "", false, "/dashboards"},
		{"untitled default name", Page{}, "Ledgerly", "", false, ""},
		{"dark", Page{Title: "Home", AppName: "Acme", Scheme: "dark"}, "Home · Acme", "dark", true, ""},
		{"light", Page{Scheme: "light"}, "Ledgerly", "light", true, ""},
		{"auto", Page{Scheme: "auto"}, "Ledgerly", "", false, ""},
		{"unknown scheme", Page{Scheme: `x" onload="y`}, "Ledgerly", "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parse(t, render(t, Layout(tt.p, templ.NopComponent)))
			if got := text(byTag(doc, "title")[0]); got != tt.title {
				t.Errorf("title = %q, want %q", got, tt.title)
			}
			h := byTag(doc, "html")[0]
			if hasAttr(h, "data-scheme") != tt.hasScheme || attr(h, "data-scheme") != tt.scheme {
				t.Errorf("data-scheme = %q (present %v), want %q", attr(h, "data-scheme"), hasAttr(h, "data-scheme"), tt.scheme)
			}
			var css, js bool
			for _, l := range byTag(doc, "link") {
				css = css || (attr(l, "rel") == "stylesheet" && attr(l, "href") == "/static/app.css")
			}
			for _, s := range byTag(doc, "script") {
				js = js || (attr(s, "src") == "/static/app.js" && hasAttr(s, "defer") && s.Parent.Data == "head")
			}
			if !css || !js {
				t.Errorf("stylesheet linked %v, deferred app script in head %v", css, js)
			}
			var active []string
			for _, a := range all(doc, func(e *html.Node) bool { return attr(e, "aria-current") == "page" }) {
				active = append(active, attr(a, "href"))
			}
			for _, href := range active {
				if href != tt.activeHref {
					t.Errorf("aria-current on %q, want only %q", href, tt.activeHref)
				}
			}
			if tt.activeHref != "" && len(active) == 0 {
				t.Error("no link marked aria-current")
			}
		})
	}
}

func TestDashboards(t *testing.T) {
	doc := parse(t, render(t, Dashboards(signedIn(), dashboardItems())))
	list := mustID(t, doc, "dashboards")
	if list.Data != "ul" {
		t.Errorf("#dashboards is <%s>, want <ul>", list.Data)
	}
	items := byTag(list, "li")
	if len(items) != 2 {
		t.Fatalf("%d cards, want 2", len(items))
	}
	wantHref := []string{"/dashboards/revenue", "/dashboards/overdue"}
	for i, li := range items {
		links := all(li, func(e *html.Node) bool { return attr(e, "class") == "dashboard-link" })
		if len(links) != 1 || links[0].Data != "a" || attr(links[0], "href") != wantHref[i] {
			t.Errorf("card %d links = %v, want one a.dashboard-link to %s", i, links, wantHref[i])
		}
	}
	if !strings.Contains(text(items[0]), "Invoiced and paid, month by month.") {
		t.Errorf("card 0 text = %q, want the description", text(items[0]))
	}
	if len(all(items[1], func(e *html.Node) bool { return attr(e, "class") == "dashboard-description" })) != 0 {
		t.Error("card without a description renders an empty one")
	}
	if !strings.Contains(text(mustID(t, doc, "main")), "Northwind Traders") {
		t.Error("lead does not name the organisation")
	}
}

func TestEmbedViews(t *testing.T) {
	tests := []struct {
		name       string
		c          templ.Component
		heading    string
		frameTitle string
		sessionURL bool
		hostScript string
		breadcrumb bool
	}{
		{"dashboard", DashboardView(signedIn(), embedView()), "Revenue overview", "Revenue overview", true, DefaultHostScriptURL, true},
		{"creator", CreatorView(signedIn(), embedView()), "Workspace", "Revenue overview", true, DefaultHostScriptURL, false},
		{"ask", AskView(signedIn(), embedView()), "Ask", "Revenue overview", true, DefaultHostScriptURL, false},
		{"creator untitled", CreatorView(signedIn(), EmbedView{FrameSrc: "/embed/frame/workspace", Target: "workspace", HostScriptURL: "/kit/host.js"}), "Workspace", "Workspace", false, "/kit/host.js", false},
		{"dashboard untitled", DashboardView(signedIn(), EmbedView{FrameSrc: "/f"}), "Dashboard", "Dashboard", false, DefaultHostScriptURL, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parse(t, render(t, tt.c))
			if got := text(mustID(t, doc, "page-title")); got != tt.heading {
				t.Errorf("heading = %q, want %q", got, tt.heading)
			}
			f := mustID(t, doc, "embed-frame")
			if f.Data != "iframe" || !hasAttr(f, "data-embedkit") || attr(f, "title") != tt.frameTitle || attr(f, "referrerpolicy") != "no-referrer" {
				t.Errorf("iframe = %v", f.Attr)
			}
			if hasAttr(f, "data-embedkit-session-url") != tt.sessionURL {
				t.Errorf("data-embedkit-session-url present = %v, want %v", !tt.sessionURL, tt.sessionURL)
			}
			status := mustID(t, doc, "embed-status")
			if attr(status, "role") != "status" || attr(status, "data-state") != "loading" {
				t.Errorf("#embed-status = %v", status.Attr)
			}
			scripts := byTag(doc, "script")
			last := scripts[len(scripts)-1]
			if attr(last, "src") != tt.hostScript || !hasAttr(last, "defer") {
				t.Errorf("last script = %v, want the deferred host script %s", last.Attr, tt.hostScript)
			}
			if got := len(all(doc, func(e *html.Node) bool { return attr(e, "aria-label") == "Breadcrumb" })) == 1; got != tt.breadcrumb {
				t.Errorf("breadcrumb present = %v, want %v", got, tt.breadcrumb)
			}
		})
	}

	t.Run("frame attributes", func(t *testing.T) {
		doc := parse(t, render(t, DashboardView(signedIn(), embedView())))
		f := mustID(t, doc, "embed-frame")
		want := map[string]string{
			"src":                       "https://analytics.example/embed/dashboard/revenue?session=s-1&locale=fr-FR",
			"data-embedkit-target":      "sales",
			"data-embedkit-session-url": "/embed/session",
			"data-embedkit-origin":      "https://analytics.example",
		}
		for k, v := range want {
			if got := attr(f, k); got != v {
				t.Errorf("%s = %q, want %q", k, got, v)
			}
		}
	})
}

// TestModulePage checks the module page's iframe: its src as given, and
// data-embedkit-target, which the module re-mints the frame by, only
// when the view names a target.
func TestModulePage(t *testing.T) {
	const src = "https://analytics.example/embed/dashboard/revenue?session=s-1&locale=fr-FR"
	tests := []struct {
		name   string
		target string
	}{
		{"with a target", "dashboard/revenue"},
		{"without a target", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := ModuleView{Title: "Module", FrameSrc: src, Target: tt.target, FrameTitle: "Revenue", Config: `{"settings":{}}`, ScriptURL: "/static/module.js"}
			doc := parse(t, render(t, ModulePage(signedIn(), v)))
			f := mustID(t, doc, "module-frame")
			// The src waits in data-module-src until the module listens.
			if f.Data != "iframe" || hasAttr(f, "src") || attr(f, "data-module-src") != src || !hasAttr(f, "data-embedkit") || attr(f, "title") != "Revenue" || attr(f, "referrerpolicy") != "no-referrer" {
				t.Errorf("iframe = %v", f.Attr)
			}
			if got := hasAttr(f, "data-embedkit-target"); got != (tt.target != "") || attr(f, "data-embedkit-target") != tt.target {
				t.Errorf("data-embedkit-target present %v = %q, want %q", got, attr(f, "data-embedkit-target"), tt.target)
			}
		})
	}
}

func TestSettings(t *testing.T) {
	tests := []struct {
		name  string
		panel SettingsPanel
		want  map[string][]string // select id -> option values, the selected one first
	}{
		{
			name:  "defaults",
			panel: settingsPanel(),
			want: map[string][]string{
				"locale-select":   {"fr-FR", "en-US", "fr-FR"},
				"timezone-select": {"Europe/Paris", "UTC", "Europe/Paris"},
				"scheme-select":   {"dark", "auto", "light", "dark"},
			},
		},
		{
			name: "saved value not offered",
			panel: SettingsPanel{
				Locale: "pt-BR", TimeZone: "Asia/Tokyo", Scheme: "light",
				Locales:   []Option{{Value: "en-US", Label: "English"}},
				TimeZones: []Option{{Value: "UTC", Label: "UTC"}},
				Schemes:   []Option{{Value: "light", Label: "Light"}, {Value: "dark", Label: "Dark"}},
			},
			want: map[string][]string{
				"locale-select":   {"pt-BR", "en-US", "pt-BR"},
				"timezone-select": {"Asia/Tokyo", "UTC", "Asia/Tokyo"},
				"scheme-select":   {"light", "light", "dark"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parse(t, render(t, Settings(tt.panel, "tok")))
			form := mustID(t, doc, "settings")
			if form.Data != "form" || attr(form, "method") != "post" || attr(form, "action") != "/settings" {
				t.Errorf("#settings = <%s method=%q action=%q>", form.Data, attr(form, "method"), attr(form, "action"))
			}
			hidden := all(form, func(e *html.Node) bool { return attr(e, "name") == "csrf_token" })
			if len(hidden) != 1 || attr(hidden[0], "type") != "hidden" || attr(hidden[0], "value") != "tok" {
				t.Errorf("csrf inputs = %v", hidden)
			}
			names := map[string]string{"locale-select": "locale", "timezone-select": "timezone", "scheme-select": "scheme"}
			for id, want := range tt.want {
				sel := mustID(t, doc, id)
				if sel.Data != "select" || attr(sel, "name") != names[id] {
					t.Errorf("#%s = <%s name=%q>, want <select name=%q>", id, sel.Data, attr(sel, "name"), names[id])
				}
				var values, selected []string
				for _, o := range byTag(sel, "option") {
					values = append(values, attr(o, "value"))
					if hasAttr(o, "selected") {
						selected = append(selected, attr(o, "value"))
					}
				}
				if len(selected) != 1 || selected[0] != want[0] {
					t.Errorf("#%s selected = %v, want [%s]", id, selected, want[0])
				}
				if !slices.Equal(values, want[1:]) {
					t.Errorf("#%s options = %v, want %v", id, values, want[1:])
				}
			}
			btn := mustID(t, doc, "settings-save")
			if attr(btn, "type") != "submit" || !isInside(btn, form) {
				t.Error("#settings-save is not a submit button of the form")
			}
		})
	}
}

func TestErrorFor(t *testing.T) {
	want := map[string]int{
		KindOutage: 503, KindLoginExpired: 401, KindForbidden: 403,
		KindNotFound: 404, KindBadRequest: 400, KindInternal: 500,
	}
	if len(ErrorKinds) != len(want) {
		t.Fatalf("ErrorKinds has %d kinds, want %d", len(ErrorKinds), len(want))
	}
	titles := map[string]bool{}
	for _, kind := range ErrorKinds {
		t.Run(kind, func(t *testing.T) {
			e := ErrorFor(kind)
			if e.Kind != kind || e.Status != want[kind] {
				t.Errorf("ErrorFor(%q) = kind %q status %d, want %q %d", kind, e.Kind, e.Status, kind, want[kind])
			}
			if e.Title == "" || e.Detail == "" || e.RetryURL == "" || e.RetryLabel == "" {
				t.Errorf("ErrorFor(%q) leaves a text empty: %+v", kind, e)
			}
			if titles[e.Title] {
				t.Errorf("title %q shared with another kind", e.Title)
			}
			titles[e.Title] = true
		})
	}
	if e := ErrorFor("no-such-kind"); e.Kind != KindInternal || e.Status != 500 {
		t.Errorf("unknown kind = %+v, want the internal copy", e)
	}
	if e := ErrorFor(KindOutage); e.Title != "Analytics are temporarily unavailable" {
		t.Errorf("outage title = %q", e.Title)
	}
}

func TestErrorPage(t *testing.T) {
	tests := []struct {
		name      string
		e         ErrorView
		actionID  string
		href      string
		label     string
		status    string
		titleText string
	}{
		{"outage", ErrorFor(KindOutage), "error-retry", "/dashboards", "Try again", "Error 503", "Analytics are temporarily unavailable"},
		{"outage retrying a page", ErrorView{Status: 503, Kind: KindOutage, RetryURL: "/dashboards/revenue"}, "error-retry", "/dashboards/revenue", "Try again", "Error 503", "Analytics are temporarily unavailable"},
		{"login expired", ErrorFor(KindLoginExpired), "error-sign-in", "/login", "Sign in again", "Error 401", "Your session has ended"},
		{"forbidden", ErrorFor(KindForbidden), "error-back", "/dashboards", "Back to dashboards", "Error 403", ErrorFor(KindForbidden).Title},
		{"not found", ErrorFor(KindNotFound), "error-back", "/dashboards", "Back to dashboards", "Error 404", ErrorFor(KindNotFound).Title},
		{"bad request", ErrorFor(KindBadRequest), "error-back", "/dashboards", "Back to dashboards", "Error 400", ErrorFor(KindBadRequest).Title},
		{"internal", ErrorFor(KindInternal), "error-retry", "/", "Go to the home page", "Error 500", ErrorFor(KindInternal).Title},
		{"custom copy", ErrorView{Kind: KindForbidden, Title: "Not yours", Detail: "Ask Grace.", RetryURL: "/help", RetryLabel: "Get help"}, "error-back", "/help", "Get help", "", "Not yours"},
		{"unknown kind", ErrorView{Kind: "teapot"}, "error-retry", "/", "Go to the home page", "", ErrorFor(KindInternal).Title},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parse(t, render(t, ErrorPage(signedIn(), tt.e)))
			if got := text(mustID(t, doc, "error-title")); got != tt.titleText {
				t.Errorf("title = %q, want %q", got, tt.titleText)
			}
			if text(mustID(t, doc, "error-detail")) == "" {
				t.Error("detail empty")
			}
			a := mustID(t, doc, tt.actionID)
			if a.Data != "a" || attr(a, "href") != tt.href || text(a) != tt.label {
				t.Errorf("#%s = <%s href=%q>%s, want href %q text %q", tt.actionID, a.Data, attr(a, "href"), text(a), tt.href, tt.label)
			}
			statuses := all(doc, func(e *html.Node) bool { return strings.Contains(attr(e, "class"), "error-status") })
			got := ""
			if len(statuses) > 0 {
				got = text(statuses[0])
			}
			if got != tt.status {
				t.Errorf("status line = %q, want %q", got, tt.status)
			}
		})
	}
}

func TestInitials(t *testing.T) {
	tests := []struct {
		name string
		u    User
		want string
	}{
		{"given", User{Initials: "XY", DisplayName: "Ada Lovelace"}, "XY"},
		{"two words", User{DisplayName: "ada lovelace"}, "AL"},
		{"three words", User{DisplayName: "Grace Brewster Hopper"}, "GB"},
		{"one word", User{DisplayName: "Ada"}, "A"},
		{"accented", User{DisplayName: "Élodie Ørsted"}, "ÉØ"},
		{"from email", User{Email: "grace.hopper@navy.example"}, "GH"},
		{"symbols", User{DisplayName: "<>"}, "?"},
		{"nothing", User{}, "?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := initials(&tt.u); got != tt.want {
				t.Errorf("initials = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		file string
		c    templ.Component
	}{
		{"home_signed_out.golden.html", Home(signedOut())},
		{"dashboard_view.golden.html", DashboardView(signedIn(), embedView())},
		{"project_view.golden.html", ProjectView(signedIn(), "Nordics <rollout>", projectView())},
		{"projects.golden.html", Projects(signedIn(), []ProjectItem{{ID: "nordics/rollout", Name: "Nordics", Description: "North"}, {ID: "p2", Name: "Two"}})},
		{"projects_empty.golden.html", Projects(signedIn(), nil)},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := render(t, tt.c)
			path := filepath.Join("testdata", tt.file)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the rendered page; run go test ./web/templates -update and review the diff\ngot:\n%s", path, got)
			}
		})
	}
}
