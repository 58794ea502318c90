// Command loadtest drives the kit's frame endpoint with many concurrent
// viewers against the platform emulator on loopback, logs them all out,
// and checks that every load answered, every minted session was revoked
// and the host's memory went back down. It prints what it measured and
// exits 1 when a check failed.
//
//	go run ./cmd/loadtest [-viewers 1000] [-duration 30s] [-latency 20ms]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/embedkit/embedkit/internal/loadtest"
)

func main() {
	var o loadtest.Options
	flag.IntVar(&o.Viewers, "viewers", loadtest.DefaultViewers, "concurrent viewers, each with its own host session")
	flag.DurationVar(&o.Duration, "duration", loadtest.DefaultDuration, "how long the viewers load frames")
	flag.DurationVar(&o.Latency, "latency", loadtest.DefaultLatency, "latency the emulator adds to generate-session and revoke")
	flag.IntVar(&o.PlatformIdleConns, "platform-idle-conns", loadtest.DefaultPlatformIdleConns, "idle connections per host the kit's client keeps")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := loadtest.Run(ctx, o)
	fmt.Print(rep.String())
	if err != nil {
		os.Exit(1)
	}
}
