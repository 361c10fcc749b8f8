package bearer

// Ready reports whether the verifier can verify tokens now: nil once keys
// are held, the construction error for a misconfigured verifier, and an
// error wrapping ErrKeysUnavailable (with the last load failure, when there
// was one) while keys have not arrived. Readiness probes and test kits poll
// it; Verify never needs it.
func (v *JWTVerifier) Ready() error {
	if v.err != nil {
		return v.err
	}
	if v.set.Load() == nil {
		return v.keys.unavailable()
	}
	return nil
}
