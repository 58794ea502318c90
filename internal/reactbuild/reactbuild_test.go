package reactbuild

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoPageCurrent rebuilds the demo's React page and compares it with
// the committed web/static/react.js, as scripts/test.sh does.
func TestDemoPageCurrent(t *testing.T) {
	modules, err := NodeModules("../..")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../../web/static/react.js")
	if err != nil {
		t.Fatal(err)
	}
	banner, _, _ := strings.Cut(string(committed), "\n")
	got, err := Bundle(Options{Root: "../..", Entry: "web/static/reactapp/main.js", NodeModules: modules, Banner: banner})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Error("web/static/react.js is stale: run 'go generate ./web/static' and commit the result")
	}
}

// TestBundleErrors: what Bundle and NodeModules refuse, and that each
// error says what to do.
func TestBundleErrors(t *testing.T) {
	modules, err := NodeModules("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("hostpage/package.json", `{"name":"@embedkit/host","exports":{".":{"default":"./src/index.js"},"./package.json":"./package.json"}}`)
	write("hostpage/src/index.js", "export const version = \"x\";\n")
	write("unknown.js", "import { EmbedkitFrame } from \"@embedkit/host/react\";\nconsole.log(EmbedkitFrame);\n")
	write("ok.js", "import { version } from \"@embedkit/host\";\nconsole.log(version);\n")

	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"no entry", Options{Root: dir, NodeModules: modules}, "Options.Entry and Options.NodeModules are required"},
		{"a subpath the package does not export", Options{Root: dir, Entry: "unknown.js", NodeModules: modules}, `does not export "./react"`},
		{"a missing entry", Options{Root: dir, Entry: "missing.js", NodeModules: modules}, "reactbuild: esbuild:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Bundle(tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Bundle: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if js, err := Bundle(Options{Root: dir, Entry: "ok.js", NodeModules: modules, Banner: "// banner"}); err != nil || !strings.HasPrefix(string(js), "// banner\n") {
		t.Errorf("Bundle of an exported entry: %v, %.40q", err, js)
	}

	t.Setenv("EMBEDKIT_REACT_MODULES", dir)
	if _, err := NodeModules("../.."); err == nil || !strings.Contains(err.Error(), "react is not installed") || !strings.Contains(err.Error(), "make test") {
		t.Errorf("NodeModules without react: %v, want an error saying how to install it", err)
	}
	write("react/package.json", `{"version":"18.0.0"}`)
	write("react-dom/package.json", `{"version":"`+ReactVersion+`"}`)
	write("scheduler/package.json", `{"version":"`+SchedulerVersion+`"}`)
	if _, err := NodeModules("../.."); err == nil || !strings.Contains(err.Error(), "react in "+dir) || !strings.Contains(err.Error(), "is version 18.0.0, want "+ReactVersion) {
		t.Errorf("NodeModules with another react: %v, want an error naming the version", err)
	}
}
