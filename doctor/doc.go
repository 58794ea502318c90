// Package doctor checks an embedkit set-up before a viewer meets a
// problem: that the API key works and reaches the deployment, that the
// groups and user attributes the Policy sends exist on the platform, that
// each dashboard target exists and allows signed embedding, that this
// machine's clock agrees with the platform's, and, given the address of a
// host page, that its Content-Security-Policy lets its frames load the
// platform and sets frame-ancestors, and that the origin the kit names to
// the platform is the one browsers use.
//
// Run reads the same middleware.Config the host gives middleware.New, so
// the doctor and the app cannot disagree. An app reaches it without glue
// in one of two ways:
//
//	// in main, once cfg is built: EMBEDKIT_DOCTOR=1 ./billing checks it and exits
//	doctor.ExitIfRequested(doctor.Config{Name: "billing", Kit: cfg})
//
//	// on the loopback or admin mux: "embedkit doctor -app URL" or curl reads it
//	admin.Handle("GET /debug/embedkit/doctor", doctor.Handler(doctor.Config{Name: "billing", Kit: cfg}))
//
// or calls Run itself:
//
//	rep, err := doctor.Run(ctx, doctor.Config{Name: "billing", Kit: cfg, HostURL: "https://app.example.com/analytics"})
//	if err != nil { ... }
//	rep.WriteText(os.Stdout)
//	if rep.Failed() { os.Exit(1) }
//
// Every report names the configuration it checked (Report.Config: the
// name, targets, groups, attributes and host origin). Each finding is a
// Check: ok, warning, failed or skipped, with what was found and what to
// do; a check that could not run is there as skipped, with the reason.
// Fixes name Config fields, and the variables the app reads them from
// when Config.Sources says. The "embedkit doctor" command (cmd/embedkit)
// reads a running app's Handler (-app), or checks a set-up described by
// its flags.
//
// # What it sends
//
// The doctor calls only documented operations. It lists deployments and
// the deployment's environments; it mints probe sessions with
// generate-session for one external user, DefaultProbeExternalID unless
// Config.ProbeExternalID says otherwise (the platform upserts that user;
// each probe replaces its groups and clears the probed attributes, whose
// values it sends as null); it exchanges one probe session and asks GET
// /api/v1/embed/dashboard/{publicId} about each dashboard target with the
// resulting embed token (the documentation names the 403 of a dashboard
// without "Allow signed embedding"); and it revokes every session it
// minted before Run returns. Groups are probed together (the platform
// names the missing ones); attributes are probed together and, when the
// platform answers "User attributes not found", which names none, one at
// a time. Probes use viewer mode: creator-mode viewers' attributes resolve
// against their embed tenant's own catalog, which is not checked.
//
// Toward the host it sends a GET of the page, as a browser navigating to
// it would (no cookies but Config.HostHeader's, redirects followed within
// its origin), and judges its Content-Security-Policy only when the page
// it lands on embeds (an <iframe> of the frame endpoint, an <iframe
// data-embedkit> or an <embedkit-frame>), never a sign-in page a redirect
// led to; and, when
// Config.Origins.Host is empty, one POST to the session endpoint with the
// page's Origin and no fetch metadata: the kit refuses that request (403)
// exactly when the Host it sees is not the one browsers use, as behind a
// proxy that rewrites Host.
//
// No API key, embed token or session id appears in a report.
package doctor
