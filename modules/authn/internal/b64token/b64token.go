// Package b64token holds RFC 6750's b64token, the only shape a bearer
// token has, for the gate and the verifier alike.
package b64token

// Valid reports whether s is an RFC 6750 §2.1 b64token:
// 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func Valid(s string) bool {
	i := 0
	for i < len(s) && char[s[i]] {
		i++
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}

// char marks the bytes of a b64token before its "=" padding.
var char = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
	}
	return t
}()
