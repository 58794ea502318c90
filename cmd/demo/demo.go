package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/embedkit/embedkit/examples/webapp"
)

// shutdownTimeout bounds the graceful stop after a signal.
const shutdownTimeout = 10 * time.Second

const demoUsage = `usage: demo [flags]

Runs the Ledgerly demo in one process: the host app, the analytics
platform emulator and a development OpenID provider, all on loopback.

Environment (each group replaces its embedded part; all optional):
  EMBEDKIT_BASE_URL, EMBEDKIT_API_KEY, EMBEDKIT_DEPLOYMENT_ID
                        a real platform instead of the emulator (all three)
  EMBEDKIT_DASHBOARDS   dashboards offered with a real platform:
                        "publicId:Title,publicId:Title"
  OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET
                        a real OpenID provider instead of the development
                        one (all three); register <app URL>/auth/callback
  SESSION_KEYS          session cookie keys, newest first: base64
                        "hash[:block],older-hash[:older-block]"
                        (default: generated at start, so a restart signs
                        everyone out)
  REDIS_ADDR            keep minted embed session ids in Redis

Flags:
`

// runDemo is the demo: flags and environment, then webapp.RunDemo until
// a signal. The first line on stdout is "demo: open <app URL>".
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", webapp.DefaultListen, "address of the app (port 0 picks a free port)")
	publicURL := fs.String("public-url", "", "the app's URL as browsers reach it, when behind a proxy (default http://<listen address>)")
	idpListen := fs.String("idp-listen", webapp.DefaultIdPListen, "address of the development OpenID provider (loopback only)")
	emuListen := fs.String("emulator-listen", webapp.DefaultEmulatorListen, "address of the platform emulator (loopback only)")
	metricsListen := fs.String("metrics-listen", "127.0.0.1:9464", "address of the Prometheus /metrics endpoint (loopback only)")
	verbose := fs.Bool("v", false, "log debug records too")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), demoUsage)
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "\nRun \"demo emulator -h\" for the emulator on its own.")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("demo: unexpected arguments %q", fs.Args())
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	d, err := webapp.RunDemo(ctx, webapp.DemoOptions{
		Listen:         *listen,
		PublicURL:      *publicURL,
		IdPListen:      *idpListen,
		EmulatorListen: *emuListen,
		MetricsListen:  *metricsListen,
		Getenv:         os.Getenv,
		Logger:         logger,
	})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	printBanner(stdout, d)

	var runErr error
	select {
	case <-ctx.Done():
	case err := <-d.Err():
		runErr = fmt.Errorf("demo: a server stopped: %w", err)
	}
	fmt.Fprintln(stdout, "demo: shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := d.Close(sctx); err != nil {
		return errors.Join(runErr, fmt.Errorf("demo: %w", err))
	}
	return runErr
}

// printBanner tells what to open and, for the development provider, how
// to sign in.
func printBanner(w io.Writer, d *webapp.Demo) {
	fmt.Fprintf(w, "demo: open %s\n", d.AppURL)
	if d.Emulator != nil {
		fmt.Fprintf(w, "demo: analytics platform emulator at %s (built-in demo data)\n", d.PlatformURL)
	} else {
		fmt.Fprintf(w, "demo: analytics platform at %s\n", d.PlatformURL)
	}
	if d.IdP == nil {
		fmt.Fprintf(w, "demo: sign in with your OpenID provider %s\n", d.IssuerURL)
	} else {
		fmt.Fprintf(w, "demo: development sign-in provider at %s\n", d.IssuerURL)
		fmt.Fprintln(w, "demo: demo accounts (development only, never use these passwords elsewhere):")
		for _, u := range d.Users {
			note := fmt.Sprintf("%s, tenant %s", u.Name, u.Tenant)
			if u.CreatorMode {
				note += ", creator workspace"
			}
			fmt.Fprintf(w, "demo:   %-6s / %-15s %s\n", u.Username, u.Password, note)
		}
	}
	fmt.Fprintf(w, "demo: the kit's Prometheus metrics at %s (loopback only)\n", d.MetricsURL)
	fmt.Fprintf(w, "demo: check the app's own set-up with: go run ./cmd/embedkit doctor -app %s\n", d.DoctorURL)
	fmt.Fprintln(w, "demo: press Ctrl-C to stop")
}
