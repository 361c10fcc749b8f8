package secret_test

import (
	"encoding/json"
	"fmt"

	"github.com/svckit/svc/secret"
)

func ExampleString() {
	s := secret.String("s3cret")
	b, _ := json.Marshal(struct{ Secret secret.String }{s})
	fmt.Printf("%v %q %s\n", s, s, b)
	fmt.Println(s.Value() == "s3cret") // the one way to read it
	// Output:
	// *** "***" {"Secret":"***"}
	// true
}

func ExampleURL() {
	u := secret.URL("rediss://:pw@redis.internal:6379/0?token=abc")
	fmt.Println(u)
	// Output:
	// rediss://***@redis.internal:6379/0?***
}
