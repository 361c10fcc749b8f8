package authn

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"

	"github.com/svckit/svc/internal/reqfacts"
	"github.com/svckit/svc/modules/authn/bearer"
)

// ReasonCertificateBinding: the token is bound to a client certificate
// (cnf.x5t#S256, RFC 8705 §3) and the request came with another one, or
// with none the gate believes; or the gate checks no certificates (no
// CertificateBound) and the token is bound to one.
const ReasonCertificateBinding bearer.Reason = "certificate-binding"

// The proxy headers [CertificateBound] reads the client certificate from.
const (
	clientCertHeader = "Client-Cert"             // RFC 9440
	xfccHeader       = "X-Forwarded-Client-Cert" // Envoy
)

// CertificateBound makes the gate admit an access token bound to a client
// certificate (its cnf.x5t#S256, RFC 8705 §3) only when the request comes
// with that certificate: the base64url SHA-256 of its DER must equal the
// token's. A token without cnf.x5t#S256 passes unchanged.
//
// The certificate is the TLS connection's (svc's own TLS, with client
// certificates requested: fxsvc.RequestClientCertificates). proxyHeader,
// when not empty, names the header a TLS-terminating proxy passes it in:
// "Client-Cert" (RFC 9440, the DER as a byte sequence) or
// "X-Forwarded-Client-Cert" (Envoy's, its Hash or Cert). That header is
// read only from the app's trusted proxies (SVC_HTTP_TRUSTED_PROXIES), and
// from them in place of the connection's certificate; from any other peer
// it is ignored, so a bound token is then refused. New refuses another
// header name. The binding is read from the token's cnf, a JWT's or an
// introspection answer's, as [DPoP]'s is.
//
// A gate without CertificateBound refuses a token with cnf.x5t#S256
// (ReasonCertificateBinding, its detail saying the resource checks no
// certificates) rather than take it as a bearer token.
func CertificateBound(proxyHeader string) Option {
	return func(c *gateConfig) {
		c.certBound = &certPolicy{header: http.CanonicalHeaderKey(proxyHeader)}
		switch c.certBound.header {
		case "", clientCertHeader, xfccHeader:
		default:
			c.certBound.err = fmt.Errorf("authn: CertificateBound(%q): the proxy header must be %q, %q or empty (the TLS connection's certificate)",
				proxyHeader, clientCertHeader, xfccHeader)
		}
	}
}

type certPolicy struct {
	header string // canonical; "" reads only the TLS connection
	err    error  // a header New refuses
}

// admit holds a verified token to its certificate binding b: nil to admit.
func (p *certPolicy) admit(r *http.Request, b bearer.Binding) *Refusal {
	if b.Certificate == "" {
		return nil
	}
	if b.Certificate == bearer.Unreadable || p.thumbprint(r) != b.Certificate {
		return &Refusal{Kind: KindTokenRejected, Reason: ReasonCertificateBinding}
	}
	return nil
}

// thumbprint is the x5t#S256 of the request's client certificate, "" when
// it has none the gate believes.
func (p *certPolicy) thumbprint(r *http.Request) string {
	if p.header != "" && reqfacts.FromProxy(r) {
		// The proxy's own certificate, if any, is not the client's.
		lines := r.Header.Values(p.header)
		if len(lines) != 1 {
			return ""
		}
		var sum []byte
		if p.header == clientCertHeader {
			sum = clientCertSum(lines[0])
		} else {
			sum = xfccSum(lines[0])
		}
		return base64.RawURLEncoding.EncodeToString(sum)
	}
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return ""
	}
	sum := sha256.Sum256(r.TLS.PeerCertificates[0].Raw)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
