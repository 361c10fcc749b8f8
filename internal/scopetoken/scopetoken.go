// Package scopetoken holds RFC 6749 §3.3's scope-token rule, which the
// inbound verifier (a token's scope claim, the scopes a route requires)
// and the outbound client (the scopes a pattern asks for) both apply.
package scopetoken

// IsByte reports whether c may appear in a scope-token: RFC 6749's
// NQCHAR, %x21 / %x23-5B / %x5D-7E, printable ASCII but the space, '"'
// and '\'.
func IsByte(c byte) bool {
	return c == 0x21 || (c >= 0x23 && c <= 0x5B) || (c >= 0x5D && c <= 0x7E)
}

// Valid reports whether s is one scope-token: 1*NQCHAR.
func Valid(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsByte(s[i]) {
			return false
		}
	}
	return true
}
