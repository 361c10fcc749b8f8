package authn

import (
	"crypto/sha256"
	"encoding/base64"
	"testing"
)

// The proxy-header parsers never panic, name a certificate only by a
// whole SHA-256, and read a well-formed Client-Cert as its DER's digest.
func FuzzCertificateHeaders(f *testing.F) {
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x01}, `Hash=00;Cert="-----BEGIN%20CERTIFICATE-----"`)
	f.Add([]byte("der"), `By=spiffe://a;Hash=`+string(make([]byte, 64))+`;Subject="CN=a\"b,c",URI=x`)
	f.Add([]byte{}, `Cert="`)
	f.Add([]byte("x"), ":AAAA:")
	f.Fuzz(func(t *testing.T, der []byte, header string) {
		for _, sum := range [][]byte{clientCertSum(header), xfccSum(header)} {
			if sum != nil && len(sum) != sha256.Size {
				t.Fatalf("a digest of %d bytes from %q", len(sum), header)
			}
		}
		if len(der) == 0 || len(der) > maxCertHeader/2 {
			return
		}
		want := sha256.Sum256(der)
		if got := clientCertSum(":" + base64.StdEncoding.EncodeToString(der) + ":"); string(got) != string(want[:]) {
			t.Fatalf("Client-Cert of %x read as %x", der, got)
		}
	})
}
