package ekprom

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/embedkit/embedkit/middleware"
	prom "github.com/prometheus/client_golang/prometheus"
)

// DefaultNamespace is the prefix of every metric name unless WithNamespace
// says otherwise: embedkit_mints_total and so on.
const DefaultNamespace = "embedkit"

// Option configures New.
type Option func(*config)

type config struct {
	namespace   string
	constLabels prom.Labels
	buckets     []float64
}

// namePattern is what a namespace and a const label name look like: the
// classic name characters of the Prometheus data model, without the colon
// (reserved for recording rules). The client accepts any UTF-8 name, but
// names outside this set must be quoted in the exposition and in PromQL,
// and the naming conventions ask for snake_case.
var namePattern = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// WithNamespace replaces DefaultNamespace as the prefix of every metric
// name, for example "shop_embedkit" for shop_embedkit_mints_total. An
// empty ns leaves the default: names without a prefix (mints_total) would
// collide with other exporters'. New panics when ns is not
// [a-zA-Z_][a-zA-Z0-9_]*.
//
// To tell two Kits of one process apart, keep the namespace and use
// WithConstLabels instead: one metric name with a label is what queries
// aggregate over.
func WithNamespace(ns string) Option {
	return func(c *config) {
		if ns != "" {
			c.namespace = ns
		}
	}
}

// WithConstLabels adds labels with fixed values to every metric, for
// example {"kit": "admin"} when one process runs two Kits. Every Metrics
// on one registry must then have the same label names, with different
// values: a registry refuses one metric name with two label sets. New
// copies labels; later calls add to the earlier ones. New panics when a
// name is not [a-zA-Z_][a-zA-Z0-9_]*, starts with "__" (reserved) or is
// OutcomeLabel; Register refuses a value that is not UTF-8.
//
// Labels that are the same for everything an application exports (its
// instance, region) belong on the scrape target or
// prometheus.WrapRegistererWith, not here.
func WithConstLabels(labels prom.Labels) Option {
	return func(c *config) {
		if len(labels) == 0 {
			return
		}
		if c.constLabels == nil {
			c.constLabels = make(prom.Labels, len(labels))
		}
		maps.Copy(c.constLabels, labels)
	}
}

// WithBuckets replaces middleware.DurationBuckets as the upper bounds, in seconds,
// of the buckets of both duration histograms. New copies buckets; an
// empty list leaves the default. New panics when the bounds are not in
// strictly increasing order. A trailing +Inf is allowed and ignored: every
// histogram has that bucket.
func WithBuckets(buckets ...float64) Option {
	return func(c *config) {
		if len(buckets) > 0 {
			c.buckets = slices.Clone(buckets)
		}
	}
}

// newConfig applies opts over the defaults and checks the result. It
// panics on a bad option, as client_golang's constructors do: options are
// constants of the program, not input, and a wrong one should stop it at
// start-up rather than leave it without metrics.
func newConfig(opts []Option) config {
	c := config{namespace: DefaultNamespace}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if !namePattern.MatchString(c.namespace) {
		panic(fmt.Sprintf("ekprom: WithNamespace(%q): a namespace is made of [a-zA-Z0-9_] and does not start with a digit", c.namespace))
	}
	for _, name := range slices.Sorted(maps.Keys(c.constLabels)) {
		switch {
		case !namePattern.MatchString(name):
			panic(fmt.Sprintf("ekprom: WithConstLabels: label name %q is not made of [a-zA-Z0-9_] or starts with a digit", name))
		case strings.HasPrefix(name, "__"):
			panic(fmt.Sprintf("ekprom: WithConstLabels: label name %q starts with __, which Prometheus reserves", name))
		case name == OutcomeLabel:
			panic(fmt.Sprintf("ekprom: WithConstLabels: label name %q is the variable label of the counters and histograms", name))
		}
	}
	if c.buckets == nil {
		c.buckets = middleware.DurationBuckets()
	}
	for i := 1; i < len(c.buckets); i++ {
		// Written so that a NaN fails too.
		if !(c.buckets[i] > c.buckets[i-1]) {
			panic(fmt.Sprintf("ekprom: WithBuckets: bounds must be strictly increasing, but [%d] = %g follows %g", i, c.buckets[i], c.buckets[i-1]))
		}
	}
	return c
}
