// Package readmecheck holds the tests that keep the README and the pages
// under docs/ true: every Go example compiles in a host module of its own
// that uses embedkit through a replace directive, as a user's app does;
// every member, dashboard and link they name exists; and the README opens
// with its two commands. It has no code of its own.
package readmecheck
