package main

// This file is a placeholder owned by the demo application: its engineer
// replaces it with the real runDemo (emulator + dev identity provider +
// host web application). Until then the demo refuses to start with a
// clear message; the emulator subcommand works.

import (
	"context"
	"errors"
	"io"
)

// runDemo runs the demo application.
func runDemo(_ context.Context, _ []string, _, _ io.Writer) error {
	return errors.New("demo: the demo app is not built yet; run 'go run ./cmd/demo emulator'")
}
