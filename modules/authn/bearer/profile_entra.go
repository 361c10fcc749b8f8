package bearer

import (
	"fmt"
	"strings"
)

// Entra ID signs a tenant's v1 and v2 access tokens with the same keys;
// which one an API receives depends on its app registration
// (accessTokenAcceptedVersion), not on the client. Only the public cloud's
// forms are paired.
const (
	entraV1Prefix = "https://sts.windows.net/"
	entraV2Prefix = "https://login.microsoftonline.com/"
	entraV2Suffix = "/v2.0"
)

// entraPair returns the other form of an Entra tenant's issuer (v1 for a
// v2 issuer, v2 for a v1 one) and the tenant, or "" for an issuer of
// neither form.
func entraPair(issuer string) (other, tenant string) {
	switch {
	case strings.HasPrefix(issuer, entraV2Prefix) && strings.HasSuffix(issuer, entraV2Suffix):
		tenant = strings.TrimSuffix(strings.TrimPrefix(issuer, entraV2Prefix), entraV2Suffix)
		other = entraV1Prefix + tenant + "/"
	case strings.HasPrefix(issuer, entraV1Prefix) && strings.HasSuffix(issuer, "/"):
		tenant = strings.TrimSuffix(strings.TrimPrefix(issuer, entraV1Prefix), "/")
		other = entraV2Prefix + tenant + entraV2Suffix
	}
	if !validTenant(tenant) {
		return "", ""
	}
	return other, tenant
}

// issuerFor is the issuer a token whose iss is iss is held to: the
// paired Entra issuer when the profile pairs them and iss names it, else
// the verifier's own.
func (pr *ProviderProfile) issuerFor(iss, own string) string {
	if pr != nil && pr.altIssuer != "" && iss == pr.altIssuer {
		return pr.altIssuer
	}
	return own
}

// checkAltTenant refuses a token of the paired issuer whose tid does not
// name the issuer's tenant (every Entra tenant's tokens share the keys).
func (pr *ProviderProfile) checkAltTenant(iss string, tid []byte) error {
	if pr.altIssuer == "" || iss != pr.altIssuer || tenantMatches(tid, pr.altTenant) {
		return nil
	}
	return fmt.Errorf("%w: tid does not name the issuer's tenant %s", errIssuer, quoteSetting(pr.altTenant))
}

// altMember returns the member whose Entra profile pairs it with iss.
func (s *issuerSet) altMember(iss string) *JWTVerifier {
	for _, v := range s.members {
		if pr := v.cfg.profile; pr != nil && pr.altIssuer != "" && pr.altIssuer == iss {
			return v
		}
	}
	return nil
}
