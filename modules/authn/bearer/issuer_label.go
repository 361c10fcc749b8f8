package bearer

import (
	"net/url"
	"strings"
)

// labelOf is the label of a configured issuer: its host and path as
// configured ("login.example.com", "login.microsoftonline.com/{tenantid}/v2.0"
// for a template, so never a tenant id). Scheme, userinfo, query and
// fragment are dropped: a label is bounded by the configuration and
// carries no secret. An issuer that is not a URL with a host keeps what
// precedes any query or fragment, after any '@'.
func labelOf(issuer string) string {
	if u, err := url.Parse(issuer); err == nil && u.Host != "" {
		return u.Host + u.Path
	}
	if i := strings.IndexAny(issuer, "?#"); i >= 0 {
		issuer = issuer[:i]
	}
	if i := strings.LastIndexByte(issuer, '@'); i >= 0 {
		issuer = issuer[i+1:]
	}
	return issuer
}

// issuerLabel of one verifier: every principal it returns is its issuer's,
// a template's only when iss is one of its tenants.
func (v *JWTVerifier) issuerLabel(iss string) string {
	if v.tenants != nil && v.tenants.tenantOf(iss) == "" {
		return ""
	}
	return v.label
}

// issuerLabel of several issuers: the label of the member iss names.
func (s *issuerSet) issuerLabel(iss string) string {
	if v := s.member(iss); v != nil {
		return v.label
	}
	return ""
}
