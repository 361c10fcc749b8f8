package authn

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"net/url"
	"strings"
)

// maxCertHeader bounds a client-certificate header before any decoding: a
// certificate chain a proxy passes is a few kilobytes.
const maxCertHeader = 16 << 10

// clientCertSum is the SHA-256 of the certificate in an RFC 9440
// Client-Cert value, a structured-field byte sequence (":" base64 ":",
// RFC 8941 §3.3.5); nil for any other value.
func clientCertSum(v string) []byte {
	v = strings.Trim(v, " \t")
	if len(v) < 3 || len(v) > maxCertHeader || v[0] != ':' || v[len(v)-1] != ':' {
		return nil
	}
	der, err := base64.StdEncoding.Strict().DecodeString(v[1 : len(v)-1])
	if err != nil || len(der) == 0 {
		return nil
	}
	sum := sha256.Sum256(der)
	return sum[:]
}

// xfccSum is the SHA-256 of the client certificate in an Envoy
// X-Forwarded-Client-Cert value: its last element (the one the nearest
// proxy wrote), by Hash (hex) or Cert (URL-encoded PEM); both given must
// agree. nil when the element names no certificate or cannot be read.
func xfccSum(v string) []byte {
	if len(v) > maxCertHeader {
		return nil
	}
	elems, ok := splitXFCC(v)
	if !ok || len(elems) == 0 {
		return nil
	}
	var hash, cert []byte
	for _, kv := range elems[len(elems)-1] {
		key, val, found := strings.Cut(kv, "=")
		if !found {
			return nil
		}
		switch {
		case strings.EqualFold(key, "Hash"):
			h, err := hex.DecodeString(unquote(val))
			if err != nil || len(h) != sha256.Size || hash != nil {
				return nil
			}
			hash = h
		case strings.EqualFold(key, "Cert"):
			s, err := url.PathUnescape(unquote(val))
			if err != nil || cert != nil {
				return nil
			}
			b, rest := pem.Decode([]byte(s))
			if b == nil || b.Type != "CERTIFICATE" || strings.TrimSpace(string(rest)) != "" {
				return nil
			}
			sum := sha256.Sum256(b.Bytes)
			cert = sum[:]
		}
	}
	if hash != nil && cert != nil && string(hash) != string(cert) {
		return nil
	}
	if cert != nil {
		return cert
	}
	return hash
}

// splitXFCC splits an X-Forwarded-Client-Cert value into its elements
// (commas) of key=value pairs (semicolons), neither splitting inside a
// double-quoted value, where a backslash escapes the next byte. false for
// an unterminated quote.
func splitXFCC(v string) ([][]string, bool) {
	var elems [][]string
	var pairs []string
	start, quoted := 0, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && (c == ';' || c == ','):
			pairs = append(pairs, strings.TrimSpace(v[start:i]))
			start = i + 1
			if c == ',' {
				elems, pairs = append(elems, pairs), nil
			}
		}
	}
	if quoted {
		return nil, false
	}
	pairs = append(pairs, strings.TrimSpace(v[start:]))
	return append(elems, pairs), true
}

// unquote strips a quoted XFCC value's quotes and backslash escapes.
func unquote(v string) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return v
	}
	v = v[1 : len(v)-1]
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}
