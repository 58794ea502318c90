// Package hostpage_test holds the Go tests of the npm package
// @embedkit/host in this folder: importing it in Node without a DOM, what
// `npm pack` puts in it, and type-checking its React declarations and the
// README's React example. The package itself is JavaScript; these tests
// are not part of it (package.json's files list leaves them out).
package hostpage_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/internal/reactbuild"
	"github.com/embedkit/embedkit/internal/readme"
)

// nodeTool returns the path of a Node.js tool (node, npm), failing t
// with what to install when it is missing.
func nodeTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found: run 'make test', which installs nodejs and npm", name)
	}
	return p
}

// reactModules returns the node_modules folder holding react, react-dom
// and @types/react (internal/reactbuild.NodeModules).
func reactModules(t *testing.T) string {
	t.Helper()
	dir, err := reactbuild.NodeModules("..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// installed makes a node_modules folder in a temporary directory that
// holds this package as @embedkit/host and the pinned react and
// react-dom, as an app that installed them has, and returns the
// directory.
func installed(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	modules := filepath.Join(dir, "node_modules")
	if err := os.MkdirAll(filepath.Join(modules, "@embedkit"), 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{filepath.Join(modules, "@embedkit", "host"): self}
	react := reactModules(t)
	for _, pkg := range []string{"react", "react-dom", "scheduler"} {
		links[filepath.Join(modules, pkg)] = filepath.Join(react, pkg)
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// serverScript imports the package's two entries by their public names
// in Node, where there is no window or document, and renders the
// component to HTML as a server does. It prints what it found as JSON.
const serverScript = `
const seen = {
  window: typeof window, document: typeof document,
  HTMLElement: typeof HTMLElement, customElements: typeof customElements
};
const host = await import("@embedkit/host");
const react = await import("@embedkit/host/react");
const { createElement } = await import("react");
const { renderToString } = await import("react-dom/server");
const html = renderToString(createElement(react.EmbedkitFrame, {
  target: "sales", filters: { "orders.status": "completed" }, locale: "de-DE",
  className: "report", loading: "lazy", onDrilldown: () => {}
}));
const refused = {};
for (const [name, props] of Object.entries({
  "no target": {},
  "a dot segment": { target: "sales/../admin" },
  "a URL as target": { target: "https://evil.example.com/x" },
  "a src": { target: "sales", src: "javascript:alert(1)" },
  "a cross-origin prefix": { target: "sales", framePrefix: "https://evil.example.com/embed/frame/" },
  "a prefix without a slash": { target: "sales", framePrefix: "/embed/frame" }
})) {
  try {
    renderToString(createElement(react.EmbedkitFrame, props));
    refused[name] = "";
  } catch (e) {
    refused[name] = e.name + ": " + e.message;
  }
}
const prefixed = renderToString(createElement(react.EmbedkitFrame, { target: "dashboard/sales-overview", framePrefix: "/analytics/frame/" }));
const zoned = renderToString(createElement(react.EmbedkitFrame, { target: "sales", locale: "de-DE", timezone: "Europe/Berlin" }));
let unconfigured = "";
try { host.frame("#sales"); } catch (e) { unconfigured = e.message; }
console.log(JSON.stringify({
  seen, html, unconfigured, refused, prefixed, zoned,
  version: host.version,
  hostExports: Object.keys(host).sort(),
  reactExports: Object.keys(react).sort(),
  after: { window: typeof window, document: typeof document }
}));
`

// TestImportWithoutDOM imports "@embedkit/host" and
// "@embedkit/host/react" in Node, without a DOM, through the package's
// exports map, and renders <EmbedkitFrame> on the "server": nothing
// throws, no browser global is defined by the import, and the HTML is
// the iframe a browser would load once. Bad props are refused with a
// TypeError naming the prop and the rule.
func TestImportWithoutDOM(t *testing.T) {
	t.Parallel()
	node := nodeTool(t, "node")
	dir := installed(t)
	script := filepath.Join(dir, "server.mjs")
	if err := os.WriteFile(script, []byte(serverScript), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// --preserve-symlinks: the package's "react" import resolves from
	// the app's node_modules, as it does when installed.
	cmd := exec.CommandContext(ctx, node, "--preserve-symlinks", "--preserve-symlinks-main", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node server.mjs: %v\n%s", err, out)
	}
	var got struct {
		Seen         map[string]string `json:"seen"`
		After        map[string]string `json:"after"`
		HTML         string            `json:"html"`
		Unconfigured string            `json:"unconfigured"`
		Refused      map[string]string `json:"refused"`
		Prefixed     string            `json:"prefixed"`
		Zoned        string            `json:"zoned"`
		Version      string            `json:"version"`
		HostExports  []string          `json:"hostExports"`
		ReactExports []string          `json:"reactExports"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node printed %q: %v", out, err)
	}
	for name, typ := range got.Seen {
		if typ != "undefined" {
			t.Errorf("Node has a global %s (%s): the test does not run without a DOM", name, typ)
		}
	}
	for name, typ := range got.After {
		if typ != "undefined" {
			t.Errorf("importing the package defined a global %s (%s)", name, typ)
		}
	}
	if !slices.Equal(got.ReactExports, []string{"EmbedkitFrame", "useEmbedkitFrame"}) {
		t.Errorf("@embedkit/host/react exports %v, want EmbedkitFrame and useEmbedkitFrame", got.ReactExports)
	}
	for _, name := range []string{"configure", "frame", "frames", "setFilter", "version"} {
		if !slices.Contains(got.HostExports, name) {
			t.Errorf("@embedkit/host does not export %s (exports %v)", name, got.HostExports)
		}
	}
	if got.Version == "" {
		t.Error("@embedkit/host exports an empty version")
	}
	if !strings.Contains(got.Unconfigured, "not configured") {
		t.Errorf("frame() on the server: %q, want the not-configured error", got.Unconfigured)
	}
	for name, want := range map[string]string{
		"no target":                "TypeError: embedkit: <EmbedkitFrame target>: target must be",
		"a dot segment":            "TypeError: embedkit: <EmbedkitFrame target>: target must be",
		"a URL as target":          "TypeError: embedkit: <EmbedkitFrame target>: target must be",
		"a src":                    "TypeError: embedkit: <EmbedkitFrame src>: src must be left out",
		"a cross-origin prefix":    "TypeError: embedkit: <EmbedkitFrame framePrefix>: framePrefix must be a same-origin path",
		"a prefix without a slash": "TypeError: embedkit: <EmbedkitFrame framePrefix>: framePrefix must be a same-origin path",
	} {
		if got := got.Refused[name]; !strings.HasPrefix(got, want) {
			t.Errorf("<EmbedkitFrame> with %s: %q, want %q...", name, got, want)
		}
	}
	if !strings.Contains(got.Prefixed, `src="/analytics/frame/dashboard/sales-overview"`) {
		t.Errorf("<EmbedkitFrame framePrefix> rendered %s", got.Prefixed)
	}
	// The props with a URL form are in the first load, so the frame opens
	// in them rather than switching once it is ready.
	if !strings.Contains(got.Zoned, `src="/embed/frame/sales?locale=de-DE&amp;timezone=Europe%2FBerlin"`) {
		t.Errorf("<EmbedkitFrame locale timezone> rendered %s, want both in the src", got.Zoned)
	}
	iframes := regexp.MustCompile(`<iframe\b[^>]*>`).FindAllString(got.HTML, -1)
	if len(iframes) != 1 {
		t.Fatalf("the server rendered %d iframes, want 1: %s", len(iframes), got.HTML)
	}
	for _, want := range []string{`src="/embed/frame/sales?locale=de-DE"`, `data-embedkit=""`, `data-embedkit-target="sales"`,
		`class="report"`, `loading="lazy"`, `title="Analytics"`, `referrerPolicy="no-referrer"`} {
		if !strings.Contains(iframes[0], want) {
			t.Errorf("the rendered iframe lacks %s: %s", want, iframes[0])
		}
	}
	for _, leak := range []string{"filters", " locale=", "ondrilldown", " target="} {
		if strings.Contains(strings.ToLower(iframes[0]), leak) {
			t.Errorf("the rendered iframe carries the prop %s as an attribute: %s", leak, iframes[0])
		}
	}
}

// TestReactEntryIsClientComponent holds src/react.js to React's rule for
// client components: "use client" is its first statement.
func TestReactEntryIsClientComponent(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("src", "react.js"))
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(b), "\n"); first != `"use client";` {
		t.Errorf("src/react.js starts with %q, want the directive \"use client\";", first)
	}
}

// TestPackFiles runs `npm pack --dry-run --json` on the package: it holds
// package.json, the modules of every export and their declarations, and
// nothing else (no tests, fixtures or Go files).
func TestPackFiles(t *testing.T) {
	t.Parallel()
	npm := nodeTool(t, "npm")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "pack", "--dry-run", "--json", "--ignore-scripts")
	cmd.Env = append(os.Environ(), "npm_config_cache="+t.TempDir(), "npm_config_update_notifier=false", "npm_config_loglevel=error")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("npm pack --dry-run: %v\n%s", err, out)
	}
	var packs []struct {
		Name  string `json:"name"`
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out, &packs); err != nil || len(packs) != 1 {
		t.Fatalf("npm pack printed %q: %v", out, err)
	}
	var files []string
	for _, f := range packs[0].Files {
		files = append(files, f.Path)
	}
	slices.Sort(files)
	// The modules under src/ (index.js, react.js, version.js and those
	// they import), their declarations and package.json: no more.
	modules, err := filepath.Glob(filepath.Join("src", "*.js"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"index.d.ts", "package.json", "react.d.ts"}
	for _, m := range modules {
		want = append(want, filepath.ToSlash(m))
	}
	slices.Sort(want)
	for _, need := range []string{"src/index.js", "src/react.js", "src/version.js"} {
		if !slices.Contains(want, need) {
			t.Errorf("hostpage has no %s", need)
		}
	}
	if !slices.Equal(files, want) {
		t.Errorf("npm pack lists %v, want %v", files, want)
	}
	// Every file the exports map names is in the package.
	b, err := os.ReadFile("package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Exports map[string]json.RawMessage `json:"exports"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	for sub, raw := range pkg.Exports {
		var conds map[string]string
		var file string
		if json.Unmarshal(raw, &file) == nil {
			conds = map[string]string{"default": file}
		} else if err := json.Unmarshal(raw, &conds); err != nil {
			t.Fatalf("exports[%q]: %v", sub, err)
		}
		for cond, path := range conds {
			if !slices.Contains(files, strings.TrimPrefix(path, "./")) {
				t.Errorf("exports[%q].%s is %s, which npm pack leaves out", sub, cond, path)
			}
		}
	}
}

// tscPath returns TypeScript's compiler: $EMBEDKIT_TSC, else the one
// 'make test' installs into the clone's .cache, else tsc on PATH.
func tscPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("EMBEDKIT_TSC"); p != "" {
		return p
	}
	matches, _ := filepath.Glob("../.cache/typescript-*/node_modules/.bin/tsc")
	if len(matches) > 0 {
		p, err := filepath.Abs(matches[len(matches)-1])
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p, err := exec.LookPath("tsc")
	if err != nil {
		t.Fatal("tsc not found: run 'make test', which installs typescript, or set EMBEDKIT_TSC")
	}
	return p
}

// readmeTSX returns the tsx code blocks of the host page's reference,
// docs/host-page.md (the README links to it).
func readmeTSX(t *testing.T) []string {
	t.Helper()
	blocks, err := readme.PageBlocks(filepath.Join("..", "docs", "host-page.md"), "tsx")
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// TestReactTypesCheck type-checks, with tsc --strict and React's own
// types (@types/react, pinned), the README's React example and
// testdata/react/usage.tsx against the package's declarations, as an
// app that installed the package resolves them. usage.tsx also holds
// lines that must not compile (@ts-expect-error).
func TestReactTypesCheck(t *testing.T) {
	t.Parallel()
	tsc := tscPath(t)
	nodeTool(t, "node")
	react := reactModules(t)
	if _, err := os.Stat(filepath.Join(react, "@types", "react", "index.d.ts")); err != nil {
		t.Fatalf("@types/react is not installed beside react in %s: run 'make test', which installs @types/react@%s", react, reactbuild.TypesVersion)
	}
	blocks := readmeTSX(t)
	if len(blocks) == 0 {
		t.Fatal("docs/host-page.md has no tsx example")
	}
	dir := installed(t)
	if err := os.Symlink(filepath.Join(react, "@types"), filepath.Join(dir, "node_modules", "@types")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(react, "csstype"), filepath.Join(dir, "node_modules", "csstype")); err != nil {
		t.Fatal(err)
	}
	files := []string{"usage.tsx"}
	usage, err := os.ReadFile(filepath.Join("testdata", "react", "usage.tsx"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("usage.tsx", usage)
	for i, b := range blocks {
		name := "readme" + string(rune('a'+i)) + ".tsx"
		write(name, []byte(b+"\n"))
		files = append(files, name)
	}
	// The package resolves through node_modules/@embedkit/host and its
	// exports map, as in an app that installed it: with a bundler's
	// resolution and with Node's own (nodenext, where a relative import
	// of a declaration file needs its .js extension).
	for _, res := range []struct{ module, resolution string }{{"esnext", "bundler"}, {"nodenext", "nodenext"}} {
		cfg, err := json.Marshal(map[string]any{
			"compilerOptions": map[string]any{
				"strict": true, "noEmit": true, "target": "es2020", "module": res.module,
				"moduleResolution": res.resolution, "jsx": "react-jsx", "lib": []string{"dom", "es2020"},
				"types": []string{}, "preserveSymlinks": true, "skipLibCheck": false,
			},
			"files": files,
		})
		if err != nil {
			t.Fatal(err)
		}
		write("tsconfig.json", cfg)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		out, err := exec.CommandContext(ctx, tsc, "-p", filepath.Join(dir, "tsconfig.json")).CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("tsc, moduleResolution %s: %v\n%s", res.resolution, err, out)
		}
	}
}
