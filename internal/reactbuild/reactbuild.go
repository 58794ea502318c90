// Package reactbuild bundles React pages that use the npm package
// @embedkit/host (hostpage/) and its React entry, with esbuild's Go API:
// the demo's React page (web/static/react.js, written by `go generate
// ./web/static`) and the React app of the browser tests.
//
// React itself comes from the npm registry, pinned: scripts/test.sh
// installs react, react-dom, scheduler and @types/react, of the versions
// below, into the
// clone's .cache/react-<version>/ (ignored by git), and NodeModules finds
// them there or in $EMBEDKIT_REACT_MODULES. "@embedkit/host" and
// "@embedkit/host/react" resolve through hostpage/package.json's exports
// map, as a front-end build resolves the installed package.
package reactbuild

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/embedkit/embedkit/internal/hostbuild"
	"github.com/evanw/esbuild/pkg/api"
)

// ReactVersion is the version of react and react-dom that scripts/test.sh
// installs and the demo's React page is built with.
const ReactVersion = "19.3.1"

// SchedulerVersion is the version of scheduler, react-dom's one
// dependency, installed with it: react-dom asks for a range, and the
// committed demo bundle must not change when a newer one is published.
const SchedulerVersion = "0.28.0"

// TypesVersion is the version of @types/react installed beside them, for
// type-checking the README's React example.
const TypesVersion = "19.3.0"

// packageName is the npm name of hostpage/.
const packageName = "@embedkit/host"

// NodeModules returns the node_modules folder holding react and
// react-dom: $EMBEDKIT_REACT_MODULES, else .cache/react-<ReactVersion>/
// node_modules under root, the module's root directory. The error says
// how to install them.
func NodeModules(root string) (string, error) {
	dir := os.Getenv("EMBEDKIT_REACT_MODULES")
	from := "EMBEDKIT_REACT_MODULES"
	if dir == "" {
		dir = filepath.Join(root, ".cache", "react-"+ReactVersion, "node_modules")
		from = "the clone's .cache"
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("reactbuild: %w", err)
	}
	install := fmt.Sprintf("run 'make test', which installs it, or npm install --prefix .cache/react-%s react@%s react-dom@%s scheduler@%s @types/react@%s",
		ReactVersion, ReactVersion, ReactVersion, SchedulerVersion, TypesVersion)
	for _, p := range [][2]string{{"react", ReactVersion}, {"react-dom", ReactVersion}, {"scheduler", SchedulerVersion}} {
		pkg, want := p[0], p[1]
		b, err := os.ReadFile(filepath.Join(abs, pkg, "package.json"))
		if err != nil {
			return "", fmt.Errorf("reactbuild: %s is not installed in %s (%s): %s", pkg, abs, from, install)
		}
		var meta struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			return "", fmt.Errorf("reactbuild: %s/package.json in %s: %w", pkg, abs, err)
		}
		if meta.Version != want {
			return "", fmt.Errorf("reactbuild: %s in %s (%s) is version %s, want %s: %s", pkg, abs, from, meta.Version, want, install)
		}
	}
	return abs, nil
}

// Options says what to bundle.
type Options struct {
	// Root is the module's root directory (holding hostpage/).
	Root string
	// Entry is the page's entry module, a path relative to Root.
	Entry string
	// NodeModules holds react and react-dom (see NodeModules).
	NodeModules string
	// Development builds React's development variant, which runs the
	// checks of StrictMode (effects run twice on mount); else the
	// production variant, minified.
	Development bool
	// Banner is a comment put first in the output, e.g. that it is
	// generated; empty puts none.
	Banner string
}

// Bundle builds the entry and everything it imports into one ES module
// script for browsers.
func Bundle(o Options) ([]byte, error) {
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, fmt.Errorf("reactbuild: %w", err)
	}
	if o.Entry == "" || o.NodeModules == "" {
		return nil, errors.New("reactbuild: Options.Entry and Options.NodeModules are required")
	}
	exports, err := packageExports(root)
	if err != nil {
		return nil, err
	}
	env := "production"
	if o.Development {
		env = "development"
	}
	res := api.Build(api.BuildOptions{
		EntryPoints:       []string{filepath.Join(root, filepath.FromSlash(o.Entry))},
		Bundle:            true,
		Format:            api.FormatESModule,
		Target:            api.ES2020,
		Charset:           api.CharsetUTF8,
		MinifySyntax:      !o.Development,
		MinifyWhitespace:  !o.Development,
		MinifyIdentifiers: !o.Development,
		LegalComments:     api.LegalCommentsEndOfFile,
		Banner:            map[string]string{"js": o.Banner},
		Define:            map[string]string{"process.env.NODE_ENV": `"` + env + `"`},
		NodePaths:         []string{o.NodeModules},
		AbsWorkingDir:     root,
		LogLevel:          api.LogLevelSilent,
		Write:             false,
		Plugins: []api.Plugin{{
			Name: "embedkit-host",
			Setup: func(b api.PluginBuild) {
				b.OnResolve(api.OnResolveOptions{Filter: `^@embedkit/host(/.*)?$`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
					sub := "." + strings.TrimPrefix(a.Path, packageName)
					file, ok := exports[sub]
					if !ok {
						return api.OnResolveResult{}, fmt.Errorf("%s does not export %q (hostpage/package.json exports)", packageName, sub)
					}
					return api.OnResolveResult{Path: filepath.Join(root, "hostpage", filepath.FromSlash(file))}, nil
				})
			},
		}},
	})
	return hostbuild.OneFile(res, "reactbuild")
}

// packageExports reads hostpage/package.json's exports map: subpath
// ("." or "./react") to the file a browser bundle loads.
func packageExports(root string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(root, "hostpage", "package.json"))
	if err != nil {
		return nil, fmt.Errorf("reactbuild: %w", err)
	}
	var pkg struct {
		Name    string `json:"name"`
		Exports map[string]json.RawMessage
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return nil, fmt.Errorf("reactbuild: hostpage/package.json: %w", err)
	}
	if pkg.Name != packageName {
		return nil, fmt.Errorf("reactbuild: hostpage/package.json name %q, want %q", pkg.Name, packageName)
	}
	out := make(map[string]string, len(pkg.Exports))
	for sub, raw := range pkg.Exports {
		var cond struct {
			Default string `json:"default"`
		}
		if json.Unmarshal(raw, &cond) != nil || cond.Default == "" {
			continue // "./package.json": a file, not a module
		}
		out[sub] = cond.Default
	}
	return out, nil
}
