package flood

import "github.com/svckit/svc/internal/guardhook"

// Gate is l as the gate sees it.
func Gate(l *Limit) guardhook.Flood { return gateSide{l} }

// Shared is l with its budgets in s, as the gate shares it.
func Shared(l *Limit, s Store) *Limit { return l.shared(s) }
