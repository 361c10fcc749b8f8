package oauthclient_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/svckit/svc/modules/authn/dpop"
	"github.com/svckit/svc/modules/oauthclient"
)

// dpopAS is an authorization server on 127.0.0.1 that binds its tokens to
// the proof key (token_type DPoP) after verifying the proof with the
// inbound verifier, and a resource server beside it that verifies each
// request's proof and binding. nonce, when set, makes either side ask for
// its server nonce first.
type dpopAS struct {
	t       testing.TB
	token   *httptest.Server
	api     *httptest.Server
	tokenV  *dpop.Verifier
	apiV    *dpop.Verifier
	tokenTT string // token_type answered; "DPoP" unless set

	mu          sync.Mutex
	bound       map[string]string // token → jkt
	bodies      []string          // API request bodies
	refusal     []string          // API refusals by reason
	alwaysNonce atomic.Bool       // the API answers use_dpop_nonce to every request

	tokenCalls atomic.Int64
	apiCalls   atomic.Int64
	seq        atomic.Int64
}

func nonceSource(t testing.TB) *dpop.NonceSource {
	secret := make([]byte, 32)
	rand.Read(secret)
	n, err := dpop.NewNonceSource(secret, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func verifier(t testing.TB, nonce bool) *dpop.Verifier {
	opts := []dpop.Option{dpop.Algorithms("ES256", "RS256", "EdDSA")}
	if nonce {
		opts = append(opts, dpop.RequireNonce(nonceSource(t)))
	}
	v, err := dpop.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func newDPoPAS(t testing.TB, tokenNonce, apiNonce bool) *dpopAS {
	a := &dpopAS{t: t, tokenV: verifier(t, tokenNonce), apiV: verifier(t, apiNonce), bound: map[string]string{}, tokenTT: "DPoP"}
	a.token = httptest.NewServer(http.HandlerFunc(a.serveToken))
	t.Cleanup(a.token.Close)
	a.api = httptest.NewServer(http.HandlerFunc(a.serveAPI))
	t.Cleanup(a.api.Close)
	return a
}

func (a *dpopAS) serveToken(w http.ResponseWriter, r *http.Request) {
	a.tokenCalls.Add(1)
	w.Header().Set("Content-Type", "application/json")
	p, err := a.tokenV.Verify(r, "")
	var e *dpop.Error
	switch {
	case errors.As(err, &e) && e.Reason == dpop.ReasonNonce:
		w.Header().Set("DPoP-Nonce", e.Nonce)
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"use_dpop_nonce"}`)
		return
	case err != nil:
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":"invalid_dpop_proof","error_description":%q}`, err.Error())
		return
	}
	tok := fmt.Sprintf("dpop-tok-%d", a.seq.Add(1))
	a.mu.Lock()
	a.bound[tok] = p.Thumbprint
	a.mu.Unlock()
	fmt.Fprintf(w, `{"access_token":%q,"token_type":%q,"expires_in":3600}`, tok, a.tokenTT)
}

func (a *dpopAS) serveAPI(w http.ResponseWriter, r *http.Request) {
	a.apiCalls.Add(1)
	body, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	a.bodies = append(a.bodies, string(body))
	a.mu.Unlock()
	refuse := func(reason, code, nonce string) {
		a.mu.Lock()
		a.refusal = append(a.refusal, reason)
		a.mu.Unlock()
		if nonce != "" {
			w.Header().Set("DPoP-Nonce", nonce)
		}
		w.Header().Set("WWW-Authenticate", `DPoP algs="ES256", error="`+code+`"`)
		w.WriteHeader(http.StatusUnauthorized)
	}
	if a.alwaysNonce.Load() {
		refuse("nonce", "use_dpop_nonce", rand.Text())
		return
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "DPoP ")
	if !ok {
		refuse("scheme", "invalid_token", "")
		return
	}
	p, err := a.apiV.Verify(r, tok)
	var e *dpop.Error
	switch {
	case errors.As(err, &e) && e.Reason == dpop.ReasonNonce:
		refuse(e.Reason, "use_dpop_nonce", e.Nonce)
		return
	case err != nil:
		refuse(err.Error(), "invalid_dpop_proof", "")
		return
	}
	a.mu.Lock()
	jkt := a.bound[tok]
	a.mu.Unlock()
	if err := p.Bind(jkt); err != nil {
		refuse("binding", "invalid_token", "")
		return
	}
	io.WriteString(w, "ok "+p.Thumbprint)
}

func (a *dpopAS) refusals() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.refusal...)
}

func (a *dpopAS) pattern(t testing.TB, signer crypto.Signer) *oauthclient.Pattern {
	t.Helper()
	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(a.token.URL+"/token"),
		oauthclient.ClientID("svc-client"), oauthclient.ClientSecret("s3cret-value"), oauthclient.DPoP(signer))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := c.Open(context.Background()); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return newCC(t, c, "api")
}

// countingSigner stands for a KMS key: it signs through crypto.Signer only
// and counts what it signs.
type countingSigner struct {
	key   crypto.Signer
	signs atomic.Int64
	fail  atomic.Bool
}

func (s *countingSigner) Public() crypto.PublicKey { return s.key.Public() }

func (s *countingSigner) Sign(r io.Reader, digest []byte, o crypto.SignerOpts) ([]byte, error) {
	s.signs.Add(1)
	if s.fail.Load() {
		return nil, errors.New("kms: key projects/p/keys/k unavailable")
	}
	return s.key.Sign(r, digest, o)
}

func newCountingSigner(t testing.TB) *countingSigner {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &countingSigner{key: k}
}

func TestDPoPTokensAndRequestsCarryProofs(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		tokenNonce, apiNonce bool
		method, body         string
		wantTokenCalls       int64
		wantAPICalls         int64
	}{
		{name: "no nonces", method: http.MethodGet, wantTokenCalls: 1, wantAPICalls: 1},
		{name: "token endpoint asks for its nonce", tokenNonce: true, method: http.MethodGet, wantTokenCalls: 2, wantAPICalls: 1},
		{name: "API asks for its nonce, POST body sent again", apiNonce: true, method: http.MethodPost, body: "payload", wantTokenCalls: 1, wantAPICalls: 2},
		{name: "both ask", tokenNonce: true, apiNonce: true, method: http.MethodPut, body: "payload", wantTokenCalls: 2, wantAPICalls: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newDPoPAS(t, tc.tokenNonce, tc.apiNonce)
			p := as.pattern(t, nil)
			resp := do(t, p.Client(), tc.method, as.api.URL+"/orders/7?page=2#top", strings.NewReader(tc.body))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, API refusals %v", resp.StatusCode, as.refusals())
			}
			if got := as.tokenCalls.Load(); got != tc.wantTokenCalls {
				t.Errorf("token requests %d, want %d", got, tc.wantTokenCalls)
			}
			if got := as.apiCalls.Load(); got != tc.wantAPICalls {
				t.Errorf("API requests %d, want %d", got, tc.wantAPICalls)
			}
			for _, b := range as.bodies {
				if b != tc.body {
					t.Errorf("API got body %q, want %q", b, tc.body)
				}
			}
			// A second request reuses the token and the API's nonce: one
			// request, a fresh proof (the verifier refuses a replayed jti).
			before := as.apiCalls.Load()
			if resp := do(t, p.Client(), http.MethodGet, as.api.URL+"/orders", nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("second request: status %d, refusals %v", resp.StatusCode, as.refusals())
			}
			if got := as.apiCalls.Load() - before; got != 1 {
				t.Errorf("second request took %d API requests, want 1", got)
			}
			if got := as.tokenCalls.Load(); got != tc.wantTokenCalls {
				t.Errorf("token requests %d after the second request, want %d", got, tc.wantTokenCalls)
			}
		})
	}
}

func TestDPoPNonceRetriedOnceNeverTwice(t *testing.T) {
	t.Run("API", func(t *testing.T) {
		as := newDPoPAS(t, false, false)
		as.alwaysNonce.Store(true)
		p := as.pattern(t, nil)
		req, _ := http.NewRequest(http.MethodPost, as.api.URL, strings.NewReader("x"))
		resp, err := p.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("DPoP-Nonce") == "" {
			t.Fatalf("status %d, nonce %q: the last refusal must reach the caller", resp.StatusCode, resp.Header.Get("DPoP-Nonce"))
		}
		if got := as.apiCalls.Load(); got != 2 {
			t.Fatalf("API requests %d, want 2 (one retry with the nonce)", got)
		}
	})
	t.Run("API, body not replayable", func(t *testing.T) {
		as := newDPoPAS(t, false, true)
		p := as.pattern(t, nil)
		req, _ := http.NewRequest(http.MethodPost, as.api.URL, io.NopCloser(strings.NewReader("x")))
		resp, err := p.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "use_dpop_nonce") {
			t.Fatalf("status %d, challenge %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		if got := as.apiCalls.Load(); got != 1 {
			t.Fatalf("API requests %d, want 1", got)
		}
		// The nonce is remembered: the next request passes at once.
		if resp := do(t, p.Client(), http.MethodGet, as.api.URL, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("next request: status %d", resp.StatusCode)
		}
		if got := as.apiCalls.Load(); got != 2 {
			t.Fatalf("API requests %d, want 2", got)
		}
	})
	t.Run("token endpoint", func(t *testing.T) {
		var calls atomic.Int64
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.Header().Set("DPoP-Nonce", rand.Text())
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"use_dpop_nonce"}`)
		}))
		defer ts.Close()
		as := &dpopAS{token: ts}
		_, err := as.pattern(t, nil).Token(context.Background())
		var re *oauthclient.TokenRefusedError
		if !errors.As(err, &re) || re.Code != "use_dpop_nonce" || re.Status != http.StatusBadRequest {
			t.Fatalf("err %v, want a TokenRefusedError use_dpop_nonce", err)
		}
		if got := calls.Load(); got != 2 {
			t.Fatalf("token requests %d, want 2", got)
		}
	})
}

func TestDPoPProofFields(t *testing.T) {
	as := newDPoPAS(t, false, false)
	p := as.pattern(t, nil)
	var (
		mu            sync.Mutex
		proofs, auths []string
	)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		proofs = append(proofs, r.Header.Get("DPoP"))
		auths = append(auths, r.Header.Get("Authorization"))
	}))
	defer api.Close()
	do(t, p.Client(), http.MethodDelete, api.URL+"/a/b?q=1", nil)
	do(t, p.Client(), http.MethodDelete, api.URL+"/a/b?q=1", nil)
	mu.Lock()
	defer mu.Unlock()
	tok := mustToken(t, p)
	sum := sha256.Sum256([]byte(tok))
	ath := base64.RawURLEncoding.EncodeToString(sum[:])
	var jtis []string
	for i, raw := range proofs {
		if auths[i] != "DPoP "+tok {
			t.Fatalf("Authorization %q, want DPoP and the token", auths[i])
		}
		jws, err := jose.ParseSignedCompact(raw, []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			t.Fatalf("proof does not parse as ES256: %v", err)
		}
		h := jws.Signatures[0].Protected
		if h.ExtraHeaders["typ"] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() || h.KeyID != "" {
			t.Fatalf("header typ %v, jwk %v", h.ExtraHeaders["typ"], h.JSONWebKey)
		}
		payload, err := jws.Verify(h.JSONWebKey)
		if err != nil {
			t.Fatalf("signature: %v", err)
		}
		var c map[string]any
		json.Unmarshal(payload, &c)
		if c["htm"] != "DELETE" || c["htu"] != api.URL+"/a/b" || c["ath"] != ath || c["nonce"] != nil {
			t.Fatalf("claims %v", c)
		}
		if iat, _ := c["iat"].(float64); time.Since(time.Unix(int64(iat), 0)).Abs() > time.Hour {
			t.Fatalf("iat %v", c["iat"])
		}
		jtis = append(jtis, c["jti"].(string))
	}
	if len(jtis) != 2 || jtis[0] == jtis[1] || len(jtis[0]) < 16 {
		t.Fatalf("jti %v: each proof needs its own random jti", jtis)
	}
}

func TestDPoPSignerIsACryptoSigner(t *testing.T) {
	as := newDPoPAS(t, false, false)
	s := newCountingSigner(t)
	p := as.pattern(t, s)
	for range 3 {
		if resp := do(t, p.Client(), http.MethodGet, as.api.URL, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, refusals %v", resp.StatusCode, as.refusals())
		}
	}
	if got := s.signs.Load(); got != 4 {
		t.Fatalf("signer called %d times, want 4 (one token request, three API requests)", got)
	}
	want, _ := (&jose.JSONWebKey{Key: s.Public()}).Thumbprint(crypto.SHA256)
	as.mu.Lock()
	jkt := as.bound["dpop-tok-1"]
	as.mu.Unlock()
	if jkt != base64.RawURLEncoding.EncodeToString(want) {
		t.Fatalf("token bound to %q, not the signer's key", jkt)
	}
}

func TestDPoPSignerFailure(t *testing.T) {
	as := newDPoPAS(t, false, false)
	s := newCountingSigner(t)
	s.fail.Store(true)
	_, err := as.pattern(t, s).Token(context.Background())
	var ce *oauthclient.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "oauthclient.DPoP" {
		t.Fatalf("err %v, want a ConfigError naming oauthclient.DPoP", err)
	}
	mustNotLeak(t, err, "projects/p/keys/k", "s3cret-value")
	if got := as.tokenCalls.Load(); got != 0 {
		t.Fatalf("token requests %d, want none without a proof", got)
	}
}

func TestDPoPRefusesWeakKeys(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p224, _ := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	for name, key := range map[string]crypto.Signer{"RSA 1024": small, "P-224": p224} {
		_, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint("https://as.example/token"),
			oauthclient.ClientID("c"), oauthclient.ClientSecret("s"), oauthclient.DPoP(key))
		var ce *oauthclient.ConfigError
		if !errors.As(err, &ce) || ce.Setting != "oauthclient.DPoP" {
			t.Errorf("%s: err %v, want a ConfigError naming oauthclient.DPoP", name, err)
		}
	}
}

func TestDPoPTokenTypes(t *testing.T) {
	t.Run("Bearer answered to a DPoP client is sent as bearer", func(t *testing.T) {
		as := newDPoPAS(t, false, false)
		as.tokenTT = "Bearer"
		p := as.pattern(t, nil)
		var mu sync.Mutex
		var auth, proof string
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			auth, proof = r.Header.Get("Authorization"), r.Header.Get("DPoP")
		}))
		defer api.Close()
		do(t, p.Client(), http.MethodGet, api.URL, nil)
		mu.Lock()
		defer mu.Unlock()
		if !strings.HasPrefix(auth, "Bearer dpop-tok-") || proof != "" {
			t.Fatalf("Authorization %q, DPoP %q", auth, proof)
		}
	})
	t.Run("DPoP answered to a client without a key is refused", func(t *testing.T) {
		s := newTokenServer(t)
		s.then(answer{status: 200, body: `{"access_token":"x","token_type":"DPoP","expires_in":60}`})
		_, err := newCC(t, newClient(t, s, newClock()), "api").Token(context.Background())
		var ue *oauthclient.UnavailableError
		if !errors.As(err, &ue) || ue.Reason != oauthclient.ReasonBadResponse || !strings.Contains(err.Error(), "oauthclient.DPoP") {
			t.Fatalf("err %v", err)
		}
	})
}

func TestTokenSourceRefusesDPoPBoundTokens(t *testing.T) {
	as := newDPoPAS(t, false, false)
	_, err := as.pattern(t, nil).TokenSource(context.Background()).Token()
	if !errors.Is(err, oauthclient.ErrDPoPTokenSource) || !strings.Contains(err.Error(), "Pattern.Transport") {
		t.Fatalf("err %v, want the error naming Pattern.Transport", err)
	}
}

func TestDPoPInvalidTokenDropsTheToken(t *testing.T) {
	as := newDPoPAS(t, false, false)
	p := as.pattern(t, nil)
	var n atomic.Int64
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("WWW-Authenticate", `DPoP algs="ES256", error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		io.WriteString(w, r.Header.Get("Authorization"))
	}))
	defer api.Close()
	if resp := do(t, p.Client(), http.MethodGet, api.URL, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := as.tokenCalls.Load(); got != 2 {
		t.Fatalf("token requests %d, want 2 (the refused token dropped)", got)
	}
}

func TestDPoPConcurrentRequestsEachGetAProof(t *testing.T) {
	as := newDPoPAS(t, true, true)
	p := as.pattern(t, nil)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range 8 {
		wg.Go(func() {
			for range 5 {
				req, _ := http.NewRequest(http.MethodPost, as.api.URL, strings.NewReader("b"))
				resp, err := p.Client().Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	// Every refusal is a nonce refusal answered by its one retry: a
	// replayed jti or a bad proof would leave a request refused.
	if failed.Load() != 0 {
		t.Fatalf("%d requests failed, refusals %v", failed.Load(), as.refusals())
	}
	for _, r := range as.refusals() {
		if r != dpop.ReasonNonce {
			t.Fatalf("refusal %q, want only nonce refusals", r)
		}
	}
}

// A DPoP key in a slow KMS delays the request whose proof it is signing
// and no other: proofs are signed outside every lock.
func TestSlowDPoPSignerDelaysOnlyItsOwnRequest(t *testing.T) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	kms := &remoteKey{key: k, gate: make(chan struct{})}
	var once sync.Once
	release := func() { once.Do(func() { close(kms.gate) }) }
	t.Cleanup(release)
	a := newDPoPAS(t, false, false)
	p := a.pattern(t, kms)
	mustToken(t, p) // the token request's proof is the first call
	kms.slow.Store(2)
	hc := p.Client()
	slowDone := make(chan error, 1)
	go func() {
		resp, err := hc.Get(a.api.URL + "/slow")
		if err == nil {
			resp.Body.Close()
		}
		slowDone <- err
	}()
	eventually(t, "the slow request's proof to reach the signer", func() bool { return kms.calls.Load() == 2 })
	resp, err := hc.Get(a.api.URL + "/quick")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the other request: status %d, refusals %v", resp.StatusCode, a.refusals())
	}
	select {
	case err := <-slowDone:
		t.Fatalf("the slow request ended before its proof was signed: %v", err)
	default:
	}
	release()
	if err := <-slowDone; err != nil {
		t.Fatal(err)
	}
	if n := kms.calls.Load(); n != 3 {
		t.Fatalf("signer called %d times, want 3: one token request, two API requests", n)
	}
}
