package ekotel_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/embedkit/embedkit/adapters/ekotel"
	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/middleware"
)

// The wiring: Metrics and Tracer into the kit's Config, and a tracing
// transport into the platform client, so the generate-session call is a
// child span of the mint and carries traceparent to the platform.
//
// An application usually sets its SDK providers and the propagator
// globally (otel.SetMeterProvider, otel.SetTracerProvider,
// otel.SetTextMapPropagator(propagation.TraceContext{})) and calls
// NewMetrics() and NewTracer() without options; here they are passed
// explicitly, with an in-memory reader and recorder standing in for
// exporters.
func Example() {
	// Exporters stand-ins.
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()

	// The platform, here its emulator.
	em, err := emulator.New(nil)
	if err != nil {
		log.Fatal(err)
	}
	platform := httptest.NewServer(em)
	defer platform.Close()

	// The client sends through otelhttp: one client span per attempt,
	// retries included. WithHTTPClient replaces the client's own
	// http.Client, so set a timeout again.
	client, err := embedkit.New(platform.URL, "ek_dev_only_admin_all", embedkit.WithHTTPClient(&http.Client{
		Timeout: 30 * time.Second,
		Transport: otelhttp.NewTransport(http.DefaultTransport,
			otelhttp.WithPropagators(propagation.TraceContext{})),
	}))
	if err != nil {
		log.Fatal(err)
	}

	metrics, err := ekotel.NewMetrics(ekotel.WithMeterProvider(mp))
	if err != nil {
		log.Fatal(err)
	}
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
		Tracer:      ekotel.NewTracer(ekotel.WithTracerProvider(tp)),
	})
	if err != nil {
		log.Fatal(err)
	}

	// One iframe load.
	w := httptest.NewRecorder()
	kit.FrameHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/embed/frame/sales", nil))
	fmt.Println("frame:", w.Code)

	// What the exporters would receive.
	ended := spans.Ended()
	for _, s := range ended {
		if s.Name() != ekotel.SpanMint {
			continue
		}
		fmt.Println("span:", s.Name(), show(s.Attributes()))
		for _, c := range ended {
			if c.Parent().SpanID() == s.SpanContext().SpanID() {
				fmt.Println("  child:", c.Name(), c.SpanKind())
			}
		}
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		log.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != ekotel.ScopeName {
			continue
		}
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, dp := range sum.DataPoints {
					fmt.Println("metric:", m.Name, m.Unit, show(dp.Attributes.ToSlice()), dp.Value)
				}
			}
		}
	}
	// Output:
	// frame: 303
	// span: embedkit.mint embedkit.outcome=ok
	//   child: HTTP POST client
	// metric: embedkit.mints {mint} embedkit.outcome=ok 1
}

// show prints attributes as key=value.
func show(kvs []attribute.KeyValue) string {
	var b strings.Builder
	for i, kv := range kvs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(kv.Key) + "=" + kv.Value.String())
	}
	return b.String()
}
