package bearer

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

func TestScopeSet(t *testing.T) {
	s := NewScopes("write", "read", "", "read")
	if len(s) != 2 {
		t.Fatalf("NewScopes kept %v", s)
	}
	if !s.Has("read") || s.Has("admin") || s.Has("") {
		t.Error("Has")
	}
	if !s.Has() || !s.Has("read", "write") || s.Has("read", "admin") {
		t.Error("Has of several")
	}
	if got := s.List(); !slices.Equal(got, []string{"read", "write"}) {
		t.Errorf("List = %v", got)
	}
	var none ScopeSet
	if none.Has("x") || !none.Has() || len(none.List()) != 0 {
		t.Error("nil set")
	}
}

func TestClaimsDecode(t *testing.T) {
	c := &Claims{Raw: map[string]json.RawMessage{"roles": json.RawMessage(`["a","b"]`), "n": json.RawMessage(`"x"`)}}
	var roles []string
	if err := c.Decode("roles", &roles); err != nil || !slices.Equal(roles, []string{"a", "b"}) {
		t.Fatalf("Decode = %v %v", err, roles)
	}
	if err := c.Decode("missing", &roles); !errors.Is(err, ErrNoClaim) {
		t.Fatalf("missing claim: %v", err)
	}
	var n int
	if err := c.Decode("n", &n); err == nil || errors.Is(err, ErrNoClaim) {
		t.Fatalf("wrong type: %v", err)
	}
	var nilClaims *Claims
	if err := nilClaims.Decode("x", &n); !errors.Is(err, ErrNoClaim) {
		t.Fatalf("nil claims: %v", err)
	}
}

func TestReadScopesShapes(t *testing.T) {
	cases := []struct {
		name string
		raw  map[string]json.RawMessage
		want []string
		err  bool
	}{
		{"none", map[string]json.RawMessage{}, nil, false},
		{"scope string", map[string]json.RawMessage{"scope": json.RawMessage(`"a  b c"`)}, []string{"a", "b", "c"}, false},
		{"scp array", map[string]json.RawMessage{"scp": json.RawMessage(`["a","b"]`)}, []string{"a", "b"}, false},
		{"scp string", map[string]json.RawMessage{"scp": json.RawMessage(`"a b"`)}, []string{"a", "b"}, false},
		{"both merge", map[string]json.RawMessage{"scope": json.RawMessage(`"a"`), "scp": json.RawMessage(`["b"]`)}, []string{"a", "b"}, false},
		{"empty scope", map[string]json.RawMessage{"scope": json.RawMessage(`""`)}, nil, false},
		{"scope escaped", map[string]json.RawMessage{"scope": json.RawMessage(`"a\u0020b"`)}, []string{"a", "b"}, false},
		{"scope array", map[string]json.RawMessage{"scope": json.RawMessage(`["a"]`)}, nil, true},
		{"scope number", map[string]json.RawMessage{"scope": json.RawMessage(`1`)}, nil, true},
		{"scp array of numbers", map[string]json.RawMessage{"scp": json.RawMessage(`[1]`)}, nil, true},
		{"scp null", map[string]json.RawMessage{"scp": json.RawMessage(`null`)}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := readScopes(c.raw)
			if (err != nil) != c.err {
				t.Fatalf("err = %v", err)
			}
			if err == nil && !slices.Equal(s.List(), append([]string{}, c.want...)) {
				t.Fatalf("scopes = %v, want %v", s.List(), c.want)
			}
			if err == nil && s == nil {
				t.Fatal("nil set returned")
			}
		})
	}
}
