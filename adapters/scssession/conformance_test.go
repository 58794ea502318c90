package scssession_test

import (
	"testing"

	"github.com/embedkit/embedkit/adapters/identitytest"
)

// TestIdentityConformance runs the Identity conformance suite on real scs,
// with its memory store and with goredisstore on a real Redis.
func TestIdentityConformance(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		identitytest.Run(t, func(t *testing.T) identitytest.Harness {
			return harness(newManager(b.store(t)))
		})
	})
}
