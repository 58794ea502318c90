package ekprom_test

import (
	"bufio"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/embedkit/embedkit/adapters/ekprom"
	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/middleware"
)

// The wiring: Metrics registered on a registry and handed to the Kit, the
// registry served by promhttp on a listener of its own, never on the
// host application's public mux.
func Example() {
	// The platform emulator stands in for the real platform.
	em, err := emulator.New(nil)
	if err != nil {
		log.Fatal(err)
	}
	platform := httptest.NewServer(em)
	defer platform.Close()
	client, err := embedkit.New(platform.URL, "ek_dev_only_admin_all")
	if err != nil {
		log.Fatal(err)
	}

	metrics := ekprom.New()
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics)

	kit, err := middleware.New(middleware.Config{
		Platform: client,
		Identity: middleware.IdentityFunc(func(r *http.Request) (*middleware.Viewer, error) {
			return &middleware.Viewer{Subject: "ana", SessionKey: "login-1", Groups: []string{"sales"}}, nil
		}),
		Store:       memstore.New(),
		Policy:      middleware.Policy{DeploymentID: 1, Groups: middleware.GroupOptions{Allowed: []string{"sales"}}},
		PlatformURL: platform.URL,
		Targets:     map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}},
		Metrics:     metrics,
	})
	if err != nil {
		log.Fatal(err)
	}

	// In production: http.ListenAndServe("127.0.0.1:9090", internal), or
	// an internal interface the Prometheus server reaches.
	internal := http.NewServeMux()
	internal.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	ops := httptest.NewServer(internal) // listens on loopback
	defer ops.Close()

	// One iframe load.
	w := httptest.NewRecorder()
	kit.FrameHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/embed/frame/sales", nil))
	fmt.Println("frame:", w.Code)

	resp, err := http.Get(ops.URL + "/metrics")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "embedkit_mints_total") || strings.HasPrefix(line, "embedkit_mint_duration_seconds_count") {
			fmt.Println(line)
		}
	}
	// Output:
	// frame: 303
	// embedkit_mint_duration_seconds_count{outcome="denied"} 0
	// embedkit_mint_duration_seconds_count{outcome="error"} 0
	// embedkit_mint_duration_seconds_count{outcome="invalid"} 0
	// embedkit_mint_duration_seconds_count{outcome="ok"} 1
	// embedkit_mint_duration_seconds_count{outcome="unavailable"} 0
	// embedkit_mints_total{outcome="denied"} 0
	// embedkit_mints_total{outcome="error"} 0
	// embedkit_mints_total{outcome="invalid"} 0
	// embedkit_mints_total{outcome="limited"} 0
	// embedkit_mints_total{outcome="ok"} 1
	// embedkit_mints_total{outcome="unavailable"} 0
}

// Two Kits in one process, say the customer app and the admin console,
// on one registry: the same label names with different values.
func ExampleWithConstLabels() {
	reg := prometheus.NewRegistry()
	customers := ekprom.New(ekprom.WithConstLabels(prometheus.Labels{"kit": "customers"}))
	admin := ekprom.New(ekprom.WithConstLabels(prometheus.Labels{"kit": "admin"}))
	reg.MustRegister(customers, admin)

	customers.RevokeQueueDepth(3)
	admin.RevokeQueueDepth(0)

	mfs, err := reg.Gather()
	if err != nil {
		log.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "embedkit_revoke_queue_depth" {
			continue
		}
		for _, m := range mf.GetMetric() {
			fmt.Println(m.GetLabel()[0].GetValue(), m.GetGauge().GetValue())
		}
	}
	// Output:
	// admin 0
	// customers 3
}
