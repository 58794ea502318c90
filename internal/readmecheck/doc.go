// Package readmecheck holds the tests that keep the README and the pages
// under docs/ true: every Go example compiles in a host module of its own
// that uses embedkit through a replace directive, as a user's app does;
// the examples that are whole files (docs/routers.md's, which import chi,
// echo and gin) compile and serve the kit's endpoints in the module
// internal/readmecheck/routers, so that embedkit's own go.mod requires no
// router; every member, dashboard and link they name exists; and the
// README opens with its two commands. It has no code of its own.
package readmecheck
