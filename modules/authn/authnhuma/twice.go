package authnhuma

import (
	"fmt"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svckit/svc/internal/guardwords"
)

// registered is the operations an API registered, by method and path.
type registered struct {
	mu  sync.Mutex
	ops map[string]*huma.Operation
}

// claim refuses, with a panic at registration (where Huma refuses a
// duplicate operation ID), an operation for a method and path another
// operation of the API already has: the router would keep one of the two
// without a word (chi replaces a route), and with it one guard. Huma's
// own check misses two operations with different operation IDs.
func (s *registered) claim(op *huma.Operation) {
	key := strings.ToUpper(op.Method) + " " + op.Path
	s.mu.Lock()
	defer s.mu.Unlock()
	if first, ok := s.ops[key]; ok {
		panic(fmt.Sprintf("authnhuma: %s is registered twice, by operation %q (%s) and by operation %q (%s); "+
			"the router would serve only one of them: register each method and path once",
			key, first.OperationID, guardWords(first), op.OperationID, guardWords(op)))
	}
	if s.ops == nil {
		s.ops = map[string]*huma.Operation{}
	}
	s.ops[key] = op
}

// guardWords says how an operation is guarded, for a refusal.
func guardWords(op *huma.Operation) string {
	gd := guardOf(op)
	return guardwords.Describe("authnhuma", gd.anonymous, gd.requires, gd.scopes)
}
