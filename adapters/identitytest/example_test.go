package identitytest_test

import (
	"testing"

	"github.com/alexedwards/scs/v2"

	"github.com/embedkit/embedkit/adapters/identitytest"
	"github.com/embedkit/embedkit/adapters/scssession"
)

// An Identity's conformance test: the Harness says how the app signs a
// viewer in and out, what wraps its handlers, and how the Identity
// reaches the Kit. In an app, the function is a Test function of its own.
func ExampleRun() {
	testIdentityConformance := func(t *testing.T) {
		identitytest.Run(t, func(t *testing.T) identitytest.Harness {
			sm := scs.New()
			id := scssession.New(sm)
			return identitytest.Harness{
				Identity: id,
				SignIn:   id.Save,
				SignOut:  id.Clear,
				Mount:    sm.LoadAndSave,
			}
		})
	}
	_ = testIdentityConformance
}
