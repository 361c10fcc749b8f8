package bearer

import "math/big"

// The ROCA fingerprint (CVE-2017-15361, Nemec et al., "The Return of
// Coppersmith's Attack", CCS 2017): Infineon's RSALib built its primes as
// k·M + (65537^a mod M) for a primorial M, so every modulus it made is, for
// each small prime p dividing M, a power of 65537 modulo p. Such a modulus
// can be factored in CPU-days to -months, so anyone could sign with the
// key. A modulus of any other origin passes this test for all the primes
// below only by chance (well under one in a billion), so the check has no
// practical false positives, and it costs 38 small remainders.

// rocaPrimes are the primes the published detector tests the modulus at.
var rocaPrimes = [...]uint{3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71,
	73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167}

// rocaPowers[i] has bit r set when r is a power of 65537 modulo
// rocaPrimes[i] (every prime is below 256, so four words hold the set).
var rocaPowers = func() (sets [len(rocaPrimes)][4]uint64) {
	for i, p := range rocaPrimes {
		g := 65537 % p
		for r := uint(1); sets[i][r/64]&(1<<(r%64)) == 0; r = r * g % p {
			sets[i][r/64] |= 1 << (r % 64)
		}
	}
	return sets
}()

// hasROCAFingerprint reports whether the RSA modulus n is one Infineon's
// vulnerable key generation made.
func hasROCAFingerprint(n *big.Int) bool {
	var p, r big.Int
	for i, prime := range rocaPrimes {
		r.Mod(n, p.SetUint64(uint64(prime)))
		res := r.Uint64()
		if rocaPowers[i][res/64]&(1<<(res%64)) == 0 {
			return false
		}
	}
	return true
}
