package devissuer_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/internal/dpoptest"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// oauthclient.DPoP(nil) gets a DPoP-bound token (issue 33: it got
// Bearer): token_type DPoP and cnf.jkt its key's thumbprint; with nonces
// required, the client's one retry with the server's nonce succeeds.
func TestDPoPBoundTokensForSvcsClient(t *testing.T) {
	t.Parallel()
	for _, nonce := range []bool{false, true} {
		iss := start(t, devissuer.Options{DPoPNonce: nonce})
		c := openClient(t, iss, oauthclient.ClientID(iss.ClientID), oauthclient.ClientSecret(secret.String(iss.ClientSecret)), oauthclient.DPoP(nil))
		tok := fetch(t, c, "ledger")
		cnf, _ := claimsOf(t, tok.Value)["cnf"].(map[string]any)
		if jkt, _ := cnf["jkt"].(string); tok.TokenType != "DPoP" || len(jkt) != 43 {
			t.Errorf("nonce %v: %s cnf %v", nonce, tok.TokenType, cnf)
		}
		if want := map[bool]int{false: 1, true: 2}[nonce]; iss.TokenRequests() != want {
			t.Errorf("nonce %v: %d token requests, want %d", nonce, iss.TokenRequests(), want)
		}
	}
}

// A proof is refused, 400 invalid_dpop_proof, for another URL or method,
// replayed, or sent twice; a proof without the required nonce is
// answered use_dpop_nonce with the nonce in DPoP-Nonce.
func TestDPoPProofRefusals(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	key := dpoptest.New(t)
	form := url.Values{"grant_type": {"client_credentials"}}
	replayed := key.Proof(t, "POST", iss.URL+"/token", "", "")
	if status, _, body := send(t, iss.URL+"/token", form, withProof(basic(iss), replayed)); status != 200 || body["token_type"] != "DPoP" {
		t.Fatalf("a good proof: %d %v", status, body)
	}
	for name, proofs := range map[string][]string{
		"another URL":    {key.Proof(t, "POST", iss.URL+"/mint", "", "")},
		"another method": {key.Proof(t, "GET", iss.URL+"/token", "", "")},
		"replayed":       {replayed},
		"two proofs":     {key.Proof(t, "POST", iss.URL+"/token", "", ""), key.Proof(t, "POST", iss.URL+"/token", "", "")},
		"not a JWS":      {"abc"},
	} {
		h := basic(iss)
		h["Dpop"] = proofs
		if status, _, body := send(t, iss.URL+"/token", form, h); status != 400 || body["error"] != "invalid_dpop_proof" || body["error_description"] == "" {
			t.Errorf("%s: %d %v", name, status, body)
		}
	}

	strict := start(t, devissuer.Options{DPoPNonce: true})
	status, h, body := send(t, strict.URL+"/token", form, withProof(basic(strict), key.Proof(t, "POST", strict.URL+"/token", "", "")))
	if status != 400 || body["error"] != "use_dpop_nonce" || h.Get("DPoP-Nonce") == "" {
		t.Fatalf("no nonce: %d %v %v", status, h, body)
	}
	status, _, body = send(t, strict.URL+"/token", form, withProof(basic(strict), key.Proof(t, "POST", strict.URL+"/token", "", h.Get("DPoP-Nonce"))))
	if status != 200 || body["token_type"] != "DPoP" {
		t.Fatalf("with the nonce: %d %v", status, body)
	}
}

// /mint binds a token by the thumbprint given (jkt=) or by its own proof.
func TestMintBindsToADPoPKey(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	key := dpoptest.New(t)
	status, body := getJSON(t, iss.URL+"/mint?sub=alice&jkt="+key.JKT)
	cnf, _ := claimsOf(t, body["access_token"].(string))["cnf"].(map[string]any)
	if status != 200 || body["token_type"] != "DPoP" || cnf["jkt"] != key.JKT {
		t.Fatalf("jkt=: %d %v %v", status, body, cnf)
	}
	req, _ := http.NewRequest("GET", iss.URL+"/mint?sub=alice", nil)
	req.Header.Set("DPoP", key.Proof(t, "GET", iss.URL+"/mint", "", ""))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(&body)
	cnf, _ = claimsOf(t, body["access_token"].(string))["cnf"].(map[string]any)
	if resp.StatusCode != 200 || body["token_type"] != "DPoP" || cnf["jkt"] != key.JKT {
		t.Fatalf("a proof: %d %v", resp.StatusCode, body)
	}
}

func withProof(h http.Header, proof string) http.Header {
	h.Set("DPoP", proof)
	return h
}
