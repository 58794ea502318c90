// Package e2e holds the browser end-to-end tests of the demo. It has no
// code of its own: the tests start the whole demo in process (the app,
// the development identity provider and the platform emulator, each on a
// free 127.0.0.1 port, through webapp.RunDemo) and drive it with one
// headless Chromium through chromedp.
//
// Run them with
//
//	go test ./examples/webapp/e2e/
//
// Chromium is $EMBEDKIT_CHROMIUM, else chromium on PATH; 'make test'
// installs it on Debian. Without it the tests fail: they never skip.
// Screenshots of the signed-in dashboards and of the ended session go to
// $EMBEDKIT_SCREENSHOTS, else a new temporary folder, which the run logs.
// EMBEDKIT_UPDATE_SCREENSHOT=1 also rewrites docs/demo-dashboard.png, the
// picture in the README.
//
// # Reaching into the embed
//
// The embed is a cross-origin iframe: the app and the platform listen on
// different ports. Both are on 127.0.0.1, the same site, so Chromium keeps
// the iframe in the page's renderer even with site isolation on, and the
// iframe's DOM node carries the frame's document. The tests read the
// embed through that node (chromedp.WithPollingInFrame, chromedp.FromNode)
// and fail with a clear message if Chromium ever moves the iframe to a
// process of its own. Site isolation stays on.
//
// # Frame-ancestors
//
// A page framed against its Content-Security-Policy frame-ancestors is
// not rendered: Chromium commits an error page in the frame instead, and
// the page's frame tree (Page.getFrameTree) lists the frame with the
// blocked URL as unreachableUrl. The test asserts that, and that no app
// element is in the frame, and frames a platform page (frame-ancestors *)
// beside it as a control, so a frame that failed for another reason does
// not pass for a refusal.
package e2e
