package spiffe_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/spiffe/go-spiffe/v2/proto/spiffe/workload"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/modules/oauthclient/spiffe"
)

const spiffeID = "spiffe://example.org/billing"

// workloadAPI stands in for a SPIRE agent: it issues JWT-SVIDs signed by
// its own key, each living ttl, and can be told to fail.
type workloadAPI struct {
	workload.UnimplementedSpiffeWorkloadAPIServer
	key *ecdsa.PrivateKey
	ttl time.Duration

	mu     sync.Mutex
	issued int
	down   bool
}

func (w *workloadAPI) FetchJWTSVID(ctx context.Context, req *workload.JWTSVIDRequest) (*workload.JWTSVIDResponse, error) {
	if md, _ := metadata.FromIncomingContext(ctx); len(md.Get("workload.spiffe.io")) == 0 {
		return nil, status.Error(codes.InvalidArgument, "security header missing")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.down {
		return nil, status.Error(codes.Unavailable, "agent restarting")
	}
	w.issued++
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: w.key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return nil, err
	}
	claims, _ := json.Marshal(map[string]any{
		"sub": spiffeID, "aud": req.Audience, "exp": time.Now().Add(w.ttl).Unix(), "iat": time.Now().Unix(), "n": w.issued,
	})
	jws, err := signer.Sign(claims)
	if err != nil {
		return nil, err
	}
	token, _ := jws.CompactSerialize()
	return &workload.JWTSVIDResponse{Svids: []*workload.JWTSVID{{SpiffeId: spiffeID, Svid: token}}}, nil
}

func (w *workloadAPI) set(down bool) {
	w.mu.Lock()
	w.down = down
	w.mu.Unlock()
}

func (w *workloadAPI) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.issued
}

// startWorkloadAPI serves a workloadAPI on 127.0.0.1 and returns its
// go-spiffe address.
func startWorkloadAPI(t *testing.T, ttl time.Duration) (*workloadAPI, string) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	w := &workloadAPI{key: key, ttl: ttl}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	workload.RegisterSpiffeWorkloadAPIServer(srv, w)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return w, "tcp://" + lis.Addr().String()
}

func claimsOf(t *testing.T, token string) map[string]any {
	t.Helper()
	jws, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &c)
	return c
}

// Issue 22 item 3: the token request carries the Workload API's JWT-SVID
// as its client assertion, for the audience asked.
func TestJWTSVIDIsTheClientAssertion(t *testing.T) {
	w, addr := startWorkloadAPI(t, time.Hour)
	var form url.Values
	as := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		form = r.PostForm
		rw.Header().Set("Content-Type", "application/json")
		rw.Write([]byte(`{"access_token":"at-1","token_type":"Bearer","expires_in":3600}`))
	}))
	t.Cleanup(as.Close)

	src, err := spiffe.New(context.Background(), addr, as.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(as.URL+"/token"),
		oauthclient.ClientID("billing"), oauthclient.Assertion(src.Assertion))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	p, err := oauthclient.ClientCredentials("api", oauthclient.WithoutEnv(), oauthclient.WithClient(c))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Token(context.Background()); err != nil {
		t.Fatal(err)
	}
	claims := claimsOf(t, form.Get("client_assertion"))
	aud, _ := claims["aud"].([]any)
	if claims["sub"] != spiffeID || len(aud) != 1 || aud[0] != as.URL ||
		form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || form.Get("client_id") != "billing" {
		t.Fatalf("token request %v with assertion claims %v", form, claims)
	}
	if w.count() != 1 {
		t.Fatalf("%d SVIDs issued", w.count())
	}
}

// An SVID is used until half its lifetime has passed, then fetched again;
// while the Workload API is down, the held SVID serves while it has a
// margin left: 30 s, or the request's deadline when later.
func TestJWTSVIDIsFetchedAgainBeforeItExpires(t *testing.T) {
	// The SVIDs' exp is real time, whole seconds: a 100 s lifetime read
	// on a fake clock that starts now and only moves forward.
	w, addr := startWorkloadAPI(t, 100*time.Second)
	src, err := spiffe.New(context.Background(), addr, "https://as.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	start := time.Now()
	now := start
	spiffe.SetClock(src, func() time.Time { return now })
	ctx := context.Background()

	first, err := src.Assertion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now = start.Add(25 * time.Second) // a quarter of the lifetime
	if again, _ := src.Assertion(ctx); again != first || w.count() != 1 {
		t.Fatalf("fetched again after a quarter of its life (%d issued)", w.count())
	}
	now = start.Add(51 * time.Second) // past half
	second, err := src.Assertion(ctx)
	if err != nil || second == first || w.count() != 2 {
		t.Fatalf("not fetched again past half its life: err %v, %d issued", err, w.count())
	}
	if claimsOf(t, second)["n"] != float64(2) {
		t.Fatal("the new SVID is not the one just issued")
	}

	// The second SVID (fetched at 51 s, exp about 100 s) is past half its
	// life at 60 s, with about 40 s left: more than the 30 s margin.
	w.set(true)
	now = start.Add(60 * time.Second)
	if held, err := src.Assertion(ctx); err != nil || held != second {
		t.Fatalf("with the Workload API down, the held SVID was not served: %v", err)
	}
	// A token request that may last longer than the SVID has left (the
	// client's timeout, as ctx's deadline) does not get it.
	long, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if _, err := src.Assertion(long); err == nil {
		t.Fatal("an SVID expiring before the request's deadline was served")
	}
	for _, at := range []time.Duration{75 * time.Second, 101 * time.Second} { // 25 s left (under the margin), expired
		now = start.Add(at)
		if _, err := src.Assertion(ctx); err == nil || !strings.Contains(err.Error(), "https://as.example") {
			t.Fatalf("at %v an SVID with less than the margin left was served, or the error does not name the audience: %v", at, err)
		}
	}
}

func TestNewRefusesAnEmptyAudience(t *testing.T) {
	if _, err := spiffe.New(context.Background(), "tcp://127.0.0.1:1", ""); err == nil || !strings.Contains(err.Error(), "audience") {
		t.Fatalf("err = %v", err)
	}
	if _, err := spiffe.New(context.Background(), "ftp://nowhere", "aud"); err == nil {
		t.Fatal("an unusable address was accepted")
	}
}

// A caller whose context ends while another fetch holds the turn gets its
// context's error, not a wait.
func TestAssertionWaitEndsWithTheContext(t *testing.T) {
	_, addr := startWorkloadAPI(t, time.Hour)
	src, err := spiffe.New(context.Background(), addr, "https://as.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	release := spiffe.HoldTurn(src)
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Assertion(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
