package oauthclient

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"
)

// permanent reports an error of a request that no repeat can mend: the
// host's name does not exist (a DNS "no such host"), its certificate
// does not verify (unknown authority, expired or otherwise invalid, not
// for this host name), the URL's scheme is not one the transport speaks,
// or a header cannot be sent. The same request
// sent again meets the same answer, so it is neither retried nor counted
// toward the host's breaker: none of them says the host is overloaded,
// and most never reached it. It classifies as hashicorp/go-retryablehttp
// does; the errors net/http returns without a type are read from their
// text, as there.
func permanent(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.IsNotFound
	}
	var (
		verify    *tls.CertificateVerificationError
		authority x509.UnknownAuthorityError
		invalid   x509.CertificateInvalidError
		hostname  x509.HostnameError
	)
	if errors.As(err, &verify) || errors.As(err, &authority) || errors.As(err, &invalid) || errors.As(err, &hostname) {
		return true
	}
	msg := err.Error()
	for _, s := range permanentTexts {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// permanentTexts are the untyped errors of [permanent]: what
// http.Transport says of a scheme it does not speak and of a header it
// cannot send. ("Stopped after 10 redirects", which go-retryablehttp
// also reads, is http.Client's, above the transport: a transport's
// attempt never ends with it.)
var permanentTexts = []string{
	"unsupported protocol scheme",
	"invalid header field",
	"certificate is not trusted", // macOS's verifier, untyped
}
