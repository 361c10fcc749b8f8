package lifecycle

import (
	"fmt"

	"go.uber.org/fx"
)

// kindGroup is the fx value group every singleton registration joins.
const kindGroup = "svc.lifecycle.singletons"

// kindClaim records that an fx option registered a component of a kind.
type kindClaim struct {
	Kind string
	By   string
}

// SingletonError is returned by fx.New when two components of a singleton
// kind are registered in one app.
type SingletonError struct {
	Kind  string
	First string
	Again string
}

func (e *SingletonError) Error() string {
	return fmt.Sprintf("svc: only one %s component may be registered per app, got %s and %s: remove one of them",
		e.Kind, e.First, e.Again)
}

// Singleton returns an fx option that claims kind for the component named
// by. fx.New fails with a *SingletonError when two claims name one kind,
// before anything starts.
func Singleton(kind, by string) fx.Option {
	return fx.Options(
		fx.Supply(fx.Annotated{Group: kindGroup, Target: kindClaim{Kind: kind, By: by}}),
		fx.Invoke(fx.Annotate(checkSingletons, fx.ParamTags(`group:"`+kindGroup+`"`))),
	)
}

func checkSingletons(claims []kindClaim) error {
	seen := make(map[string]string, len(claims))
	for _, c := range claims {
		if first, dup := seen[c.Kind]; dup {
			return &SingletonError{Kind: c.Kind, First: first, Again: c.By}
		}
		seen[c.Kind] = c.By
	}
	return nil
}
