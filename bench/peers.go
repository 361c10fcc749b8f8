//go:build peers

// Package bench holds the benchmarks that compare svc with peer libraries.
// This file pins the peers in bench/go.mod so they never enter the main module.
package bench

import (
	_ "github.com/auth0/go-jwt-middleware/v2"
	_ "github.com/go-chi/jwtauth/v5"
	_ "github.com/svckit/svc/secret"
	_ "golang.org/x/oauth2"
)
