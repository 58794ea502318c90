// Package emulatorcmd is the platform emulator's command line, shared by
// "emulator" (cmd/emulator) and its alias "demo emulator" (cmd/demo): the
// same flags, the same first line, the same exit.
package emulatorcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/embedkit/embedkit/embedkit/emulator"
)

// Run parses args (without the program name) and serves the emulator with
// emulator.ListenAndServe until ctx ends. The first line on stdout is
// exactly "listening on <base URL>". name is the command as the user
// typed it, for the usage line. -h prints the usage and returns nil.
func Run(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", emulator.DefaultAddr, "address to listen on (port 0 picks a free port)")
	fixture := fs.String("fixture", "", "fixture JSON file (default: the built-in demo fixture)")
	useTLS := fs.Bool("tls", false, "serve HTTPS with a self-signed certificate generated in memory")
	allowRemote := fs.Bool("allow-remote", false, "allow a non-loopback listen address (the control API has no authentication)")
	controlHosts := fs.String("control-host", "", "comma-separated host names the control API also answers to, such as a container's service name (loopback addresses and localhost always work)")
	verbose := fs.Bool("v", false, "log every request to stderr")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s [-listen 127.0.0.1:7070] [-fixture FILE] [-tls] [-allow-remote] [-control-host NAME,...] [-v]\n", name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("emulator: unexpected arguments %q", fs.Args())
	}
	var fx *emulator.Fixture
	if *fixture != "" {
		f, err := os.Open(*fixture)
		if err != nil {
			return fmt.Errorf("emulator: %w", err)
		}
		fx, err = emulator.LoadFixture(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%w (in %s)", err, *fixture)
		}
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	return emulator.ListenAndServe(ctx, emulator.Config{
		Addr:         *listen,
		AllowRemote:  *allowRemote,
		ControlHosts: splitList(*controlHosts),
		TLS:          *useTLS,
		Fixture:      fx,
		Logger:       logger,
		Ready: func(url string) {
			fmt.Fprintf(stdout, "listening on %s\n", url)
		},
	})
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(v string) []string {
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
