// Package routers is the module that compiles the Go examples of
// docs/routers.md, which import chi, echo and gin: a module of its own,
// so that the kit's go.mod requires no router. It requires the three at
// the versions the page is checked against, and embedkit from this
// checkout through a replace directive, as a host app would.
// internal/readmecheck's TestRouterExamplesCompile builds each example in
// a copy of it, with modules from the Go module proxy (or the module
// cache).
package routers

// The routers the examples import, so that go mod tidy keeps them.
import (
	_ "github.com/gin-gonic/gin"
	_ "github.com/go-chi/chi/v5"
	_ "github.com/go-chi/chi/v5/middleware"
	_ "github.com/labstack/echo/v4"
	_ "github.com/labstack/echo/v4/middleware"

	_ "github.com/embedkit/embedkit/middleware"
)
