// Command emulator runs the analytics platform's emulator on its own: the
// management API, the embedded pages and the control API, in memory, from
// a fixture, for tests and CI (the way stripe-mock is run):
//
//	go run ./cmd/emulator [-listen 127.0.0.1:7070] [-fixture FILE] [-tls] [-allow-remote] [-control-host NAME,...] [-v]
//
// The first line on stdout is exactly "listening on <base URL>". SIGINT and
// SIGTERM stop it gracefully. "go run ./cmd/demo emulator" is the same
// command. See package emulator for the fixture format and the control API.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/embedkit/embedkit/internal/emulatorcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal terminates at once
	}()
	err := emulatorcmd.Run(ctx, "emulator", os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
