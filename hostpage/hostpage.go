// Package hostpage embeds the ES modules of the npm package @embedkit/host
// (this folder), so that a Go app can serve them as they are and a page
// can import them with <script type="module">, with no bundler and no
// Node toolchain:
//
//	mux.Handle("GET /embed/module/", http.StripPrefix("/embed/module", http.FileServerFS(hostpage.Modules())))
//
//	// in the page's module script:
//	import { configure, frame } from "/embed/module/index.js";
//
// A page uses either these modules or the kit's served script
// (middleware.Kit.HostScript), not both: each manages the page's frames.
package hostpage

import (
	"embed"
	"io/fs"
)

//go:embed src/*.js
var files embed.FS

// Modules returns the package's modules, at the top of the returned file
// system: index.js (the host page's API, which imports the modules
// beside it, one per concern) and react.js (the React entry, which imports "react" by
// its bare name, so a page needs an import map or a bundler for it).
func Modules() fs.FS {
	sub, err := fs.Sub(files, "src")
	if err != nil {
		panic("hostpage: " + err.Error()) // "src" is a valid path
	}
	return sub
}
