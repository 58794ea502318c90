package readmecheck

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/embedkit/embedkit/internal/reactbuild"
	"github.com/embedkit/embedkit/internal/readme"
)

// The README's commands that install the npm package @embedkit/host into
// an app, run as written (the checkout's path put in for
// /path/to/embedkit) with npm in a new React app, offline: react and its
// kin are copied in from the React install the tests use
// (reactbuild.NodeModules), and the package comes from this checkout.
// Then a React file that imports @embedkit/host/react must type-check
// with tsc and bundle with esbuild, as in a user's app.

// installPlaceholder is how the README names the checkout.
const installPlaceholder = "/path/to/embedkit"

// reactPackages are the packages of a React app that the check copies
// in, from reactbuild.NodeModules.
var reactPackages = []string{"react", "react-dom", "scheduler", "@types/react", "csstype"}

// installAlternatives returns the README's ways to install the package:
// the sh block of "The host page" that runs npm install, split at its
// comment-only lines ("# or"), each a list of commands with their
// comments cut off.
func installAlternatives(t *testing.T) [][]string {
	t.Helper()
	blocks, err := readme.Blocks(filepath.Join(root, "README.md"), "The host page", "sh")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, b := range blocks {
		if strings.Contains(b, "npm install") {
			found = append(found, b)
		}
	}
	if len(found) != 1 {
		t.Fatalf("the README's host page section has %d sh blocks that run npm install, want 1", len(found))
	}
	var alts [][]string
	var cur []string
	for line := range strings.SplitSeq(found[0], "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		cmd = strings.TrimSpace(cmd)
		if cmd == "" {
			if len(cur) > 0 {
				alts = append(alts, cur)
				cur = nil
			}
			continue
		}
		if !strings.Contains(cmd, installPlaceholder) && !strings.HasPrefix(cmd, "npm install ./") {
			t.Fatalf("README install command %q names neither %s nor a file here", cmd, installPlaceholder)
		}
		cur = append(cur, cmd)
	}
	if len(cur) > 0 {
		alts = append(alts, cur)
	}
	if len(alts) == 0 {
		t.Fatal("the README's install block has no command")
	}
	return alts
}

// npmTools returns node and npm, failing (never skipping) without them.
func npmTools(t *testing.T) (node, npm string) {
	t.Helper()
	var err error
	if node, err = exec.LookPath("node"); err != nil {
		t.Fatal("node not found: run 'make test', which installs nodejs")
	}
	if npm, err = exec.LookPath("npm"); err != nil {
		t.Fatal("npm not found: run 'make test', which installs npm")
	}
	return node, npm
}

// tsc returns the TypeScript compiler: $EMBEDKIT_TSC, the one make test
// installs into the clone's .cache, or tsc on PATH; the test fails (never
// skips) without one.
func tsc(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("EMBEDKIT_TSC"); p != "" {
		return p
	}
	if m, _ := filepath.Glob(filepath.Join(root, ".cache", "typescript-*", "node_modules", ".bin", "tsc")); len(m) > 0 {
		return m[len(m)-1]
	}
	p, err := exec.LookPath("tsc")
	if err != nil {
		t.Fatal("tsc not found: run 'make test', which installs typescript, or set EMBEDKIT_TSC")
	}
	return p
}

// reactApp makes an app folder with react and its kin copied into its
// node_modules and named in its package.json, as `npm install react
// react-dom` leaves them.
func reactApp(t *testing.T) string {
	t.Helper()
	mods, err := reactbuild.NodeModules(root)
	if err != nil {
		t.Fatal(err)
	}
	app := t.TempDir()
	deps := map[string]string{}
	for _, p := range reactPackages {
		src := filepath.Join(mods, filepath.FromSlash(p))
		if err := os.CopyFS(filepath.Join(app, "node_modules", filepath.FromSlash(p)), os.DirFS(src)); err != nil {
			t.Fatalf("copying %s from %s: %v", p, mods, err)
		}
		b, err := os.ReadFile(filepath.Join(src, "package.json"))
		if err != nil {
			t.Fatal(err)
		}
		var meta struct{ Version string }
		if err := json.Unmarshal(b, &meta); err != nil {
			t.Fatal(err)
		}
		deps[p] = meta.Version
	}
	pkg, _ := json.Marshal(map[string]any{"name": "readme-app", "private": true, "dependencies": deps})
	write(t, filepath.Join(app, "package.json"), string(pkg))
	write(t, filepath.Join(app, "tsconfig.json"), `{
  "compilerOptions": {
    "strict": true, "noEmit": true, "jsx": "react-jsx", "target": "es2020",
    "module": "esnext", "moduleResolution": "bundler", "types": [], "lib": ["es2020", "dom"]
  },
  "include": ["src"]
}`)
	write(t, filepath.Join(app, "src", "App.tsx"), `import { configure, type FrameEvent } from "@embedkit/host";
import { EmbedkitFrame } from "@embedkit/host/react";

configure({ platformOrigin: "https://acme.example.com" });

export function App() {
  return <EmbedkitFrame target="sales" title="Sales" onEvent={(e: FrameEvent) => console.log(e.name)} />;
}
`)
	return app
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runIn runs an sh command line in dir with npm offline and quiet, its
// cache in a temporary folder; it returns the combined output.
func runIn(t *testing.T, dir, line string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"npm_config_cache="+filepath.Join(t.TempDir(), "npm-cache"),
		"npm_config_offline=true", // everything comes from the checkout and the app's folder
		"npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false",
		"npm_config_loglevel=error")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// buildApp type-checks the app with tsc and bundles src/App.tsx with
// esbuild; it returns what failed, or "".
func buildApp(t *testing.T, app string) string {
	t.Helper()
	var failed []string
	if out, err := runIn(t, app, tsc(t)+" -p tsconfig.json"); err != nil {
		failed = append(failed, "tsc: "+err.Error()+"\n"+out)
	}
	res := api.Build(api.BuildOptions{
		EntryPoints:   []string{filepath.Join(app, "src", "App.tsx")},
		AbsWorkingDir: app,
		Bundle:        true,
		Format:        api.FormatESModule,
		JSX:           api.JSXAutomatic,
		Write:         false,
		LogLevel:      api.LogLevelSilent,
	})
	for _, m := range res.Errors {
		failed = append(failed, "esbuild: "+m.Text)
	}
	return strings.Join(failed, "\n")
}

func TestReadmeInstallsTheNPMPackage(t *testing.T) {
	_, npm := npmTools(t)
	checkout, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, alt := range installAlternatives(t) {
		t.Run(alt[0], func(t *testing.T) {
			app := reactApp(t)
			for _, line := range alt {
				run := strings.ReplaceAll(line, installPlaceholder, checkout)
				if out, err := runIn(t, app, run); err != nil {
					t.Fatalf("%s (npm %s): %v\n%s", line, npm, err, out)
				}
			}
			fi, err := os.Lstat(filepath.Join(app, "node_modules", "@embedkit", "host"))
			if err != nil {
				t.Fatalf("after %q: %v", alt, err)
			}
			if fi.Mode()&os.ModeSymlink != 0 {
				t.Errorf("after %q node_modules/@embedkit/host is a symlink into the checkout, want the package copied in", alt)
			}
			if failed := buildApp(t, app); failed != "" {
				t.Errorf("after %q a React file importing @embedkit/host/react does not build:\n%s", alt, failed)
			}
		})
	}
}

// TestPlainPathInstallMissesReact is why the README says --install-links:
// a plain path install links the checkout, and react is then looked for
// beside it. It also shows the check above can fail.
func TestPlainPathInstallMissesReact(t *testing.T) {
	npmTools(t)
	checkout, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	app := reactApp(t)
	if out, err := runIn(t, app, "npm install "+filepath.Join(checkout, "hostpage")); err != nil {
		t.Fatalf("npm install <path>: %v\n%s", err, out)
	}
	failed := buildApp(t, app)
	if !strings.Contains(failed, "Cannot find module 'react'") || !strings.Contains(failed, `Could not resolve "react"`) {
		t.Errorf("a linked install built, or failed otherwise than by missing react:\n%s", failed)
	}
}
