// Command embedkit holds embedkit's operations tools. Its one subcommand,
// doctor, checks a set-up against the platform and, optionally, the host
// app (see package doctor). It reaches the configuration to check in one
// of two ways:
//
//	embedkit doctor -app http://127.0.0.1:6060/debug/embedkit/doctor [-json]
//
// reads the report of a running app's own middleware.Config from the
// doctor.Handler the app mounts on its loopback or admin mux: the check
// runs inside the app, on the very Config it serves with. Without -app it
// checks the set-up the command line describes: the platform from flags
// or EMBEDKIT_BASE_URL, EMBEDKIT_API_KEY and EMBEDKIT_DEPLOYMENT_ID, and
// the targets, groups, attributes and origin from -dashboards (or
// EMBEDKIT_DASHBOARDS), -groups, -attributes and -public-url. Name each
// dashboard as the app names it in Config.Targets ("sales=sales-overview";
// a bare public id names the target after it), so that the probe of the
// app's session endpoint asks for a target the app knows. -groups "" and
// -attributes "" are empty allow-lists (none is sent); without them
// nothing is allow-listed (every one is sent). An app can
// also run the doctor on its own Config with doctor.ExitIfRequested
// (EMBEDKIT_DOCTOR=1 ./app). Every report names the configuration it
// checked. The exit status is 0 when no check failed, 1 when one did,
// and 2 for a usage error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/embedkit/embedkit/doctor"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// The environment variables the command reads.
const (
	envBaseURL      = "EMBEDKIT_BASE_URL"
	envAPIKey       = "EMBEDKIT_API_KEY"
	envDeploymentID = "EMBEDKIT_DEPLOYMENT_ID"
	envDashboards   = "EMBEDKIT_DASHBOARDS"
	// envHostCookie holds the Cookie header of a signed-in test user of
	// the host app, so that a page behind a sign-in can be checked; a
	// secret, so it is read from the environment only. It is the
	// variable doctor.ExitIfRequested reads too.
	envHostCookie = doctor.EnvDoctorHostCookie
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

// doctorFlags are the doctor's command line.
type doctorFlags struct {
	app, platformURL, apiKey, dashboards, groups, attributes string
	hostURL, publicURL, probe, name                          string
	deployment                                               int64
	asJSON                                                   bool
	timeout                                                  time.Duration
	// set holds the names of the flags given on the command line, so
	// that -groups '' (an empty allow-list: none is sent) is told apart
	// from no -groups (not allow-listed: every one is sent).
	set map[string]bool
}

// runDoctor parses the doctor's flags, runs it and writes its report. It
// reports whether a check failed.
func runDoctor(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (bool, error) {
	var f doctorFlags
	fs := flag.NewFlagSet("embedkit doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.app, "app", "", "the URL of a running app's doctor.Handler: check the app's own Config there (the other set-up flags do not apply)")
	fs.StringVar(&f.platformURL, "platform-url", "", "the platform's base URL (default $"+envBaseURL+")")
	fs.StringVar(&f.apiKey, "api-key", "", "the platform's admin API key (default $"+envAPIKey+", which keeps it out of the process list)")
	fs.Int64Var(&f.deployment, "deployment", 0, "the deployment id (default $"+envDeploymentID+")")
	fs.StringVar(&f.dashboards, "dashboards", "", "the dashboard targets, \"name=publicId,...\" named as the app names them in Config.Targets, or \"publicId,...\" named after their public ids (default $"+envDashboards+")")
	fs.StringVar(&f.groups, "groups", "", "the platform groups viewers may have, \"a,b\" (Policy.Groups.Allowed; '' for none; default: not allow-listed, every group is sent)")
	fs.StringVar(&f.attributes, "attributes", "", "the user attributes viewers may carry, \"a,b\" (Policy.Attributes.Allowed; '' for none; default: not allow-listed, every attribute is sent)")
	fs.StringVar(&f.hostURL, "host-url", "", "a page of the host app that embeds, as browsers open it: its CSP and origin are checked ($"+envHostCookie+" is sent as its Cookie)")
	fs.StringVar(&f.publicURL, "public-url", "", "the app's URL as browsers reach it, its Origins.Host (default: none, derived per request)")
	fs.StringVar(&f.name, "name", "", "the name of the set-up in the report (default: \"the set-up on the command line\")")
	fs.StringVar(&f.probe, "probe-user", doctor.DefaultProbeExternalID, "the external user the probe sessions are minted for")
	fs.BoolVar(&f.asJSON, "json", false, "write the report as JSON")
	fs.DurationVar(&f.timeout, "timeout", doctor.DefaultTimeout, "how long the whole check may take")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: embedkit doctor -app URL [-json]\n       embedkit doctor [set-up flags]\n\n"+
			"Checks an app's embedkit set-up against the platform and, with -host-url, the host app.\n"+
			"Exit status 1 when a check failed.\n\n")
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
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })

	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	var rep *doctor.Report
	var err error
	if f.app != "" {
		if rep, err = fetchReport(ctx, f.app); err != nil {
			return false, err
		}
	} else {
		cfg, err := setUp(f, getenv)
		if err != nil {
			return false, err
		}
		if rep, err = doctor.Run(ctx, cfg); err != nil {
			return false, err
		}
	}
	if f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = rep.WriteText(stdout)
	}
	return rep.Failed(), err
}

// setUp builds the doctor's Config from the set-up the command line
// describes: flags win over the environment.
func setUp(f doctorFlags, getenv func(string) string) (doctor.Config, error) {
	pick := func(flagValue, env string) string {
		if flagValue != "" {
			return flagValue
		}
		return strings.TrimSpace(getenv(env))
	}
	base, key, deps := pick(f.platformURL, envBaseURL), pick(f.apiKey, envAPIKey), pick("", envDeploymentID)
	if f.deployment != 0 {
		deps = strconv.FormatInt(f.deployment, 10)
	}
	// Name each missing setting, and only those.
	var missing []string
	for _, m := range []struct{ value, env, flag string }{
		{base, envBaseURL, "-platform-url"},
		{key, envAPIKey, "-api-key"},
		{deps, envDeploymentID, "-deployment"},
	} {
		if m.value == "" {
			missing = append(missing, m.env+" (or "+m.flag+")")
		}
	}
	switch len(missing) {
	case 0:
	case 1:
		return doctor.Config{}, fmt.Errorf("%w: %s is not set; or check a running app's own Config with -app", errUsage, missing[0])
	default:
		return doctor.Config{}, fmt.Errorf("%w: %s are not set; or check a running app's own Config with -app", errUsage, strings.Join(missing, " and "))
	}
	if _, err := embedkit.ParseBaseURL(base); err != nil {
		return doctor.Config{}, fmt.Errorf("%w: %s (-platform-url): %v", errUsage, envBaseURL, err)
	}
	dep, err := strconv.ParseInt(deps, 10, 64)
	if err != nil || dep <= 0 {
		return doctor.Config{}, fmt.Errorf("%w: %s (-deployment) must be a positive integer, got %q", errUsage, envDeploymentID, deps)
	}
	targets, err := parseDashboards(pick(f.dashboards, envDashboards))
	if err != nil {
		return doctor.Config{}, fmt.Errorf("%w: %s (-dashboards): %v", errUsage, envDashboards, err)
	}
	// The client's own records go nowhere: the report says what failed.
	client, err := embedkit.New(base, key, embedkit.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return doctor.Config{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	origin := ""
	if f.publicURL != "" {
		u, err := url.Parse(f.publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return doctor.Config{}, fmt.Errorf("%w: -public-url %q must be an absolute http or https URL", errUsage, f.publicURL)
		}
		origin = u.Scheme + "://" + u.Host
	}
	name := f.name
	if name == "" {
		name = "the set-up on the command line"
	}
	cfg := doctor.Config{
		Name: name,
		Kit: middleware.Config{
			Platform:    client,
			PlatformURL: base,
			Policy: middleware.Policy{
				DeploymentID: dep,
				Groups:       middleware.GroupOptions{Allowed: allowList(f.set["groups"], f.groups)},
				Attributes:   middleware.AttributeOptions{Allowed: allowList(f.set["attributes"], f.attributes)},
			},
			Targets: targets,
			Origins: middleware.OriginOptions{Host: origin},
		},
		HostURL:         f.hostURL,
		ProbeExternalID: f.probe,
		Sources: map[string]string{
			"APIKey":              envAPIKey + " or -api-key",
			"PlatformURL":         envBaseURL + " or -platform-url",
			"Policy.DeploymentID": envDeploymentID + " or -deployment",
			"Origins.Host":        "-public-url",
		},
	}
	if c := getenv(envHostCookie); c != "" {
		cfg.HostHeader = http.Header{"Cookie": {c}}
	}
	return cfg, nil
}

// allowList reads an allow-list flag: not given is nil (not
// allow-listed: every entry is sent), given and empty (-attributes "")
// an empty list (none is sent).
func allowList(given bool, s string) []string {
	l := list(s)
	if given && l == nil {
		return []string{}
	}
	return l
}

// list splits a comma-separated flag; empty is nil.
func list(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// publicIDRE is a dashboard public id as the command accepts it; the
// Config check applies the kit's own rule.
var publicIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// parseDashboards reads "name=publicId,..." into dashboard targets with
// those names, as the app's Config.Targets names them; an item without
// "name=" is named after its public id. A ":Title" after the public id
// is accepted and ignored. Empty is no target. The Config check applies
// the kit's rule for names.
func parseDashboards(s string) (map[string]middleware.Target, error) {
	targets := map[string]middleware.Target{}
	for _, item := range list(s) {
		name, id, named := strings.Cut(item, "=")
		if !named {
			id = name
		}
		id, _, _ = strings.Cut(id, ":")
		name, id = strings.TrimSpace(name), strings.TrimSpace(id)
		if !publicIDRE.MatchString(id) {
			return nil, fmt.Errorf("%q is not a dashboard public id (letters, digits, '-' and '_')", id)
		}
		if !named {
			name = id
		}
		if name == "" {
			return nil, fmt.Errorf("%q names no target before '='", item)
		}
		if _, dup := targets[name]; dup {
			return nil, fmt.Errorf("target %q is named twice", name)
		}
		targets[name] = middleware.Target{Kind: middleware.KindDashboard, PublicID: id}
	}
	return targets, nil
}

// maxReport bounds the report read from an app.
const maxReport = 1 << 20

// fetchReport reads the JSON report of a running app's doctor.Handler.
func fetchReport(ctx context.Context, app string) (*doctor.Report, error) {
	u, err := url.Parse(app)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: -app %q must be the absolute http or https URL of the app's doctor handler", errUsage, app)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: -app: %v", errUsage, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embedkit doctor: asking the app at %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxReport))
	if err != nil {
		return nil, fmt.Errorf("embedkit doctor: reading the app's answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("embedkit doctor: the app at %s answered %d: %s", u.Redacted(), resp.StatusCode, strings.TrimSpace(string(body)))
	}
	var rep doctor.Report
	if err := json.Unmarshal(body, &rep); err != nil || rep.Checks == nil {
		return nil, fmt.Errorf("embedkit doctor: the app at %s did not answer a doctor report (is -app the doctor.Handler's URL?)", u.Redacted())
	}
	return &rep, nil
}
