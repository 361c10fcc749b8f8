package bans

import "github.com/svckit/svc/internal/guardhook"

// Gate is b as the gate sees it.
func Gate(b *Bans) guardhook.Bans { return gateSide{b} }

// Shared is b with its state in s, as the gate shares it.
func Shared(b *Bans, s Store) *Bans { return b.shared(s) }
