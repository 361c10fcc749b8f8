package bearer_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/modules/authn/bearer"
)

// A complete program: discover an issuer, verify its tokens. The issuer
// here is svc's development authorization server on 127.0.0.1; in
// production it is your provider's issuer URL.
func ExampleDiscover() {
	iss, err := devissuer.Start(devissuer.Options{Audience: "orders"})
	if err != nil {
		panic(err)
	}
	defer iss.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	v, err := bearer.Discover(ctx, iss.URL, "orders")
	if err != nil {
		panic(err)
	}
	defer v.Close(context.Background())

	token, _ := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"orders:read"}})
	p, err := v.Verify(ctx, token)
	fmt.Println(p.Subject, p.Scopes.Has("orders:read"), err)

	_, err = v.Verify(ctx, token+"x")
	var te *bearer.TokenError
	fmt.Println(errors.As(err, &te), te.Reason)
	// Output:
	// alice true <nil>
	// true malformed
}

// An issuer that cannot be reached: Discover says why, and leaves nothing
// running.
func ExampleDiscover_unreachable() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := bearer.Discover(ctx, "http://127.0.0.1:1", "orders")
	fmt.Println(errors.Is(err, bearer.ErrKeysUnavailable))
	// Output:
	// true
}
