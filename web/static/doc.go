// Package static holds the demo host app's stylesheet and page scripts
// and serves them.
//
// app.css is the app's whole look: a system font stack, light and dark
// colours (following the system, or forced by a data-scheme attribute on
// <html>), and layouts that work on a phone. app.js is a small script
// without dependencies: it applies display settings to embedded
// dashboards as they change, saves them in the background, shows the
// embed's live state and closes the header menus on an outside click.
// Pages work without it.
//
// react.js is the demo's React page (/react): reactapp/main.js bundled
// with React and the npm package's React entry (@embedkit/host/react) by
// internal/reactbuild. It is generated (go generate ./web/static, which
// needs React installed in the clone's .cache, as 'make test' does),
// committed, and checked for staleness by scripts/test.sh.
//
// None of the files needs inline script or style, so pages can run under
// a strict Content-Security-Policy (script-src 'self'; style-src 'self').
//
// Mount the handler at /static/:
//
//	mux.Handle("/static/", static.Handler())
package static

//go:generate go run ../../internal/reactbuild/generate -root ../.. -entry web/static/reactapp/main.js -out web/static/react.js
