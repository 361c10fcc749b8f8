package authn

// bindingMetadata puts into the protected-resource metadata document what
// the gate enforces of sender-constrained tokens (RFC 9728 §2), so that a
// client (an MCP client, an agent) learns before its first call which
// token to get and how to prove it: DPoP's proof algorithms whenever the
// gate takes DPoP, dpop_bound_access_tokens_required when it requires it
// on every route ([DPoP] with required), and
// tls_client_certificate_bound_access_tokens with [CertificateBound]. A
// gate that enforces none of them leaves the members out.
func (c gateConfig) bindingMetadata(doc *metadataDoc) {
	if p := c.dpop; p != nil {
		doc.DPoPSigningAlgs = p.v.AllowedAlgorithms()
		doc.DPoPBoundRequired = p.required
	}
	doc.TLSCertificateBound = c.certBound != nil
}
