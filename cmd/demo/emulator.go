package main

import (
	"context"
	"io"

	"github.com/embedkit/embedkit/internal/emulatorcmd"
)

// runEmulator is "demo emulator", the same command as cmd/emulator.
func runEmulator(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return emulatorcmd.Run(ctx, "demo emulator", args, stdout, stderr)
}
