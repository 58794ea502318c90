package hostbuild

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/middleware"
)

const root = "../.."

// TestGeneratedFilesCurrent: every generated file on disk is what the
// generator makes from the sources now (run `go generate ./middleware`
// and commit the result when this fails).
func TestGeneratedFilesCurrent(t *testing.T) {
	files, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("Generate made %d files", len(files))
	}
	for _, f := range files {
		disk, err := os.ReadFile(filepath.Join(root, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(disk, f.Data) {
			t.Errorf("%s is stale: run 'go generate ./middleware' and commit the result", f.Path)
		}
	}
}

// TestBundlePlaceholder: the served script carries the settings
// placeholder exactly once, as the argument of configure, and the version
// of middleware.HostScriptVersion.
func TestBundlePlaceholder(t *testing.T) {
	files, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(files, func(f File) bool { return f.Path == "middleware/hostscript.js" })
	if i < 0 {
		t.Fatal("no middleware/hostscript.js")
	}
	js := string(files[i].Data)
	if strings.Count(js, Placeholder) != 1 || !strings.Contains(js, "configure("+Placeholder+")") {
		t.Errorf("the script does not pass the placeholder to configure once")
	}
	if !strings.Contains(js, `var version = "`+middleware.HostScriptVersion+`";`) {
		t.Errorf("the script does not carry version %s", middleware.HostScriptVersion)
	}
	if strings.Contains(js, "__EMBEDKIT_GLOBAL__") {
		t.Error("the global build left __EMBEDKIT_GLOBAL__ undefined")
	}
}

// TestPackageManifest holds hostpage/package.json to the layout the
// README documents: name, ES module type, the version of the kit, the
// exports map with types first, the files list (sources and declarations,
// no tests or fixtures), React as an optional peer.
func TestPackageManifest(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "hostpage", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Name, Type, Version  string
		Exports              map[string]json.RawMessage
		Files                []string
		SideEffects          []string
		PeerDependencies     map[string]string
		PeerDependenciesMeta map[string]struct {
			Optional bool
		}
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.Name != "@embedkit/host" || pkg.Type != "module" || pkg.Version != middleware.HostScriptVersion {
		t.Errorf("name %q, type %q, version %q; want @embedkit/host, module, %s", pkg.Name, pkg.Type, pkg.Version, middleware.HostScriptVersion)
	}
	for entry, want := range map[string][2]string{".": {"./index.d.ts", "./src/index.js"}, "./react": {"./react.d.ts", "./src/react.js"}} {
		raw, ok := pkg.Exports[entry]
		if !ok {
			t.Errorf("exports lacks %q", entry)
			continue
		}
		// types must come first: resolvers take the first condition that matches.
		if !bytes.HasPrefix(bytes.TrimLeft(bytes.TrimPrefix(bytes.TrimSpace(raw), []byte("{")), " \n\t"), []byte(`"types"`)) {
			t.Errorf("exports[%q] does not list types first: %s", entry, raw)
		}
		var cond map[string]string
		if err := json.Unmarshal(raw, &cond); err != nil || cond["types"] != want[0] || cond["default"] != want[1] || len(cond) != 2 {
			t.Errorf("exports[%q] = %s, want types %s and default %s", entry, raw, want[0], want[1])
		}
	}
	if want := []string{"src/*.js", "index.d.ts", "react.d.ts"}; !slices.Equal(pkg.Files, want) {
		t.Errorf("files %v, want %v", pkg.Files, want)
	}
	if pkg.PeerDependencies["react"] != ">=18" || !pkg.PeerDependenciesMeta["react"].Optional || len(pkg.PeerDependencies) != 1 {
		t.Errorf("peers %v %v, want react >=18, optional", pkg.PeerDependencies, pkg.PeerDependenciesMeta)
	}
	if !slices.Equal(pkg.SideEffects, []string{"./src/index.js"}) {
		t.Errorf("sideEffects %v, want only ./src/index.js (it reads <meta name=\"embedkit\"> when imported)", pkg.SideEffects)
	}
}

// TestGlobalTypes: module-only declarations stay out of the global ones,
// and the declare global block is global with qualified names.
func TestGlobalTypes(t *testing.T) {
	in := "// header\n// ---- declarations ----\nexport interface Frame {}\n" +
		"export interface FrameElement extends HTMLElement {}\n// <module-only>\nexport function configure(): void;\n// </module-only>\n" +
		"\ndeclare global {\n  interface HTMLElementTagNameMap {\n    \"embedkit-frame\": FrameElement;\n  }\n}\n"
	out, err := GlobalTypes([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"declare namespace embedkit {\n  export interface Frame {}\n", "readonly embedkit: typeof embedkit;", `"embedkit-frame": embedkit.FrameElement;`} {
		if !strings.Contains(s, want) {
			t.Errorf("global types lack %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "configure") || strings.Contains(s, "declare global") || strings.Contains(s, "header") {
		t.Errorf("global types keep what is the module's own:\n%s", s)
	}
	for _, bad := range []string{"no marker", "// ---- declarations ----\nexport interface X {}\n", "// ---- declarations ----\n// <module-only>\n\ndeclare global {\n}\n"} {
		if _, err := GlobalTypes([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "hostbuild: ") {
			t.Errorf("GlobalTypes(%q) = %v, want a hostbuild error", bad, err)
		}
	}
}

// TestJSRegexp: a rule passes to JavaScript only in the syntax both
// dialects read alike; anything else asks for a hand translation, named.
func TestJSRegexp(t *testing.T) {
	for _, tt := range []struct {
		rule, want string
		ok         bool
	}{
		{`.+\..+`, `[^\n]+\.[^\n]+`, true},
		{`a-z_0-9\-\d+\w*`, `a-z_0-9\-\d+\w*`, true},
		{`(?:ab)+`, `(?:ab)+`, true},
		{`\Q.\E`, "", false},   // quoted text: Go's only
		{`\s`, "", false},      // white space: Unicode in JavaScript
		{`\bword`, "", false},  // word boundary: not the same classes
		{`\pL`, "", false},     // Unicode class: needs the u flag
		{`(?i)abc`, "", false}, // flags: Go's syntax
		{`(?P<n>a)`, "", false},
		{`[a-z]`, "", false}, // classes are translated by hand
		{`(`, "", false},     // not a Go rule at all
	} {
		got, err := jsRegexp(tt.rule)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("jsRegexp(%q) = %q, %v; want %q, ok %v", tt.rule, got, err, tt.want, tt.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "hostbuild: ") {
			t.Errorf("jsRegexp(%q): error %q lacks the package name", tt.rule, err)
		}
	}
}
