package authn

import (
	"context"
	"testing"

	"github.com/svckit/svc/modules/authn/bearer"
)

func TestContextAccessors(t *testing.T) {
	ctx := context.Background()
	if _, ok := PrincipalFrom(ctx); ok {
		t.Fatal("principal in an empty context")
	}
	if _, ok := ClaimsFrom(ctx); ok {
		t.Fatal("claims in an empty context")
	}
	if _, ok := TokenFrom(ctx); ok {
		t.Fatal("token in an empty context")
	}

	claims := &bearer.Claims{Subject: "u"}
	p := bearer.Principal{Subject: "u", Issuer: "i", Claims: claims, Authenticated: true}
	ctx2 := withPrincipal(ctx, p, "tok")
	got, ok := PrincipalFrom(ctx2)
	if !ok || got.Subject != "u" || !got.Authenticated {
		t.Fatalf("PrincipalFrom = %+v %v", got, ok)
	}
	if c, ok := ClaimsFrom(ctx2); !ok || c != claims {
		t.Fatalf("ClaimsFrom = %v %v", c, ok)
	}
	if tok, ok := TokenFrom(ctx2); !ok || tok != "tok" {
		t.Fatalf("TokenFrom = %q %v", tok, ok)
	}
}

func TestContextUnauthenticatedCallerIsNoCaller(t *testing.T) {
	// An anonymous route that was sent no token stores the zero principal.
	ctx := withPrincipal(context.Background(), bearer.Principal{}, "")
	if _, ok := PrincipalFrom(ctx); ok {
		t.Fatal("unauthenticated caller reported as present")
	}
	if _, ok := TokenFrom(ctx); ok {
		t.Fatal("token of an unauthenticated caller")
	}
	// A token that did not verify is never readable, even if stored.
	ctx = withPrincipal(context.Background(), bearer.Principal{Subject: "x"}, "unverified")
	if _, ok := TokenFrom(ctx); ok {
		t.Fatal("unverified token readable")
	}
}

func TestContextCustomPrincipalWithoutClaims(t *testing.T) {
	ctx := withPrincipal(context.Background(), bearer.Principal{Subject: "svc", Authenticated: true, Extra: 42}, "tok")
	if _, ok := ClaimsFrom(ctx); ok {
		t.Fatal("claims of a principal that has none")
	}
	p, _ := PrincipalFrom(ctx)
	if p.Extra != 42 {
		t.Fatalf("Extra = %v", p.Extra)
	}
}
