// Package unlinked holds the tests of a binary that links package metrics
// and no exporter: its test binary must import no exporter package, so it
// lives apart from package metrics' own tests, which link them all.
package unlinked
