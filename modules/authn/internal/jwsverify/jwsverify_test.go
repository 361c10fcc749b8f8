package jwsverify

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/asn1"
	"math/big"
	"testing"
)

// appendECDSADER writes the DER that encoding/asn1 writes for the same two
// integers, for every length and top bit the halves of a P-256, P-384 or
// P-521 signature can have, and refuses a zero half, as ecdsa.Verify does.
func TestAppendECDSADERIsASN1(t *testing.T) {
	for _, size := range []int{32, 48, 66} {
		halves := [][]byte{
			bytes.Repeat([]byte{0xff}, size),
			append(make([]byte, size-1), 1),
			append([]byte{0x80}, make([]byte, size-1)...),
			append([]byte{0x7f}, bytes.Repeat([]byte{0xff}, size-1)...),
			append(make([]byte, 1), bytes.Repeat([]byte{0x80}, size-1)...),
			append(make([]byte, 2), bytes.Repeat([]byte{0x01}, size-2)...),
		}
		for range 64 {
			h := make([]byte, size)
			rand.Read(h)
			halves = append(halves, h)
		}
		for _, r := range halves {
			for _, s := range halves {
				var buf [maxECDSADER]byte
				got, ok := appendECDSADER(buf[:0], r, s)
				want, err := asn1.Marshal(struct{ R, S *big.Int }{new(big.Int).SetBytes(r), new(big.Int).SetBytes(s)})
				if err != nil {
					t.Fatal(err)
				}
				if !ok || !bytes.Equal(got, want) {
					t.Fatalf("r %x s %x: DER %x %v, want %x", r, s, got, ok, want)
				}
			}
			if _, ok := appendECDSADER(nil, r, make([]byte, size)); ok {
				t.Fatalf("s = 0 encoded")
			}
			if _, ok := appendECDSADER(nil, make([]byte, size), r); ok {
				t.Fatalf("r = 0 encoded")
			}
		}
	}
}

// ECDSA on ES256/384/512 answers what ecdsa.Verify answers on the
// same r and s: for real signatures, including ones whose r or s has
// leading zero bytes or a top bit set, and for the same signatures with
// one bit flipped anywhere, a zero half, or a half at or over the order.
func TestECDSAVerifyMatchesEcdsaVerify(t *testing.T) {
	cases := []struct {
		name  string
		curve elliptic.Curve
		hash  crypto.Hash
	}{{"ES256", elliptic.P256(), crypto.SHA256}, {"ES384", elliptic.P384(), crypto.SHA384}, {"ES512", elliptic.P521(), crypto.SHA512}}
	for _, c := range cases {
		key, err := ecdsa.GenerateKey(c.curve, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		size := (c.curve.Params().BitSize + 7) / 8
		order := c.curve.Params().N
		input := "eyJhbGciOiJFUzI1NiJ9.eyJleHAiOjF9"
		var buf [64]byte
		digest := hashInput(&buf, c.hash, input)
		sigs := [][]byte{}
		// P-521's halves are 66 bytes for 521 bits: the top bit is never set.
		var leadingZero, topBit = false, c.name == "ES512"
		for i := 0; i < 2000 && (len(sigs) < 8 || !leadingZero || !topBit); i++ {
			r, s, err := ecdsa.Sign(rand.Reader, key, digest)
			if err != nil {
				t.Fatal(err)
			}
			sig := make([]byte, 2*size)
			r.FillBytes(sig[:size])
			s.FillBytes(sig[size:])
			lz, tb := sig[0] == 0 || sig[size] == 0, sig[0]&0x80 != 0 || sig[size]&0x80 != 0
			if len(sigs) < 8 || lz && !leadingZero || tb && !topBit {
				sigs = append(sigs, sig)
			}
			leadingZero, topBit = leadingZero || lz, topBit || tb
		}
		if !leadingZero || !topBit {
			t.Fatalf("%s: no signature with a leading zero or a top bit", c.name)
		}
		var variants [][]byte
		for _, sig := range sigs {
			variants = append(variants, sig)
			for _, bit := range []int{0, 7, 8*size - 1, 8 * size, 16*size - 1} {
				flipped := bytes.Clone(sig)
				flipped[bit/8] ^= 1 << (bit % 8)
				variants = append(variants, flipped)
			}
			zeroR := bytes.Clone(sig)
			clear(zeroR[:size])
			zeroS := bytes.Clone(sig)
			clear(zeroS[size:])
			atOrder := bytes.Clone(sig)
			order.FillBytes(atOrder[:size])
			overOrder := bytes.Clone(sig)
			for i := range overOrder[size:] {
				overOrder[size+i] = 0xff
			}
			variants = append(variants, zeroR, zeroS, atOrder, overOrder)
		}
		for _, sig := range variants {
			r, s := new(big.Int).SetBytes(sig[:size]), new(big.Int).SetBytes(sig[size:])
			want := ecdsa.Verify(&key.PublicKey, digest, r, s)
			if got := ECDSA(&key.PublicKey, c.hash, input, sig); got != want {
				t.Fatalf("%s: sig %x verified %v, ecdsa.Verify %v", c.name, sig, got, want)
			}
		}
		if !ECDSA(&key.PublicKey, c.hash, input, sigs[0]) {
			t.Fatalf("%s: a real signature does not verify", c.name)
		}
	}
}
