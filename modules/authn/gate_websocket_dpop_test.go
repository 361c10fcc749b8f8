package authn_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/svckit/svc/internal/dpoptest"
	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// A websocket handshake is an HTTP GET (RFC 6455 §4.1), and the gate
// judges its DPoP proof as any request's (issue 21): htm GET and htu the
// http(s) URL of the handshake; a replayed proof, or one for another URL,
// refuses the upgrade with the DPoP challenge.
func TestWebsocketHandshakeWithDPoP(t *testing.T) {
	alice := dpoptest.New(t)
	srv := gateServer(t, svcerrors.New(), wsRouter(), dpopFake(alice), authn.DPoP(newDPoPVerifier(t), true))
	httpURL := srv.URL + "/ws"
	wsURL := "ws" + strings.TrimPrefix(httpURL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dial := func(proof string) (*websocket.Conn, *http.Response, error) {
		h := http.Header{"Authorization": {"DPoP bound-token"}, "Dpop": {proof}}
		return websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: h})
	}

	proof := alice.Proof(t, "GET", httpURL, "bound-token", "")
	c, _, err := dial(proof)
	if err != nil {
		t.Fatalf("handshake with a good proof: %v", err)
	}
	if err := c.Write(ctx, websocket.MessageText, []byte("ping")); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := c.Read(ctx); err != nil || string(msg) != "bob: ping" {
		t.Fatalf("echo %q %v", msg, err)
	}
	c.Close(websocket.StatusNormalClosure, "")

	for name, p := range map[string]string{
		"the same proof again":    proof,
		"a proof for another URL": alice.Proof(t, "GET", srv.URL+"/other", "bound-token", ""),
	} {
		_, resp, err := dial(p)
		if err == nil || resp == nil {
			t.Fatalf("%s: the upgrade went through", name)
		}
		if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_dpop_proof"`) {
			t.Errorf("%s: %d %q", name, resp.StatusCode, resp.Header.Values("WWW-Authenticate"))
		}
	}
}
