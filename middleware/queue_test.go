package middleware_test

import (
	"testing"

	"github.com/embedkit/embedkit/adapters/storetest"
	"github.com/embedkit/embedkit/middleware"
)

// TestMemoryQueue runs the queue contract on the Kit's own queue, which
// the memory store shares.
func TestMemoryQueue(t *testing.T) {
	storetest.RunQueue(t, func(*testing.T) middleware.RevokeQueue { return middleware.NewMemoryQueue(nil) })
}
