package bearer

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Actor is one party acting on behalf of the token's subject, read from
// the token's `act` claim (RFC 8693 §4.1): the service that exchanged the
// caller's token for this one, and so on.
type Actor struct {
	Subject string // the actor's `sub`
	Issuer  string // its `iss`, when the claim names one
}

// maxActorDepth bounds the act nesting Actors reads: a hostile token
// cannot make the gate walk (or a handler print) a chain of any length.
const maxActorDepth = 16

// errActorClaim is what Actors returns for an act claim that is not an
// RFC 8693 §4.1 chain.
var errActorClaim = errors.New("authn: the act claim is not a chain of objects each with a string sub")

// Actors returns the token's delegation chain from its `act` claim, the
// current actor first and each earlier actor after it (RFC 8693 §4.1: a
// nested act names the actor before). It returns nil for a token without
// act and for a principal built without claims. It refuses (with an
// error, and no chain) an act that is not an object with a non-empty
// string `sub`, an `iss` that is not a string, and a chain deeper than 16.
func (p Principal) Actors() ([]Actor, error) {
	if p.Claims == nil {
		return nil, nil
	}
	raw, ok := p.Claims.Raw["act"]
	if !ok {
		return nil, nil
	}
	var chain []Actor
	for len(chain) < maxActorDepth {
		var a struct {
			Sub *string         `json:"sub"`
			Iss *string         `json:"iss"`
			Act json.RawMessage `json:"act"`
		}
		if err := json.Unmarshal(raw, &a); err != nil || a.Sub == nil || *a.Sub == "" {
			return nil, errActorClaim
		}
		actor := Actor{Subject: *a.Sub}
		if a.Iss != nil {
			actor.Issuer = *a.Iss
		}
		chain = append(chain, actor)
		if a.Act == nil {
			return chain, nil
		}
		raw = a.Act
	}
	return nil, fmt.Errorf("authn: the act claim nests more than %d actors", maxActorDepth)
}
