package devissuer

import (
	"crypto"
	"crypto/subtle"
	"fmt"
	"net/http"
	"slices"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Client is a client registered with an issuer. Each credential set is a
// method it may authenticate with; a client with none is public (the
// authorization code with PKCE only).
type Client struct {
	ID string
	// Secret allows client_secret_basic and client_secret_post.
	Secret string
	// Key allows private_key_jwt (RFC 7523): the public key its
	// assertions verify with (*ecdsa.PublicKey, *rsa.PublicKey,
	// ed25519.PublicKey, or a jose.JSONWebKey holding one).
	Key crypto.PublicKey
	// Certificate allows tls_client_auth (RFC 8705 §2.1) on the mTLS
	// endpoints: a certificate of the issuer's development CA whose
	// subject CN is ID ([Issuer.ClientCertificate] makes one).
	Certificate bool
	// OpaqueTokens makes the client's access tokens opaque (as format=opaque
	// does), for a service that introspects them (bearer.Introspect).
	OpaqueTokens bool
}

// Register adds c to the clients of i, or replaces the one with its ID.
// It refuses an empty ID.
func (i *Issuer) Register(c Client) error {
	if c.ID == "" {
		return fmt.Errorf("devissuer: Register: the client has no ID")
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.clients[c.ID] = &c
	return nil
}

func (i *Issuer) client(id string) *Client {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.clients[id]
}

// oauthErr is a refusal as the token endpoint writes it (RFC 6749 §5.2).
type oauthErr struct {
	status     int
	code, desc string
	dpopNonce  string // a DPoP-Nonce header to send
	basicRealm bool   // a WWW-Authenticate: Basic challenge
}

func (e *oauthErr) write(w http.ResponseWriter) {
	if e.dpopNonce != "" {
		w.Header().Set("DPoP-Nonce", e.dpopNonce)
	}
	if e.basicRealm {
		w.Header().Set("WWW-Authenticate", `Basic realm="devissuer"`)
	}
	oauthError(w, e.status, e.code, e.desc)
}

func badRequest(code, desc string) *oauthErr {
	return &oauthErr{status: http.StatusBadRequest, code: code, desc: desc}
}

func badClient(desc string) *oauthErr {
	return &oauthErr{status: http.StatusUnauthorized, code: "invalid_client", desc: desc, basicRealm: true}
}

// jwtBearer is the client_assertion_type of RFC 7523.
const jwtBearer = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// authenticate finds the client of a request to endpoint by one method:
// HTTP Basic, client_secret in the form, a client assertion, or a
// certificate of the development CA on the mTLS listener. A client_id
// alone names a public client, which only the code grant accepts
// (public is then true).
func (i *Issuer) authenticate(r *http.Request, endpoint string) (c *Client, public bool, e *oauthErr) {
	form := r.PostForm
	_, _, basic := r.BasicAuth()
	if methods := btoi(basic) + btoi(form.Has("client_secret")) + btoi(form.Has("client_assertion")); methods > 1 {
		return nil, false, badRequest("invalid_request", "the client authenticates by one method only (RFC 6749 §2.3): HTTP Basic, client_secret in the body, or a client_assertion")
	}
	if id, secret, ok := r.BasicAuth(); ok {
		if form.Has("client_id") && form.Get("client_id") != id {
			return nil, false, badClient("the body's client_id is not the client of the Authorization header")
		}
		return i.bySecret(id, secret)
	}
	id := form.Get("client_id")
	switch {
	case form.Has("client_secret"):
		return i.bySecret(id, form.Get("client_secret"))
	case form.Has("client_assertion"):
		c, e := i.byAssertion(r, endpoint, form.Get("client_assertion_type"), form.Get("client_assertion"))
		return c, false, e
	case r.TLS != nil && len(r.TLS.VerifiedChains) > 0:
		c := i.client(id)
		if c == nil || !c.Certificate || r.TLS.VerifiedChains[0][0].Subject.CommonName != id {
			return nil, false, badClient("the client certificate is not one of client " + id + " registered with Certificate (its subject CN must be the client_id)")
		}
		return c, false, nil
	case id != "":
		if c := i.client(id); c != nil && c.Secret == "" && c.Key == nil && !c.Certificate {
			return c, true, nil
		}
		return nil, false, badClient("client " + id + " sent no credentials: use client_secret_basic, client_secret_post, private_key_jwt or tls_client_auth")
	}
	return nil, false, badClient("no client authentication: use client_secret_basic, client_secret_post, private_key_jwt or tls_client_auth")
}

func (i *Issuer) bySecret(id, secret string) (*Client, bool, *oauthErr) {
	c := i.client(id)
	if c == nil || c.Secret == "" || subtle.ConstantTimeCompare([]byte(c.Secret), []byte(secret)) != 1 {
		return nil, false, badClient("unknown client or wrong secret")
	}
	return c, false, nil
}

// assertionAlgorithms are the algorithms a client assertion may use.
var assertionAlgorithms = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512, jose.EdDSA}

// byAssertion checks a private_key_jwt assertion (RFC 7523 §3): iss and
// sub the client's ID, verified with its registered key, aud the issuer
// or the endpoint's URL, exp in the future, jti never seen before.
func (i *Issuer) byAssertion(r *http.Request, endpoint, typ, assertion string) (*Client, *oauthErr) {
	if typ != jwtBearer {
		return nil, badClient("client_assertion_type must be " + jwtBearer)
	}
	parsed, err := jwt.ParseSigned(assertion, assertionAlgorithms)
	if err != nil {
		return nil, badClient("the client assertion is not a signed JWT")
	}
	var unverified jwt.Claims
	if err := parsed.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return nil, badClient("the client assertion's claims do not parse")
	}
	c := i.client(unverified.Issuer)
	if c == nil || c.Key == nil {
		return nil, badClient("the client assertion's iss is no client registered with a Key")
	}
	var claims jwt.Claims
	if err := parsed.Claims(c.Key, &claims); err != nil {
		return nil, badClient("the client assertion does not verify with the key registered for " + c.ID)
	}
	if id := r.PostForm.Get("client_id"); (id != "" && id != c.ID) || claims.Subject != c.ID {
		return nil, badClient("the client assertion's iss, sub and client_id must all be the client's ID")
	}
	auds := []string{i.URL, i.endpointURL(r, endpoint), i.endpointURL(r, "token")}
	if !slices.ContainsFunc(auds, func(a string) bool { return claims.Audience.Contains(a) }) {
		return nil, badClient("the client assertion's aud must be the issuer " + i.URL + " or the endpoint " + i.endpointURL(r, endpoint))
	}
	now := time.Now()
	if claims.Expiry == nil || !now.Before(claims.Expiry.Time()) || claims.Expiry.Time().After(now.Add(time.Hour)) {
		return nil, badClient("the client assertion's exp must be in the next hour")
	}
	if claims.ID == "" || !i.srv.replay.first("assertion "+i.URL+" "+c.ID+" "+claims.ID, claims.Expiry.Time()) {
		return nil, badClient("the client assertion has no jti, or one already used (assertions are single-use)")
	}
	return c, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
