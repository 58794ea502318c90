package middleware

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/internal/readme"
)

// TestHostScriptServed: the script is served with its settings, as
// JavaScript, with an ETag, 304 for a matching If-None-Match, and 405 for
// methods other than GET and HEAD.
func TestHostScriptServed(t *testing.T) {
	t.Parallel()
	tk := newTestKit(t, nil)
	w := serve(tk.HostScript(), httptest.NewRequest(http.MethodGet, "/embed/host.js", nil))
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/javascript; charset=utf-8" ||
		w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("status %d, headers %v", w.Code, w.Header())
	}
	js := w.Body.String()
	if want := `configure({"platformOrigin":"https://acme.example.com","sessionURL":"/embed/session","framePrefix":"/embed/frame/","version":"` + HostScriptVersion + `","targets":{"dashboard/dash-sales":{"path":"/embed/dashboard/dash-sales","grant":"` +
		tk.hostTargets["sales"].Grant + `","pinned":"` + tk.hostTargets["sales"].Pinned + `"},"sales":{"path":"/embed/dashboard/dash-sales","grant":"` +
		tk.hostTargets["sales"].Grant + `","pinned":"` + tk.hostTargets["sales"].Pinned + `"}}});`; !strings.Contains(js, want) {
		t.Errorf("script lacks its settings %s", want)
	}
	if strings.Contains(js, "EMBEDKIT_CONFIG") {
		t.Error("settings placeholder left in the script")
	}
	tk2 := newTestKit(t, func(c *Config) { c.Paths.Frame = "/analytics/frame/" })
	w2 := serve(tk2.HostScript(), httptest.NewRequest(http.MethodGet, "/embed/host.js", nil))
	if !strings.Contains(w2.Body.String(), `"framePrefix":"/analytics/frame/"`) {
		t.Error("Config.Paths.Frame does not reach the script")
	}
	if w2.Header().Get("ETag") == w.Header().Get("ETag") {
		t.Error("two different scripts share an ETag")
	}
	checkStatic(t, tk.HostScript(), "/embed/host.js", w.Header().Get("ETag"))
}

// checkStatic checks the conditional GET, HEAD and 405 answers of h, for
// a client that sends acceptEncoding (none when empty).
func checkStatic(t *testing.T, h http.Handler, path, tag string, acceptEncoding ...string) {
	t.Helper()
	if tag == "" {
		t.Fatal("no ETag")
	}
	serve := func(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
		for _, e := range acceptEncoding {
			r.Header.Set("Accept-Encoding", e)
		}
		return serve(h, r)
	}
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("If-None-Match", tag)
	if w := serve(h, r); w.Code != http.StatusNotModified || w.Body.Len() != 0 {
		t.Errorf("conditional GET: status %d, %d bytes", w.Code, w.Body.Len())
	}
	r = httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("If-None-Match", `"something-else"`)
	if w := serve(h, r); w.Code != http.StatusOK || w.Body.Len() == 0 {
		t.Errorf("GET with a stale ETag: status %d, %d bytes", w.Code, w.Body.Len())
	}
	if w := serve(h, httptest.NewRequest(http.MethodHead, path, nil)); w.Code != http.StatusOK || w.Body.Len() != 0 || w.Header().Get("ETag") != tag {
		t.Errorf("HEAD: status %d, %d bytes, ETag %q", w.Code, w.Body.Len(), w.Header().Get("ETag"))
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		w := serve(h, httptest.NewRequest(m, path, nil))
		if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: status %d, Allow %q", m, w.Code, w.Header().Get("Allow"))
		}
	}
}

// TestHostScriptCaching: at HostScriptSrc's URL (its content hash in ?v=)
// the script is immutable for a year, so a cached page view requests it
// not at all; at any other URL, an old hash included, it is no-cache with
// an ETag. It is sent gzip-compressed, with its own ETag, to a client that
// accepts gzip, and plain otherwise; both say they vary by
// Accept-Encoding. Another script (other settings) has another URL.
func TestHostScriptCaching(t *testing.T) {
	t.Parallel()
	tk := newTestKit(t, nil)
	src := tk.HostScriptSrc("/embed/host.js")
	if !strings.HasPrefix(src, "/embed/host.js?v=") || len(src) <= len("/embed/host.js?v=") {
		t.Fatalf("HostScriptSrc = %q, want the mount path with ?v=<hash>", src)
	}
	plain := serve(tk.HostScript(), httptest.NewRequest(http.MethodGet, "/embed/host.js", nil))
	tests := []struct {
		name, url, acceptEncoding string
		wantCache, wantEncoding   string
	}{
		{"versioned URL", src, "", "public, max-age=31536000, immutable", ""},
		{"versioned URL, gzip", src, "gzip, deflate, br", "public, max-age=31536000, immutable", "gzip"},
		{"bare URL", "/embed/host.js", "", "no-cache", ""},
		{"an old hash", "/embed/host.js?v=0123456789abcdef", "gzip", "no-cache", "gzip"},
		{"gzip refused by q=0", src, "gzip;q=0, br", "public, max-age=31536000, immutable", ""},
		{"any encoding", "/embed/host.js", "*", "no-cache", "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tt.url, nil)
			if tt.acceptEncoding != "" {
				r.Header.Set("Accept-Encoding", tt.acceptEncoding)
			}
			w := serve(tk.HostScript(), r)
			h := w.Header()
			if w.Code != http.StatusOK || h.Get("Cache-Control") != tt.wantCache || h.Get("Content-Encoding") != tt.wantEncoding || h.Get("Vary") != "Accept-Encoding" {
				t.Fatalf("status %d, Cache-Control %q, Content-Encoding %q, Vary %q; want %q, %q", w.Code, h.Get("Cache-Control"), h.Get("Content-Encoding"), h.Get("Vary"), tt.wantCache, tt.wantEncoding)
			}
			body := w.Body.Bytes()
			if tt.wantEncoding == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
				if w.Body.Len() >= plain.Body.Len() || h.Get("ETag") == plain.Header().Get("ETag") {
					t.Errorf("gzip: %d bytes against %d plain, ETag %q against %q", w.Body.Len(), plain.Body.Len(), h.Get("ETag"), plain.Header().Get("ETag"))
				}
				checkStatic(t, tk.HostScript(), tt.url, h.Get("ETag"), "gzip")
			}
			if !bytes.Equal(body, plain.Body.Bytes()) {
				t.Error("the script's content differs")
			}
		})
	}
	other := newTestKit(t, func(c *Config) { c.Paths.Frame = "/analytics/frame/" })
	if other.HostScriptSrc("/embed/host.js") == src {
		t.Error("two different scripts share a URL")
	}
}

// TestHostScriptTypesServed: the declarations are served as TypeScript,
// nosniff, with an ETag computed once, 304, HEAD and 405.
func TestHostScriptTypesServed(t *testing.T) {
	t.Parallel()
	tk := newTestKit(t, nil)
	w := serve(tk.HostScriptTypes(), httptest.NewRequest(http.MethodGet, "/embed/host.d.ts", nil))
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/typescript; charset=utf-8" ||
		w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("status %d, headers %v", w.Code, w.Header())
	}
	if w.Body.String() != string(hostScriptTypes) || !strings.Contains(w.Body.String(), "declare namespace embedkit {") {
		t.Error("the body is not hostscript.d.ts")
	}
	if tag := w.Header().Get("ETag"); tag != hostScriptTypesFile.tag {
		t.Errorf("ETag %q, want the precomputed %q", tag, hostScriptTypesFile.tag)
	}
	checkStatic(t, tk.HostScriptTypes(), "/embed/host.d.ts", w.Header().Get("ETag"))
}

// hostPageSource is the host page's one source, the modules under
// hostpage/src (index.js and the modules it imports, one per concern;
// not react.js), which the served script is generated from.
func hostPageSource(t *testing.T) string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("..", "hostpage", "src", "*.js"))
	if err != nil || len(names) == 0 {
		t.Fatalf("hostpage/src has no modules (%v)", err)
	}
	var b strings.Builder
	for _, name := range names {
		if filepath.Base(name) == "react.js" {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(src)
		b.WriteString("\n")
	}
	return b.String()
}

// TestHostScriptVocabulary reads the script's source (the module and the
// served bundle): every cube:event:* and cube:action:* it names is in
// embed-protocol.json, the envelope source is the contract's, the private
// dialect is gone, nothing posts to "*", the console is written in one
// place only (warn, whose callers name no URL), and the session
// endpoint's answer is used for its url and, in set-session only, its
// sessionId.
func TestHostScriptVocabulary(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{"hostpage/src": hostPageSource(t), "hostscript.js": string(hostScriptSource)} {
		t.Run(name, func(t *testing.T) { checkVocabulary(t, src) })
	}
}

func checkVocabulary(t *testing.T, src string) {
	p := readProtocol(t)
	known := map[string]bool{}
	for _, m := range append(slices.Clone(p.Events), p.Actions...) {
		known[m.Type] = true
	}
	literals := regexp.MustCompile(`cube:(?:event|action):[A-Za-z0-9_-]+`).FindAllString(src, -1)
	if len(literals) < len(p.Events) {
		t.Fatalf("the script names %d message types; the check below would see nothing", len(literals))
	}
	for _, l := range literals {
		if !known[l] {
			t.Errorf("the script names %q, which embed-protocol.json does not", l)
		}
	}
	if regexp.MustCompile(`["'` + "`" + `]cube:(?:event|action):["'` + "`" + `$]`).MatchString(src) {
		t.Error("the script builds message types by concatenation, which this test cannot check")
	}
	if m := regexp.MustCompile(`(?:var|const) SOURCE = "([^"]*)";`).FindStringSubmatch(src); m == nil || m[1] != p.Envelope.Source {
		t.Errorf("the script's source is %v, want %q", m, p.Envelope.Source)
	}
	for _, private := range []string{"platform-embed", "platform:", "renew-session"} {
		if strings.Contains(src, private) {
			t.Errorf("the script mentions %q", private)
		}
	}
	// A session id is read from the session endpoint's answer and posted
	// in cube:action:set-session, nowhere else.
	ids := 0
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if !strings.Contains(line, "sessionId") || strings.HasPrefix(line, "//") {
			continue
		}
		ids++
		if line != `var id = body ? body.sessionId : null;` && line != `if (!post(st, "cube:action:set-session", { sessionId: id })) {` {
			t.Errorf("the script uses a session id in %q; only set-session may carry one", line)
		}
	}
	if ids != 2 {
		t.Errorf("the script names sessionId on %d lines, want 2 (read from the answer, posted in set-session)", ids)
	}
	if regexp.MustCompile(`postMessage\([^;]*["']\*["']`).MatchString(src) {
		t.Error("the script posts to any origin")
	}
	if n := len(regexp.MustCompile(`\bconsole(?:\[|\.|\s*!==)`).FindAllString(src, -1)); n != 3 || !regexp.MustCompile(`typeof console\[level\] === "function"\) console\[level\]\("embedkit: " \+ message\)`).MatchString(src) {
		t.Errorf("the script names the console %d times; only log(level, message) may write to it, so nothing that could carry a session is logged", n)
	}
	calls := regexp.MustCompile(`(?s)\blog\((.*?)\);\n`).FindAllStringSubmatch(src, -1)
	if len(calls) < 3 {
		t.Errorf("found %d log() calls; the check below sees too little", len(calls))
	}
	for _, m := range calls {
		if regexp.MustCompile(`(?i)src|url|href|location|sessionId|payload|\.data\b`).MatchString(m[1]) {
			t.Errorf("log(%s) may write a URL or a payload, which can carry a session id", m[1])
		}
	}
	for _, m := range p.Actions {
		if !m.Documented && strings.Count(src, `"`+m.Type+`"`) != 1 {
			t.Errorf("%s (documented:false) appears %d times; it belongs to its one method only", m.Type, strings.Count(src, `"`+m.Type+`"`))
		}
	}
}

// dtsBlock returns the body of `interface name {…}` in src.
func dtsBlock(t *testing.T, src, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)\binterface ` + regexp.QuoteMeta(name) + `\b[^{]*\{(.*?)\n  \}`).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("hostscript.d.ts declares no interface %s", name)
	}
	return m[1]
}

// dtsFields returns the fields of an interface body: name -> optional.
func dtsFields(body string) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+"?([A-Za-z][A-Za-z0-9-]*)"?(\??):`).FindAllStringSubmatch(body, -1) {
		out[m[1]] = m[2] == "?"
	}
	return out
}

// TestHostScriptTypesDeclareProtocol holds hostscript.d.ts to
// embed-protocol.json: every documented event by its short name with a
// payload type of the same fields (and the same optional ones), the kit's
// own events, their DOM events, and a method for every action.
func TestHostScriptTypesDeclareProtocol(t *testing.T) {
	t.Parallel()
	p := readProtocol(t)
	src := string(hostScriptTypes)
	events := dtsBlock(t, src, "PlatformEvents")
	declared := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\s+"([a-z-]+)": ([A-Za-z]+);`).FindAllStringSubmatch(events, -1) {
		declared[m[1]] = m[2]
	}
	dom := dtsBlock(t, src, "DomEvents")
	var want []string
	for _, e := range p.Events {
		if !e.Documented {
			continue
		}
		name := e.shortName()
		want = append(want, name)
		typ, ok := declared[name]
		if !ok {
			t.Errorf("PlatformEvents lacks %q (%s)", name, e.Type)
			continue
		}
		got := dtsFields(dtsBlock(t, src, typ))
		wantFields := map[string]bool{}
		for f, desc := range e.Payload {
			wantFields[f] = strings.HasSuffix(desc, "?")
		}
		if !maps.Equal(got, wantFields) {
			t.Errorf("%s: fields (name: optional) %v, want %v as in embed-protocol.json", typ, got, wantFields)
		}
		if !strings.Contains(dom, `"embedkit:`+name+`": CustomEvent<FrameEvent<"`+name+`">>`) {
			t.Errorf("DomEvents lacks embedkit:%s", name)
		}
	}
	for name := range declared {
		if !slices.Contains(want, name) {
			t.Errorf("PlatformEvents declares %q, which embed-protocol.json does not document", name)
		}
	}
	kit := dtsFields(dtsBlock(t, src, "KitEvents"))
	for _, name := range []string{"session-renewed", "session-ended", "renew-failed", "load-failed", "version-mismatch"} {
		if _, ok := kit[name]; !ok {
			t.Errorf("KitEvents lacks %q", name)
		}
		if !strings.Contains(dom, `"embedkit:`+name+`": CustomEvent<FrameEvent<"`+name+`">>`) {
			t.Errorf("DomEvents lacks embedkit:%s", name)
		}
	}
	if len(kit) != 5 {
		t.Errorf("KitEvents declares %v, want the five kit events", kit)
	}
	actions := dtsBlock(t, src, "Actions") + dtsBlock(t, src, "FrameMethods")
	for _, a := range p.Actions {
		if kitActions[a.Type] {
			if !strings.Contains(src, "`"+a.Type+"`") {
				t.Errorf("the declarations do not say that the kit sends %s itself", a.Type)
			}
			continue
		}
		if !regexp.MustCompile(`(?m)^\s+` + a.method() + `\(`).MatchString(actions) {
			t.Errorf("no method %s for %s", a.method(), a.Type)
		}
		if !strings.Contains(actions, "`"+a.Type+"`") {
			t.Errorf("the doc comment of %s does not name %s", a.method(), a.Type)
		}
	}
	for _, global := range []string{
		`declare namespace embedkit {`,
		`readonly embedkit: typeof embedkit;`,
		`"embedkit-frame": embedkit.FrameElement;`,
		`interface HTMLElementEventMap extends embedkit.DomEvents {}`,
		`interface DocumentEventMap extends embedkit.DomEvents {}`,
	} {
		if !strings.Contains(src, global) {
			t.Errorf("hostscript.d.ts lacks %s", global)
		}
	}
}

// TestHostScriptTypesCheck type-checks hostscript.d.ts and a host page
// using it (testdata/hostscript/usage.ts) with tsc --strict, then the npm
// package's module declarations (hostpage/index.d.ts) and a page that
// imports the package (testdata/hostscript/module). The pages also hold
// lines that must not compile (@ts-expect-error), so declarations that
// are too loose fail too.
func TestHostScriptTypesCheck(t *testing.T) {
	t.Parallel()
	tsc := tscPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, tsc, "--noEmit", "--strict", "--lib", "dom,es2017", "--target", "es2017",
		"hostscript.d.ts", filepath.Join("testdata", "hostscript", "usage.ts")).CombinedOutput()
	if err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
	out, err = exec.CommandContext(ctx, tsc, "-p", filepath.Join("testdata", "hostscript", "module")).CombinedOutput()
	if err != nil {
		t.Fatalf("tsc -p testdata/hostscript/module: %v\n%s", err, out)
	}
}

// tscPath returns the TypeScript compiler: $EMBEDKIT_TSC, the one make
// test installs into the clone's .cache, or tsc on PATH; the test fails
// (never skips) without one.
func tscPath(t *testing.T) string {
	t.Helper()
	tsc := os.Getenv("EMBEDKIT_TSC")
	if tsc == "" {
		matches, _ := filepath.Glob("../.cache/typescript-*/node_modules/.bin/tsc")
		if len(matches) > 0 {
			tsc = matches[len(matches)-1]
		} else if tsc, _ = exec.LookPath("tsc"); tsc == "" {
			t.Fatal("tsc not found: run 'make test', which installs typescript, or set EMBEDKIT_TSC")
		}
	}
	nodePath(t)
	return tsc
}

// readmeHostPageSnippets returns the code blocks of lang in the README's
// section "The host page", then those of its reference,
// docs/host-page.md.
func readmeHostPageSnippets(t *testing.T, lang string) []string {
	t.Helper()
	out, err := readme.Blocks(filepath.Join("..", "README.md"), "The host page", lang)
	if err != nil {
		t.Fatal(err)
	}
	more, err := readme.PageBlocks(filepath.Join("..", "docs", "host-page.md"), lang)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, more...)
}

// TestReadmeTypeScript type-checks every TypeScript snippet of the
// README's "The host page" with tsc --strict, as a module: a snippet
// referencing ./host.d.ts against the served global declarations, the
// others against the package's module declarations as "@embedkit/host".
// The names the snippets leave to the reader's app (showDetails,
// showProblem) are declared for them.
func TestReadmeTypeScript(t *testing.T) {
	t.Parallel()
	tsc := tscPath(t)
	snippets := readmeHostPageSnippets(t, "ts")
	if len(snippets) < 3 {
		t.Fatalf("found %d TypeScript snippets in the README's host page section and docs/host-page.md; the test checks too little", len(snippets))
	}
	moduleTypes, err := filepath.Abs(filepath.Join("..", "hostpage", "index.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	const prelude = "declare function showDetails(member: string, value: unknown): void;\n" +
		"declare function showProblem(reason: string): void;\n"
	for i, code := range snippets {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			write := func(name, text string) {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write("prelude.d.ts", prelude)
			write("host.d.ts", string(hostScriptTypes))
			write("snippet.ts", code)
			write("tsconfig.json", `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext",
  "moduleResolution": "bundler", "lib": ["dom", "es2022"], "types": [],
  "paths": {"@embedkit/host": [`+strconv.Quote(moduleTypes)+`]}},
  "files": ["prelude.d.ts", "snippet.ts"]}`)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if out, err := exec.CommandContext(ctx, tsc, "-p", dir).CombinedOutput(); err != nil {
				t.Errorf("README snippet %d does not compile: %v\n%s\n--- snippet ---\n%s", i, err, out, code)
			}
		})
	}
}

// TestDocsStateTheHostScriptSize checks the size of the served script that
// the README and docs/host-page.md state, "(`window.embedkit`, N KB, M KB
// gzipped)", against the script a kit serves: each within 1 KB (1024
// bytes) of the truth, so the figures follow the script as it grows.
func TestDocsStateTheHostScriptSize(t *testing.T) {
	t.Parallel()
	tk := newTestKit(t, nil)
	f := tk.hostJS
	size, gz := len(f.body), len(f.gz())
	stated := regexp.MustCompile("\\(`window\\.embedkit`, (?:about )?([0-9]+) KB(?: unminified)?, ([0-9]+) KB gzipped")
	near := func(kb string, n int) bool {
		k, err := strconv.Atoi(kb)
		return err == nil && abs(k*1024-n) <= 1024
	}
	for _, doc := range []string{filepath.Join("..", "README.md"), filepath.Join("..", "docs", "host-page.md")} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		found := stated.FindAllStringSubmatch(string(b), -1)
		if len(found) == 0 {
			t.Errorf("%s does not state the served script's size as (`window.embedkit`, N KB, M KB gzipped)", doc)
		}
		for _, m := range found {
			if !near(m[1], size) || !near(m[2], gz) {
				t.Errorf("%s states %q; the script a kit serves is %d bytes, %d gzipped: write %d KB, %d KB gzipped",
					doc, m[0], size, gz, (size+512)/1024, (gz+512)/1024)
			}
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
