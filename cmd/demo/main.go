// Command demo runs the embedkit demo: a host application embedding the
// analytics platform's dashboards. Its emulator subcommand runs the
// platform emulator on its own:
//
//	go run ./cmd/demo                      the demo application
//	go run ./cmd/demo emulator [flags]     the platform emulator only
//
// Run "go run ./cmd/demo emulator -h" for the emulator's flags.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal terminates at once
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run dispatches to a subcommand; without one it runs the demo.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "emulator" {
		return runEmulator(ctx, args[1:], stdout, stderr)
	}
	return runDemo(ctx, args, stdout, stderr)
}
