package authngrpc

import (
	"context"
	"net/http"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// headerStream records the header metadata a call's interceptor sets.
type headerStream struct {
	grpc.ServerTransportStream
	header metadata.MD
}

func (s *headerStream) Method() string { return "/svc.Test/Call" }

func (s *headerStream) SetHeader(md metadata.MD) error {
	s.header = metadata.Join(s.header, md)
	return nil
}

// TestAdmittedCallCarriesTheGatesNonce: when the gate admits a proof that
// carried the previous step's nonce, it sets DPoP-Nonce on its answer (see
// modules/authn's gate tests, which drive the nonce's clock); over gRPC
// that value reaches the client as dpop-nonce header metadata, as a
// refusal's does. The gate is stood in for by a handler that admits and
// sets the header as it does.
func TestAdmittedCallCarriesTheGatesNonce(t *testing.T) {
	for _, nonce := range []string{"next-nonce", ""} {
		gh := &guard{h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if nonce != "" {
				w.Header().Set("DPoP-Nonce", nonce)
			}
			if slot, ok := r.Context().Value(admittedKey{}).(*context.Context); ok {
				*slot = r.Context()
			}
		})}
		stream := &headerStream{}
		ctx := grpc.NewContextWithServerTransportStream(context.Background(), stream)
		if _, err := gh.admit(ctx, "/svc.Test/Call"); err != nil {
			t.Fatalf("admit: %v", err)
		}
		got := stream.header.Get("dpop-nonce")
		switch {
		case nonce != "" && (len(got) != 1 || got[0] != nonce):
			t.Errorf("an admitted call's dpop-nonce metadata = %q, want [%q]", got, nonce)
		case nonce == "" && len(got) != 0:
			t.Errorf("an admitted call without a new nonce sent dpop-nonce %q", got)
		}
	}
}
