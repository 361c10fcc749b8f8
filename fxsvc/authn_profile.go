package fxsvc

import (
	"fmt"
	"strings"

	"github.com/svckit/svc/modules/authn/bearer"
)

// profileWord starts the word of an SVC_AUTHN_ISSUERS entry that names
// its issuer's provider profile.
const profileWord = "profile="

// envProfile reads SVC_AUTHN_PROFILE: nil when unset.
func envProfile(e authnEnv) (*bearer.ProviderProfile, error) {
	if e.Profile == "" {
		return nil, nil
	}
	p, err := bearer.ParseProfile(e.Profile)
	if err != nil {
		return nil, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_PROFILE=%q: %w", e.Profile, err)
	}
	return p, nil
}

// entryProfile takes the profile= word out of the words of
// SVC_AUTHN_ISSUERS entry n (1-based): the other words, and the entry's
// profile (def, SVC_AUTHN_PROFILE's, when the entry names none).
func entryProfile(n int, fields []string, def *bearer.ProviderProfile) ([]string, *bearer.ProviderProfile, error) {
	var rest []string
	p, named := def, false
	for _, f := range fields {
		value, ok := strings.CutPrefix(f, profileWord)
		if !ok {
			rest = append(rest, f)
			continue
		}
		if named {
			return nil, nil, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_ISSUERS entry %d names profile= twice: give each issuer one profile", n)
		}
		named = true
		var err error
		if p, err = bearer.ParseProfile(value); err != nil {
			return nil, nil, fmt.Errorf("fxsvc.Authn: SVC_AUTHN_ISSUERS entry %d: %s%s: %w", n, profileWord, value, err)
		}
	}
	return rest, p, nil
}

// withProfile returns opts with p first, so that a Profile among the
// app's own options (AuthnVerifierOptions) wins; opts when p is nil.
func withProfile(p *bearer.ProviderProfile, opts []bearer.VerifierOption) []bearer.VerifierOption {
	if p == nil {
		return opts
	}
	return append([]bearer.VerifierOption{bearer.Profile(p)}, opts...)
}
