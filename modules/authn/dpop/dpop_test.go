package dpop_test

import (
	"context"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/internal/reqfacts"
	"github.com/svckit/svc/modules/authn/dpop"
)

var now = time.Unix(1_800_000_000, 0)

const token = "access-token-1"

func newVerifier(t *testing.T, opts ...dpop.Option) *dpop.Verifier {
	t.Helper()
	v, err := dpop.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	dpop.SetClock(v, func() time.Time { return now })
	return v
}

// request is a request for url carrying proofs, from peer.
func request(method, url string, proofs ...string) *http.Request {
	r := httptest.NewRequest(method, url, nil)
	r.RemoteAddr = "192.0.2.10:5000"
	for _, p := range proofs {
		r.Header.Add("DPoP", p)
	}
	return r
}

// behind puts r behind the trusted proxy network 10.0.0.0/8, as the
// telemetry wrapper does for an app with SVC_HTTP_TRUSTED_PROXIES.
func behind(r *http.Request, peer string) *http.Request {
	p, _ := reqfacts.ParseProxies([]string{"10.0.0.0/8"})
	s := &reqfacts.State{}
	s.SetProxies(&p)
	r = r.WithContext(reqfacts.With(r.Context(), s))
	r.RemoteAddr = peer
	return r
}

func TestVerify(t *testing.T) {
	es, rs, ed, other := newES256(t), newRS256(t, 2048), newEdDSA(t), newES256(t)
	weak := newRS256(t, 1024)
	iat := now.Unix()
	const url = "https://api.example/orders/1"
	all := dpop.Algorithms("ES256", "RS256", "EdDSA")
	for _, tc := range []struct {
		name   string
		opts   []dpop.Option
		req    func() *http.Request
		token  string
		reason string // "" accepted
	}{
		{name: "ES256", req: func() *http.Request { return request("GET", url, es.proof("GET", url, iat).with(ath(token))) }, token: token},
		{name: "RS256 allowed", opts: []dpop.Option{all}, req: func() *http.Request { return request("GET", url, rs.proof("GET", url, iat).with(ath(token))) }, token: token},
		{name: "EdDSA allowed", opts: []dpop.Option{all}, req: func() *http.Request { return request("GET", url, ed.proof("GET", url, iat).with(ath(token))) }, token: token},
		{name: "no access token, no ath", req: func() *http.Request { return request("POST", url, es.proof("POST", url, iat).String()) }},
		{name: "RS256 not allowed", req: func() *http.Request { return request("GET", url, rs.proof("GET", url, iat).with(ath(token))) }, token: token, reason: dpop.ReasonAlgorithm},
		{name: "alg none", opts: []dpop.Option{all}, req: func() *http.Request {
			p := es.proof("GET", url, iat)
			p.header["alg"], p.sign = "none", nil
			return request("GET", url, p.String())
		}, reason: dpop.ReasonAlgorithm},
		{name: "HS256 with the public key as secret", opts: []dpop.Option{all}, req: func() *http.Request {
			p := es.proof("GET", url, iat)
			p.header["alg"], p.sign = "HS256", hs256([]byte(es.jwk["x"].(string)))
			return request("GET", url, p.String())
		}, reason: dpop.ReasonAlgorithm},
		{name: "alg of the wrong family for the key", opts: []dpop.Option{all}, req: func() *http.Request {
			p := es.proof("GET", url, iat)
			p.header["alg"] = "RS256"
			return request("GET", url, p.String())
		}, reason: dpop.ReasonKey},
		{name: "P-384 key under ES256", opts: []dpop.Option{dpop.Algorithms("ES256", "ES384")}, req: func() *http.Request {
			k := newEC(t, elliptic.P384(), "ES384")
			p := k.proof("GET", url, iat)
			p.header["alg"] = "ES256"
			return request("GET", url, p.String())
		}, reason: dpop.ReasonKey},
		{name: "ES384", opts: []dpop.Option{dpop.Algorithms("ES384")}, req: func() *http.Request {
			return request("GET", url, newEC(t, elliptic.P384(), "ES384").proof("GET", url, iat).String())
		}},
		{name: "PS256", opts: []dpop.Option{dpop.Algorithms("PS256")}, req: func() *http.Request {
			p := rs.proof("GET", url, iat)
			p.header["alg"], p.sign = "PS256", pss(rs, rsa.PSSSaltLengthEqualsHash)
			return request("GET", url, p.String())
		}},
		{name: "PS256 with a salt longer than the hash (RFC 7518 §3.5)", opts: []dpop.Option{dpop.Algorithms("PS256")}, req: func() *http.Request {
			p := rs.proof("GET", url, iat)
			p.header["alg"], p.sign = "PS256", pss(rs, 64)
			return request("GET", url, p.String())
		}, reason: dpop.ReasonSignature},
		{name: "duplicate alg member", opts: []dpop.Option{all}, req: func() *http.Request {
			s := es.proof("GET", url, iat).String()
			head := b64.EncodeToString([]byte(`{"typ":"dpop+jwt","alg":"none","alg":"ES256","jwk":` + mustJSON(es.jwk) + `}`))
			input := head + s[strings.IndexByte(s, '.'):strings.LastIndexByte(s, '.')]
			return request("GET", url, input+"."+b64.EncodeToString(es.signer()([]byte(input))))
		}, reason: dpop.ReasonMalformed},
		{name: "crit", req: func() *http.Request {
			p := es.proof("GET", url, iat)
			p.header["crit"] = []string{"exp"}
			p.header["exp"] = 1
			return request("GET", url, p.String())
		}, reason: dpop.ReasonMalformed},
		{name: "typ missing", req: func() *http.Request {
			p := es.proof("GET", url, iat)
			delete(p.header, "typ")
			return request("GET", url, p.String())
		}, reason: dpop.ReasonType},
		{name: "typ JWT", req: func() *http.Request {
			p := es.proof("GET", url, iat)
			p.header["typ"] = "JWT"
			return request("GET", url, p.String())
		}, reason: dpop.ReasonType},
		{name: "jwk missing", req: func() *http.Request {
			p := es.proof("GET", url, iat)
			delete(p.header, "jwk")
			return request("GET", url, p.String())
		}, reason: dpop.ReasonKey},
		{name: "private key in jwk", req: func() *http.Request {
			p := es.proof("GET", url, iat)
			p.header["jwk"] = withMember(es.jwk, "d", b64.EncodeToString(make([]byte, 32)))
			return request("GET", url, p.String())
		}, reason: dpop.ReasonKey},
		{name: "RSA private member p in jwk", opts: []dpop.Option{all}, req: func() *http.Request {
			p := rs.proof("GET", url, iat)
			p.header["jwk"] = withMember(rs.jwk, "p", "AQAB")
			return request("GET", url, p.String())
		}, reason: dpop.ReasonKey},
		{name: "symmetric jwk", opts: []dpop.Option{all}, req: func() *http.Request {
			p := es.proof("GET", url, iat)
			p.header["jwk"] = map[string]any{"kty": "oct", "k": "c2VjcmV0"}
			return request("GET", url, p.String())
		}, reason: dpop.ReasonKey},
		{name: "RSA key under 2048 bits", opts: []dpop.Option{all}, req: func() *http.Request { return request("GET", url, weak.proof("GET", url, iat).String()) }, reason: dpop.ReasonKey},
		{name: "signed by another key", req: func() *http.Request {
			p := es.proof("GET", url, iat)
			p.sign = other.signer()
			return request("GET", url, p.String())
		}, reason: dpop.ReasonSignature},
		{name: "htm wrong", req: func() *http.Request { return request("POST", url, es.proof("GET", url, iat).String()) }, reason: dpop.ReasonMethod},
		{name: "htm lowercase", req: func() *http.Request { return request("GET", url, es.proof("get", url, iat).String()) }, reason: dpop.ReasonMethod},
		{name: "htu other host", req: func() *http.Request {
			return request("GET", url, es.proof("GET", "https://evil.example/orders/1", iat).String())
		}, reason: dpop.ReasonURL},
		{name: "htu other scheme", req: func() *http.Request {
			return request("GET", url, es.proof("GET", "http://api.example/orders/1", iat).String())
		}, reason: dpop.ReasonURL},
		{name: "htu other path", req: func() *http.Request {
			return request("GET", url, es.proof("GET", "https://api.example/orders/2", iat).String())
		}, reason: dpop.ReasonURL},
		// A prefix of the request's URL is another URL (issue 37 item 16:
		// a prefix comparison passed every other case).
		{name: "htu a prefix of the path", req: func() *http.Request {
			return request("GET", url, es.proof("GET", "https://api.example/orders", iat).String())
		}, reason: dpop.ReasonURL},
		{name: "htu the bare origin", req: func() *http.Request {
			return request("GET", url, es.proof("GET", "https://api.example", iat).String())
		}, reason: dpop.ReasonURL},
		{name: "htu the path's start, no slash", req: func() *http.Request {
			return request("GET", url, es.proof("GET", "https://api.example/orders/", iat).String())
		}, reason: dpop.ReasonURL},
		{name: "htu relative", req: func() *http.Request { return request("GET", url, es.proof("GET", "/orders/1", iat).String()) }, reason: dpop.ReasonURL},
		{name: "htu with userinfo", req: func() *http.Request {
			return request("GET", url, es.proof("GET", "https://u@api.example/orders/1", iat).String())
		}, reason: dpop.ReasonURL},
		{name: "htu query and fragment ignored", req: func() *http.Request {
			return request("GET", url+"?page=2", es.proof("GET", url+"?page=3#top", iat).String())
		}},
		{name: "htu normalized (RFC 3986 §6)", req: func() *http.Request {
			return request("GET", "https://api.example/a/c~d", es.proof("GET", "HTTPS://API.Example:443/a/./b/../c%7Ed", iat).String())
		}},
		{name: "htu percent-encoding case", req: func() *http.Request {
			return request("GET", "https://api.example/a%2fb", es.proof("GET", "https://api.example/a%2Fb", iat).String())
		}},
		{name: "htu empty path is /", req: func() *http.Request {
			return request("GET", "https://api.example/", es.proof("GET", "https://api.example", iat).String())
		}},
		{name: "htu non-default port kept", req: func() *http.Request {
			return request("GET", "https://api.example/x", es.proof("GET", "https://api.example:8443/x", iat).String())
		}, reason: dpop.ReasonURL},
		{name: "behind a trusted proxy", req: func() *http.Request {
			r := behind(request("GET", "http://10.1.1.1:8080/orders/1", es.proof("GET", "https://public.example/orders/1", iat).String()), "10.2.2.2:4000")
			r.Header.Set("X-Forwarded-Proto", "https")
			r.Header.Set("X-Forwarded-Host", "public.example")
			return r
		}},
		{name: "behind a trusted proxy, Forwarded", req: func() *http.Request {
			r := behind(request("GET", "http://10.1.1.1:8080/orders/1", es.proof("GET", "https://public.example/orders/1", iat).String()), "10.2.2.2:4000")
			r.Header.Set("Forwarded", "for=192.0.2.1;proto=https;host=public.example")
			return r
		}},
		{name: "behind a trusted proxy, htu of the inner hop", req: func() *http.Request {
			r := behind(request("GET", "http://10.1.1.1:8080/orders/1", es.proof("GET", "http://10.1.1.1:8080/orders/1", iat).String()), "10.2.2.2:4000")
			r.Header.Set("X-Forwarded-Proto", "https")
			r.Header.Set("X-Forwarded-Host", "public.example")
			return r
		}, reason: dpop.ReasonURL},
		{name: "forged forwarding headers from an untrusted peer", req: func() *http.Request {
			r := behind(request("GET", "http://10.1.1.1:8080/orders/1", es.proof("GET", "https://public.example/orders/1", iat).String()), "192.0.2.99:4000")
			r.Header.Set("X-Forwarded-Proto", "https")
			r.Header.Set("X-Forwarded-Host", "public.example")
			return r
		}, reason: dpop.ReasonURL},
		{name: "iat at the edge of the window", req: func() *http.Request { return request("GET", url, es.proof("GET", url, iat-60).String()) }},
		{name: "iat stale", req: func() *http.Request { return request("GET", url, es.proof("GET", url, iat-61).String()) }, reason: dpop.ReasonIssuedAt},
		{name: "iat in the future", req: func() *http.Request { return request("GET", url, es.proof("GET", url, iat+6).String()) }, reason: dpop.ReasonIssuedAt},
		{name: "iat missing", req: func() *http.Request {
			p := es.proof("GET", url, iat)
			delete(p.claims, "iat")
			return request("GET", url, p.String())
		}, reason: dpop.ReasonIssuedAt},
		{name: "iat a string", req: func() *http.Request {
			p := es.proof("GET", url, iat)
			p.claims["iat"] = "1800000000"
			return request("GET", url, p.String())
		}, reason: dpop.ReasonMalformed},
		{name: "jti missing", req: func() *http.Request {
			p := es.proof("GET", url, iat)
			delete(p.claims, "jti")
			return request("GET", url, p.String())
		}, reason: dpop.ReasonID},
		{name: "ath wrong", req: func() *http.Request { return request("GET", url, es.proof("GET", url, iat).with(ath("another token"))) }, token: token, reason: dpop.ReasonTokenHash},
		{name: "ath missing with a token", req: func() *http.Request { return request("GET", url, es.proof("GET", url, iat).String()) }, token: token, reason: dpop.ReasonTokenHash},
		{name: "no DPoP header", req: func() *http.Request { return request("GET", url) }, reason: dpop.ReasonMissing},
		{name: "two DPoP headers", req: func() *http.Request {
			return request("GET", url, es.proof("GET", url, iat).String(), es.proof("GET", url, iat).String())
		}, reason: dpop.ReasonMultiple},
		{name: "extra segments", req: func() *http.Request { return request("GET", url, es.proof("GET", url, iat).String()+".e30") }, reason: dpop.ReasonMalformed},
		{name: "JSON serialization", req: func() *http.Request { return request("GET", url, `{"payload":"e30","signatures":[]}`) }, reason: dpop.ReasonMalformed},
		{name: "oversized", req: func() *http.Request {
			p := es.proof("GET", url, iat)
			p.claims["pad"] = strings.Repeat("a", 8<<10)
			return request("GET", url, p.String())
		}, reason: dpop.ReasonOversized},
		{name: "non-canonical base64 signature", req: func() *http.Request { return request("GET", url, nonCanonical(es.proof("GET", url, iat).String())) }, reason: dpop.ReasonMalformed},
		{name: "payload not an object", req: func() *http.Request {
			s := es.proof("GET", url, iat).String()
			head := s[:strings.IndexByte(s, '.')]
			input := head + "." + b64.EncodeToString([]byte("[1]"))
			return request("GET", url, input+"."+b64.EncodeToString(es.signer()([]byte(input))))
		}, reason: dpop.ReasonMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newVerifier(t, tc.opts...)
			r := tc.req()
			p, err := v.Verify(r, tc.token)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if p.Thumbprint == "" || p.IssuedAt.Before(now.Add(-time.Minute)) || p.IssuedAt.After(now) {
					t.Fatalf("proof: %+v", p)
				}
				return
			}
			if got := reasonOf(err); got != tc.reason {
				t.Fatalf("reason %q (%v), want %q", got, err, tc.reason)
			}
			checkRefusal(t, err)
		})
	}
}

// checkRefusal holds for every refusal: invalid_dpop_proof, and the
// message repeats nothing the client sent.
func checkRefusal(t *testing.T, err error) {
	t.Helper()
	var e *dpop.Error
	if !errors.As(err, &e) || e.Code() != "invalid_dpop_proof" {
		t.Fatalf("refusal %#v", err)
	}
	for _, leak := range []string{"jti-", "api.example", "orders", "eyJ"} {
		if strings.Contains(err.Error(), leak) {
			t.Fatalf("message %q repeats %q", err, leak)
		}
	}
}

func withMember(jwk map[string]any, k, v string) map[string]any {
	out := map[string]any{k: v}
	for kk, vv := range jwk {
		out[kk] = vv
	}
	return out
}

// with sets ath and returns the signed proof.
func (p *proof) with(athValue string) string {
	p.claims["ath"] = athValue
	return p.String()
}

// nonCanonical respells the signature's last character with non-zero
// padding bits: the same bytes to a lenient decoder.
func nonCanonical(s string) string {
	last := s[len(s)-1]
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.IndexByte(alphabet, last)
	return s[:len(s)-1] + string(alphabet[i|1])
}

func TestThumbprintAndBind(t *testing.T) {
	es, other := newES256(t), newES256(t)
	const url = "https://api.example/x"
	v := newVerifier(t)
	p, err := v.Verify(request("GET", url, es.proof("GET", url, now.Unix()).String()), "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Thumbprint != es.thumbprint(t) {
		t.Fatalf("thumbprint %q, want %q", p.Thumbprint, es.thumbprint(t))
	}
	if err := p.Bind(es.thumbprint(t)); err != nil {
		t.Fatal(err)
	}
	// The thumbprint's start is not the thumbprint (issue 37 item 16: a
	// comparison of the same-length start passed every other case).
	for _, jkt := range []string{other.thumbprint(t), "", es.thumbprint(t) + "A", es.thumbprint(t)[:10], es.thumbprint(t)[:42]} {
		err := p.Bind(jkt)
		var e *dpop.Error
		if !errors.As(err, &e) || e.Reason != dpop.ReasonBinding || e.Code() != "invalid_token" {
			t.Fatalf("Bind(%q) = %v", jkt, err)
		}
	}
}

// VerifyBound refuses a proof of another key than the token's before its
// jti is remembered: the same proof, presented with the right jkt, is
// still fresh.
func TestVerifyBoundSpendsNoJTIOnAnotherKey(t *testing.T) {
	es, other := newES256(t), newES256(t)
	const url = "https://api.example/x"
	v := newVerifier(t)
	proof := es.proof("GET", url, now.Unix()).String()
	for _, jkt := range []string{other.thumbprint(t), ""} {
		_, err := v.VerifyBound(request("GET", url, proof), "", jkt)
		if reasonOf(err) != dpop.ReasonBinding {
			t.Fatalf("jkt %q: %v, want %s", jkt, err, dpop.ReasonBinding)
		}
	}
	if _, err := v.VerifyBound(request("GET", url, proof), "", es.thumbprint(t)); err != nil {
		t.Fatalf("the proof after two refusals of its binding: %v", err)
	}
	if _, err := v.VerifyBound(request("GET", url, proof), "", es.thumbprint(t)); reasonOf(err) != dpop.ReasonReplayed {
		t.Fatalf("the same proof again: %v, want %s", err, dpop.ReasonReplayed)
	}
}

// The key cache holds what a header settles, never a verdict on a proof:
// a bad signature under a header seen before is refused.
func TestKeyCacheHoldsNoVerdict(t *testing.T) {
	es, other := newES256(t), newES256(t)
	const url = "https://api.example/x"
	v := newVerifier(t)
	if _, err := v.Verify(request("GET", url, es.proof("GET", url, now.Unix()).String()), ""); err != nil {
		t.Fatal(err)
	}
	p := es.proof("GET", url, now.Unix())
	p.sign = other.signer()
	if _, err := v.Verify(request("GET", url, p.String()), ""); reasonOf(err) != dpop.ReasonSignature {
		t.Fatalf("bad signature under a cached header: %v", err)
	}
}

func TestReplay(t *testing.T) {
	es := newES256(t)
	const url = "https://api.example/x"
	shared := dpop.NewMemoryReplay(10)
	dpop.SetReplayClock(shared, func() time.Time { return now })
	// Two users of one store: two verifiers (as two replicas would be).
	a, b := newVerifier(t, dpop.Store(shared)), newVerifier(t, dpop.Store(shared))
	proof := es.proof("GET", url, now.Unix()).String()
	if _, err := a.Verify(request("GET", url, proof), ""); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]*dpop.Verifier{"same": a, "other": b} {
		_, err := v.Verify(request("GET", url, proof), "")
		if reasonOf(err) != dpop.ReasonReplayed {
			t.Fatalf("%s verifier: %v", name, err)
		}
		checkRefusal(t, err)
	}
	// Another key's proof with the same jti is its own.
	other := newES256(t)
	p := other.proof("GET", url, now.Unix())
	p2 := es.proof("GET", url, now.Unix())
	p2.claims["jti"] = "shared-jti"
	p.claims["jti"] = "shared-jti"
	if _, err := a.Verify(request("GET", url, p2.String()), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Verify(request("GET", url, p.String()), ""); err != nil {
		t.Fatalf("another key's jti was spent: %v", err)
	}
	// A refused proof spends nothing.
	p3 := es.proof("GET", url, now.Unix())
	if _, err := a.Verify(request("POST", url, p3.String()), ""); reasonOf(err) != dpop.ReasonMethod {
		t.Fatal(err)
	}
	p3.claims["htm"] = "POST"
	if _, err := a.Verify(request("POST", url, p3.String()), ""); err != nil {
		t.Fatalf("a refused proof spent its jti: %v", err)
	}
}

// A proof's jti is remembered for as long as the proof itself is accepted
// (its whole age window and the allowance ahead), not for the allowance
// alone: the same proof sent again at any time it would still pass the iat
// check is a replay (issue 37 item 16).
func TestReplayHeldForTheWholeProofAge(t *testing.T) {
	es := newES256(t)
	const url = "https://api.example/x"
	for _, later := range []time.Duration{6 * time.Second, 30 * time.Second, 59 * time.Second} {
		t.Run(later.String(), func(t *testing.T) {
			clock := now
			store := dpop.NewMemoryReplay(10)
			dpop.SetReplayClock(store, func() time.Time { return clock })
			v, err := dpop.New(dpop.Store(store))
			if err != nil {
				t.Fatal(err)
			}
			dpop.SetClock(v, func() time.Time { return clock })
			proof := es.proof("GET", url, now.Unix()).String()
			if _, err := v.Verify(request("GET", url, proof), ""); err != nil {
				t.Fatal(err)
			}
			clock = now.Add(later)
			if _, err := v.Verify(request("GET", url, proof), ""); reasonOf(err) != dpop.ReasonReplayed {
				t.Fatalf("the same proof %s later: %v, want %s", later, err, dpop.ReasonReplayed)
			}
		})
	}
}

func TestMemoryReplayBoundsAndExpiry(t *testing.T) {
	clock := now
	s := dpop.NewMemoryReplay(2)
	dpop.SetReplayClock(s, func() time.Time { return clock })
	ctx := context.Background()
	remember := func(id string) (bool, error) { return s.Remember(ctx, id, time.Minute) }
	for _, id := range []string{"a", "b"} {
		if fresh, err := remember(id); !fresh || err != nil {
			t.Fatalf("%s: %v %v", id, fresh, err)
		}
	}
	if fresh, err := remember("a"); fresh || err != nil {
		t.Fatalf("replay of a: %v %v", fresh, err)
	}
	// Full of unexpired ids: a new one is refused, none forgotten.
	if _, err := remember("c"); err == nil || !strings.Contains(err.Error(), "full") {
		t.Fatalf("full: %v", err)
	}
	if fresh, _ := remember("b"); fresh {
		t.Fatal("b forgotten")
	}
	clock = clock.Add(time.Minute)
	for _, id := range []string{"a", "c"} {
		if fresh, err := remember(id); !fresh || err != nil {
			t.Fatalf("after expiry %s: %v %v", id, fresh, err)
		}
	}
}

type downStore struct{}

func (downStore) Remember(context.Context, string, time.Duration) (bool, error) {
	return false, errors.New("store down")
}

func TestReplayStoreDownFailsClosed(t *testing.T) {
	es := newES256(t)
	const url = "https://api.example/x"
	v := newVerifier(t, dpop.Store(downStore{}))
	_, err := v.Verify(request("GET", url, es.proof("GET", url, now.Unix()).String()), "")
	var e *dpop.Error
	if !errors.As(err, &e) || e.Reason != dpop.ReasonUnavailable || e.Code() != "invalid_dpop_proof" {
		t.Fatalf("err = %#v", err)
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  dpop.Option
		want string
	}{
		{"none", dpop.Algorithms("none"), `"none" is not an asymmetric`},
		{"HS256", dpop.Algorithms("ES256", "HS256"), `"HS256" is not an asymmetric`},
		{"empty", dpop.Algorithms(), "name at least one"},
		{"window", dpop.Window(0, time.Second), "maxAge must be positive"},
		{"negative ahead", dpop.Window(time.Minute, -time.Second), "ahead not negative"},
	} {
		if _, err := dpop.New(tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	v, err := dpop.New(dpop.Algorithms("PS256", "ES256"))
	if err != nil || strings.Join(v.AllowedAlgorithms(), " ") != "PS256 ES256" {
		t.Fatal(v.AllowedAlgorithms(), err)
	}
}
