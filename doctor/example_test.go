package doctor_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/embedkit/embedkit/doctor"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/middleware"
)

// A host checks the Config it gives middleware.New before it serves: here
// against the emulator's demo account, with one dashboard target of
// another deployment's id and a group the account does not have.
func ExampleRun() {
	emu, err := emulator.New(nil) // the demo fixture
	if err != nil {
		log.Fatal(err)
	}
	platform := httptest.NewServer(emu)
	defer platform.Close()
	client, err := embedkit.New(platform.URL, "ek_dev_only_admin_all") // the demo fixture's dev-only key
	if err != nil {
		log.Fatal(err)
	}

	rep, err := doctor.Run(context.Background(), doctor.Config{Kit: middleware.Config{
		Platform:    client,
		PlatformURL: platform.URL,
		Policy: middleware.Policy{
			DeploymentID: 1,
			Groups:       middleware.GroupOptions{Allowed: []string{"sales", "finance"}},
			Attributes:   middleware.AttributeOptions{Allowed: []string{"region"}},
		},
		Targets: map[string]middleware.Target{
			"sales":   {Kind: middleware.KindDashboard, PublicID: "sales-overview"},
			"finance": {Kind: middleware.KindDashboard, PublicID: "finance-board"},
		},
	}})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range rep.Checks {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%-8s %s %s", c.Status, c.ID, c.Subject)))
	}
	g, _ := rep.Find("groups", "")
	fmt.Println(g.Detail)
	fmt.Println("failed:", rep.Failed())
	// Output:
	// ok       config
	// ok       api-key
	// ok       deployment
	// ok       generate-session
	// failed   groups
	// ok       attributes
	// failed   dashboard finance
	// ok       dashboard sales
	// ok       clock
	// skipped  host-page
	// skipped  frame-src
	// skipped  frame-ancestors
	// warning  host-origin
	// the platform has no groups named finance
	// failed: true
}

// An app runs the doctor on its own Config from its main: with
// EMBEDKIT_DOCTOR=1 in the environment, ExitIfRequested checks cfg,
// prints the report and exits; otherwise it returns and the app serves.
func ExampleExitIfRequested() {
	client, err := embedkit.New("https://acme.cubecloud.dev", "ek_from_the_environment")
	if err != nil {
		log.Fatal(err)
	}
	cfg := middleware.Config{
		Platform:    client,
		PlatformURL: "https://acme.cubecloud.dev",
		Policy:      middleware.Policy{DeploymentID: 42, Groups: middleware.GroupOptions{Allowed: []string{"sales"}}},
		Targets:     map[string]middleware.Target{"revenue": {Kind: middleware.KindDashboard, PublicID: "revenue"}},
	}
	doctor.ExitIfRequested(doctor.Config{Name: "billing", Kit: cfg})
	// ... middleware.New(cfg) and serve.
}

// An app mounts the doctor on its loopback admin listener, where
// "embedkit doctor -app http://127.0.0.1:6060/debug/embedkit/doctor"
// reads it.
func ExampleHandler() {
	var cfg middleware.Config // the Config the app gives middleware.New
	admin := http.NewServeMux()
	admin.Handle("GET /debug/embedkit/doctor", doctor.Handler(doctor.Config{Name: "billing", Kit: cfg}))
	go func() { log.Fatal(http.ListenAndServe("127.0.0.1:6060", admin)) }()
}
