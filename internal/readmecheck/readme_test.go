package readmecheck

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository's top folder, from this package's folder.
const root = "../.."

// doc is a Markdown page the tests read: the README and every page under
// docs/.
type doc struct {
	path string // from the repository's top folder
	text string
}

func docs(t *testing.T) []doc {
	t.Helper()
	paths := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		rel, _ := filepath.Rel(root, m)
		paths = append(paths, filepath.ToSlash(rel))
	}
	var out []doc
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, doc{p, string(b)})
	}
	return out
}

// block is a fenced code block of a page.
type block struct {
	page string
	line int // of the opening fence
	lang string
	code string
}

var fence = regexp.MustCompile("(?ms)^```([a-z]*)\n(.*?)^```")

func blocks(t *testing.T, lang ...string) []block {
	t.Helper()
	var out []block
	for _, d := range docs(t) {
		for _, m := range fence.FindAllStringSubmatchIndex(d.text, -1) {
			l := d.text[m[2]:m[3]]
			if len(lang) > 0 && !slices.Contains(lang, l) {
				continue
			}
			out = append(out, block{d.path, strings.Count(d.text[:m[0]], "\n") + 1, l, d.text[m[4]:m[5]]})
		}
	}
	return out
}

// TestReadmeOpensWithTwoCommands: the README's first code block is the
// two set-up commands, one for the demo and one for every test, and CI
// runs that same test command.
func TestReadmeOpensWithTwoCommands(t *testing.T) {
	all := blocks(t)
	if len(all) == 0 || all[0].page != "README.md" || all[0].lang != "sh" {
		t.Fatal("the README does not open with a sh block")
	}
	first := all[0]
	var cmds []string
	for line := range strings.SplitSeq(strings.TrimSpace(first.code), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	if want := []string{"go run ./cmd/demo", "make test"}; !slices.Equal(cmds, want) {
		t.Errorf("the README's first block runs %q, want %q", cmds, want)
	}
	if first.line > 25 {
		t.Errorf("the two commands start at line %d, below the first screen", first.line)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^exec make test$`).Match(ci) {
		t.Errorf(".ci/run does not run the README's test command:\n%s", ci)
	}
}

// prelude is what the Go examples take as given: a host app's own values
// (its mux, its users, its config), declared once, so that each example
// compiles as written in a function of its own.
const prelude = `package readmecheck

import (
	"context"
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/scssession"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

type project struct{ ID string }

type projectList struct{}

func (projectList) Visible(*middleware.Viewer, string) (project, bool) { return project{}, false }

var (
	ctx         context.Context
	mux, admin  = http.NewServeMux(), http.NewServeMux()
	platformURL = "https://acme.example.com"
	baseURL     = platformURL
	apiKey      string
	devOverHTTP bool
	addr        = "127.0.0.1:8080"
	yourLogout  http.Handler
	salesPage   string
	w           http.ResponseWriter
	r           *http.Request
	user        struct {
		ID, Email string
		Groups    []string
	}
	identity    *gorillasession.Identity
	scsIdentity *scssession.Identity
	client      *embedkit.Client
	myIdentity  middleware.Identity
	kit         *middleware.Kit
	cfg         middleware.Config
	myTargets   map[string]middleware.Target
	salesTarget middleware.Target
	projects    projectList
	reg         prometheus.Registerer
	t           *testing.T
	signedIn    func(subject string, r *http.Request) *http.Request
	myRoutes    func(*middleware.Kit) http.Handler
	p           *embedkittest.Platform // embedkittest.NewPlatform(t), in a test
)
`

// imports maps the package names the examples use to their paths.
var imports = map[string]string{
	"context":        "context",
	"errors":         "errors",
	"json":           "encoding/json",
	"template":       "html/template",
	"log":            "log",
	"slog":           "log/slog",
	"http":           "net/http",
	"httptest":       "net/http/httptest",
	"cookiejar":      "net/http/cookiejar",
	"url":            "net/url",
	"os":             "os",
	"time":           "time",
	"embedkit":       "github.com/embedkit/embedkit/embedkit",
	"emulator":       "github.com/embedkit/embedkit/embedkit/emulator",
	"middleware":     "github.com/embedkit/embedkit/middleware",
	"gorillasession": "github.com/embedkit/embedkit/adapters/gorillasession",
	"memstore":       "github.com/embedkit/embedkit/adapters/memstore",
	"redisstore":     "github.com/embedkit/embedkit/adapters/redisstore",
	"oidcclaims":     "github.com/embedkit/embedkit/adapters/oidcclaims",
	"proxyheaders":   "github.com/embedkit/embedkit/adapters/proxyheaders",
	"ekprom":         "github.com/embedkit/embedkit/adapters/ekprom",
	"ekotel":         "github.com/embedkit/embedkit/adapters/ekotel",
	"doctor":         "github.com/embedkit/embedkit/doctor",
	"embedkittest":   "github.com/embedkit/embedkit/embedkittest",
	"otel":           "go.opentelemetry.io/otel",
	"propagation":    "go.opentelemetry.io/otel/propagation",
	"otelhttp":       "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp",
	"redis":          "github.com/redis/go-redis/v9",
	"scs":            "github.com/alexedwards/scs/v2",
	"goredisstore":   "github.com/alexedwards/scs/goredisstore",
	"scssession":     "github.com/embedkit/embedkit/adapters/scssession",
	"identitytest":   "github.com/embedkit/embedkit/adapters/identitytest",
	"oidc":           "github.com/coreos/go-oidc/v3/oidc",
	"testing":        "testing",
}

// qualifiers returns the names that qualify another in code (x of
// x.Y), outside comments and strings.
func qualifiers(code string) []string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(code)), []byte(code), nil, 0)
	var out []string
	prev := ""
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.PERIOD && prev != "" {
			out = append(out, prev)
		}
		prev = ""
		if tok == token.IDENT {
			prev = lit
		}
	}
}

// exampleFile makes a Go file of one example: the example in a function,
// the imports it names, and a use of every variable it declares at its
// top level (an example may declare what the reader goes on to use).
func exampleFile(t *testing.T, b block, n int) string {
	t.Helper()
	fn := fmt.Sprintf("example%d", n)
	body := "func " + fn + "() {\n" + b.code + "}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", "package p\n"+body, 0)
	if err != nil {
		t.Fatalf("%s:%d: the Go example does not parse as statements: %v", b.page, b.line, err)
	}
	var uses []string
	for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE {
			continue
		}
		for _, l := range as.Lhs {
			if id, ok := l.(*ast.Ident); ok && id.Name != "_" && !slices.Contains(uses, id.Name) {
				uses = append(uses, id.Name)
			}
		}
	}
	var src strings.Builder
	fmt.Fprintf(&src, "// %s:%d\n\npackage readmecheck\n\nimport (\n", b.page, b.line)
	seen := map[string]bool{}
	for _, q := range qualifiers(b.code) {
		if p, ok := imports[q]; ok && !seen[p] && !declares(uses, q) {
			seen[p] = true
			fmt.Fprintf(&src, "\t%q\n", p)
		}
	}
	src.WriteString(")\n\nfunc " + fn + "() {\n" + b.code)
	for _, u := range uses {
		fmt.Fprintf(&src, "\t_ = %s\n", u)
	}
	src.WriteString("}\n")
	return src.String()
}

func declares(uses []string, name string) bool { return slices.Contains(uses, name) }

// TestGoExamplesCompile builds every Go example of the README and of
// docs/ in a module of its own that requires embedkit through a replace
// directive, as a host app does, offline.
func TestGoExamplesCompile(t *testing.T) {
	var examples []block
	for _, b := range blocks(t, "go") {
		if !wholeFile(b) { // whole files: TestRouterExamplesCompile
			examples = append(examples, b)
		}
	}
	if len(examples) < 10 {
		t.Fatalf("found %d Go examples, want the README's and docs' (10 or more)", len(examples))
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := fmt.Sprintf("module readmecheck\n\ngo 1.26.0\n\nrequire github.com/embedkit/embedkit v0.0.0\n\nreplace github.com/embedkit/embedkit => %s\n", abs)
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", gomod)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))
	write("prelude.go", prelude)
	where := map[string]block{}
	for i, b := range examples {
		name := fmt.Sprintf("example%02d.go", i)
		where[name] = b
		write(name, exampleFile(t, b, i))
	}
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		// Name each failing example by its page and line.
		msg := string(out)
		for name, b := range where {
			msg = strings.ReplaceAll(msg, "./"+name, fmt.Sprintf("%s:%d (%s)", b.page, b.line, name))
		}
		t.Fatalf("the Go examples do not compile as a host app's code:\n%s", msg)
	}
}

// fixtureMembers reads the controls every dashboard of the emulator has:
// the members a filter, time-grain or member-switch example can name and
// see applied.
func fixtureMembers(t *testing.T) map[string]bool {
	t.Helper()
	js, err := os.ReadFile(filepath.Join(root, "embedkit", "emulator", "assets", "embed.js"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, v := range []string{"FILTERS", "GRAINS", "SWITCHES"} {
		m := regexp.MustCompile(`var ` + v + ` = (\{.*\});`).FindSubmatch(js)
		if m == nil {
			t.Fatalf("the emulator's page declares no %s", v)
		}
		for _, k := range regexp.MustCompile(`"([a-z_]+\.[a-z_]+)"`).FindAllSubmatch(m[1], -1) {
			out[string(k[1])] = true
		}
	}
	return out
}

// fixtureDashboards reads the public ids of the built-in fixture's
// dashboards.
func fixtureDashboards(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "embedkit", "emulator", "fixtures", "demo.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Deployments []struct {
			Dashboards []struct {
				PublicID string `json:"publicId"`
			} `json:"dashboards"`
		} `json:"deployments"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, dep := range f.Deployments {
		for _, d := range dep.Dashboards {
			out[d.PublicID] = true
		}
	}
	if len(out) == 0 {
		t.Fatal("the built-in fixture has no dashboards")
	}
	return out
}

// The ways an example names a member or a dashboard.
var (
	memberRefs = []*regexp.Regexp{
		regexp.MustCompile(`setFilter\("([^"]+)"`),
		regexp.MustCompile(`Member: "([^"]+)"`),
		regexp.MustCompile(`filters=\{\{ "([^"]+)"`),
		regexp.MustCompile(`\b(?:f|tg|ms)_([a-z_]+\.[a-z_]+)=`),
		regexp.MustCompile(`data-embedkit-filter-([a-z_]+\.[a-z_]+)`),
	}
	dashboardRefs = []*regexp.Regexp{
		regexp.MustCompile(`PublicID: "([^"]+)"`),
		regexp.MustCompile(`/embed/frame/dashboard/([a-z0-9-]+)`),
	}
)

// TestExamplesNameWhatTheFixtureHas: every member and dashboard an
// example names exists in the built-in fixture, so that an example run
// against the emulator shows its effect (the platform applies a filter
// only where a matching control exists, and ignores it without a trace
// otherwise).
func TestExamplesNameWhatTheFixtureHas(t *testing.T) {
	members, dashboards := fixtureMembers(t), fixtureDashboards(t)
	for _, b := range blocks(t) {
		for _, re := range memberRefs {
			for _, m := range re.FindAllStringSubmatch(b.code, -1) {
				if !members[m[1]] {
					t.Errorf("%s:%d: the example names member %q, which no dashboard of the built-in fixture has (it has %v)", b.page, b.line, m[1], keys(members))
				}
			}
		}
		for _, re := range dashboardRefs {
			for _, m := range re.FindAllStringSubmatch(b.code, -1) {
				if !dashboards[m[1]] && m[1] != "project-sales" {
					t.Errorf("%s:%d: the example names dashboard %q, which the built-in fixture does not have", b.page, b.line, m[1])
				}
			}
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinksResolve: every relative link of the README and docs/ names a
// file that exists, and every #fragment a heading of that page.
func TestLinksResolve(t *testing.T) {
	headings := map[string]map[string]bool{}
	for _, d := range docs(t) {
		hs := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^#{1,6} (.+)$`).FindAllStringSubmatch(d.text, -1) {
			hs[slug(m[1])] = true
		}
		headings[d.path] = hs
	}
	for _, d := range docs(t) {
		// Links inside code blocks are code, not links.
		text := fence.ReplaceAllString(d.text, "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			page := d.path
			if file != "" {
				page = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(d.path), file)))
				if _, err := os.Stat(filepath.Join(root, page)); err != nil {
					t.Errorf("%s: link %q: %s does not exist", d.path, target, page)
					continue
				}
			}
			if frag != "" {
				if hs, ok := headings[page]; ok && !hs[frag] {
					t.Errorf("%s: link %q: %s has no heading #%s", d.path, target, page, frag)
				}
			}
		}
	}
}

// slug is the anchor GitHub gives a heading.
func slug(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// wholeFile reports whether a Go example is a file of its own, with its
// package clause and imports, rather than statements.
func wholeFile(b block) bool {
	return strings.HasPrefix(strings.TrimSpace(b.code), "package ")
}

// routerModules are the modules the router examples import, and the
// router package whose name is middleware too, if any: an example that
// imports it must give it another name.
var routerModules = []struct{ module, middleware string }{
	{"github.com/go-chi/chi/v5", "github.com/go-chi/chi/v5/middleware"},
	{"github.com/labstack/echo/v4", "github.com/labstack/echo/v4/middleware"},
	{"github.com/gin-gonic/gin", ""},
}

// TestRouterExamplesCompile builds every Go example that is a whole file
// (docs/routers.md's, which import chi, echo and gin) in a copy of the
// module internal/readmecheck/routers: it requires the routers, and
// embedkit from this checkout through a replace directive, so the kit's
// own go.mod requires no router. Its modules come from the Go module
// proxy ($GOPROXY) or the module cache. Each example is a package of its
// own; each router has one, and one that imports a router's middleware
// package beside the kit's names it otherwise. An example that defines
// routes(kit, salesPage, yourLogout) is then served, and each of the
// kit's endpoints must answer through it (routers/routestest).
func TestRouterExamplesCompile(t *testing.T) {
	var examples []block
	for _, b := range blocks(t, "go") {
		if wholeFile(b) {
			examples = append(examples, b)
		}
	}
	for _, r := range routerModules {
		n := 0
		for _, b := range examples {
			if b.page == "docs/routers.md" && strings.Contains(b.code, `"`+r.module+`"`) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("docs/routers.md has no Go example that imports %s", r.module)
		}
	}
	for _, b := range examples {
		for _, r := range routerModules {
			if r.middleware != "" && strings.Contains(b.code, `"`+r.middleware+`"`) &&
				!regexp.MustCompile(`(?m)^\s*[A-Za-z_][A-Za-z0-9_]* "`+regexp.QuoteMeta(r.middleware)+`"`).MatchString(b.code) &&
				strings.Contains(b.code, `"github.com/embedkit/embedkit/middleware"`) {
				t.Errorf("%s:%d: imports %s and the kit's middleware without an alias for either", b.page, b.line, r.middleware)
			}
		}
	}

	src := filepath.Join(root, "internal", "readmecheck", "routers")
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyFile := func(name string, edit func(string) string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if edit != nil {
			text = edit(text)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	replace := regexp.MustCompile(`(?m)^replace github.com/embedkit/embedkit => .*$`)
	copyFile("go.mod", func(s string) string {
		if !replace.MatchString(s) {
			t.Fatal("internal/readmecheck/routers/go.mod has no replace directive for embedkit")
		}
		return replace.ReplaceAllString(s, "replace github.com/embedkit/embedkit => "+abs)
	})
	copyFile("go.sum", nil)
	copyFile("routers.go", nil)
	where := map[string]block{}
	for i, b := range examples {
		name := fmt.Sprintf("example%02d", i)
		where[name] = b
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("// %s:%d\n\n%s", b.page, b.line, b.code)
		if err := os.WriteFile(filepath.Join(dir, name, "example.go"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		// An example that defines routes, as each of docs/routers.md's
		// does, is also served: every endpoint must answer.
		if strings.Contains(b.code, "\nfunc routes(") {
			pkg := strings.Fields(strings.TrimSpace(b.code))[1]
			test := "package " + pkg + "\n\nimport (\n\t\"testing\"\n\n\t\"github.com/embedkit/embedkit/internal/readmecheck/routers/routestest\"\n)\n\n" +
				"func TestRoutes(t *testing.T) { routestest.Check(t, routes) }\n"
			if err := os.WriteFile(filepath.Join(dir, name, "example_test.go"), []byte(test), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.CopyFS(filepath.Join(dir, "routestest"), os.DirFS(filepath.Join(src, "routestest"))); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			msg := string(out)
			for name, b := range where {
				msg = strings.ReplaceAll(msg, "routers/"+name, fmt.Sprintf("%s:%d (%s)", b.page, b.line, name))
				msg = strings.ReplaceAll(msg, name+"/", fmt.Sprintf("%s:%d (%s) ", b.page, b.line, name))
			}
			t.Fatalf("go %s of the router examples against internal/readmecheck/routers/go.mod (its modules come from $GOPROXY) failed:\n%s", args[0], msg)
		}
	}
}

// TestDocsStateTheFuzzCount checks the number of inputs docs/developing.md
// says each fuzz target runs against the default of scripts/test.sh.
func TestDocsStateTheFuzzCount(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(root, "scripts", "test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`fuzz_execs="\$\{FUZZ_EXECS:-([0-9]+)\}"`).FindSubmatch(script)
	if m == nil {
		t.Fatal(`scripts/test.sh sets no default fuzz_execs="${FUZZ_EXECS:-N}"`)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "developing.md"))
	if err != nil {
		t.Fatal(err)
	}
	stated := regexp.MustCompile(`([0-9][0-9,]*) inputs each`).FindSubmatch(page)
	if stated == nil {
		t.Fatal("docs/developing.md does not say how many inputs each fuzz target runs (\"N inputs each\")")
	}
	if got := strings.ReplaceAll(string(stated[1]), ",", ""); got != string(m[1]) {
		t.Errorf("docs/developing.md says %s inputs each; scripts/test.sh runs %s", stated[1], m[1])
	}
}
