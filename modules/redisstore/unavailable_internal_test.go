package redisstore

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/secret"
)

// An operation's error says whether Redis answered: an error reply is not
// a silence.
func TestUnavailableSaysWhetherRedisAnswered(t *testing.T) {
	srv := redistest.Start(t)
	c, err := Open(t.Context(), Config{URL: secret.URL(srv.URL), Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reply := c.Redis().Do(t.Context(), "NOSUCHCOMMAND").Err()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{reply, "redisstore: get: Redis answered with an error: ERR unknown command"},
		{os.ErrDeadlineExceeded, "redisstore: get: Redis did not answer: i/o timeout"},
	} {
		if got := (&unavailable{Op: "get", Err: tc.err}).Error(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q, want it to start with %q", got, tc.want)
		}
	}
}
