// Command embedkit holds embedkit's operations tools. Its one subcommand,
// doctor, checks a set-up against the platform and, optionally, the host
// app (see package doctor):
//
//	go run ./cmd/embedkit doctor [-host-url URL] [-json]
//
// It reads the platform settings from the same environment variables as
// the demo (EMBEDKIT_BASE_URL, EMBEDKIT_API_KEY, EMBEDKIT_DEPLOYMENT_ID,
// EMBEDKIT_DASHBOARDS), or from flags, which win, and checks the kit's
// Config the demo app builds from them (webapp.KitConfig). The exit status
// is 0 when no check failed, 1 when one did, and 2 for a usage error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/embedkit/embedkit/doctor"
	"github.com/embedkit/embedkit/examples/webapp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// errUsage marks an error of the command line, exit status 2.
var errUsage = errors.New("usage")

// run runs the command and returns its exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "doctor" {
		fmt.Fprintln(stderr, "usage: embedkit doctor [flags]\n\nRun \"embedkit doctor -h\" for its flags.")
		return 2
	}
	failed, err := runDoctor(ctx, args[1:], getenv, stdout, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, err)
		return 2
	case err != nil:
		fmt.Fprintln(stderr, err)
		return 1
	case failed:
		return 1
	}
	return 0
}

// runDoctor parses the doctor's flags, runs it and writes its report. It
// reports whether a check failed.
func runDoctor(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (bool, error) {
	fs := flag.NewFlagSet("embedkit doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	platformURL := fs.String("platform-url", "", "the platform's base URL (default $"+webapp.EnvBaseURL+")")
	apiKey := fs.String("api-key", "", "the platform's admin API key (default $"+webapp.EnvAPIKey+", which keeps it out of the process list)")
	deployment := fs.Int64("deployment", 0, "the deployment id (default $"+webapp.EnvDeploymentID+")")
	dashboards := fs.String("dashboards", "", "the dashboards, \"publicId:Title,...\" (default $"+webapp.EnvDashboards+", else the demo's)")
	hostURL := fs.String("host-url", "", "a page of the host app that embeds, as browsers open it: its CSP and origin are checked")
	publicURL := fs.String("public-url", "", "the app's URL as browsers reach it, which the app names to the platform as its origin (default: none, derived per request)")
	probe := fs.String("probe-user", doctor.DefaultProbeExternalID, "the external user the probe sessions are minted for")
	asJSON := fs.Bool("json", false, "write the report as JSON")
	timeout := fs.Duration("timeout", 30*time.Second, "how long the whole check may take")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: embedkit doctor [flags]\n\nChecks the platform settings and, with -host-url, the host app. Exit status 1 when a check failed.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return false, err
		}
		return false, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return false, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}

	// Flags win over the environment, through the demo's own reader.
	flags := map[string]string{webapp.EnvBaseURL: *platformURL, webapp.EnvAPIKey: *apiKey, webapp.EnvDashboards: *dashboards}
	if *deployment != 0 {
		flags[webapp.EnvDeploymentID] = strconv.FormatInt(*deployment, 10)
	}
	env := func(name string) string {
		if v := flags[name]; v != "" {
			return v
		}
		return getenv(name)
	}
	cfg, err := webapp.ConfigFromEnv(env)
	if err != nil {
		return false, fmt.Errorf("%w: %v", errUsage, err)
	}
	if !cfg.PlatformConfigured() {
		return false, fmt.Errorf("%w: name the platform: -platform-url, -api-key and -deployment, or %s, %s and %s", errUsage, webapp.EnvBaseURL, webapp.EnvAPIKey, webapp.EnvDeploymentID)
	}
	cfg.PublicURL = *publicURL
	// The client's own records go nowhere: the report says what failed.
	cfg.Logger = slog.New(slog.DiscardHandler)
	kc, err := webapp.KitConfig(cfg)
	if err != nil {
		return false, fmt.Errorf("%w: %v", errUsage, err)
	}

	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	rep, err := doctor.Run(ctx, doctor.Config{Kit: kc, HostURL: *hostURL, ProbeExternalID: *probe})
	if err != nil {
		return false, err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = rep.WriteText(stdout)
	}
	return rep.Failed(), err
}
