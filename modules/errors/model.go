package svcerrors

import (
	"encoding/json"
	"sort"
)

// ProblemDetail is the RFC 9457 body, for clients and API schemas. Members
// that are empty are omitted; Extensions are top-level members.
type ProblemDetail struct {
	Type       string         `json:"type"`
	Title      string         `json:"title,omitempty"`
	Status     int            `json:"status,omitempty"`
	Detail     string         `json:"detail,omitempty"`
	Instance   string         `json:"instance,omitempty"`
	RetryAfter *float64       `json:"retry_after,omitempty"`
	Timeout    *float64       `json:"timeout,omitempty"`
	Errors     []FieldError   `json:"errors,omitempty"`
	Extensions map[string]any `json:"-"`
}

type problemFields ProblemDetail

// MarshalJSON writes Extensions at the top level beside the standard members.
func (p ProblemDetail) MarshalJSON() ([]byte, error) {
	std, err := json.Marshal(problemFields(p))
	if err != nil || len(p.Extensions) == 0 {
		return std, err
	}
	out := std[:len(std)-1]
	for _, m := range sortedMembers(p.Extensions) {
		if reservedMember(m.Name) {
			continue
		}
		k, _ := json.Marshal(m.Name)
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		out = append(append(append(append(out, ','), k...), ':'), v...)
	}
	return append(out, '}'), nil
}

// UnmarshalJSON reads the standard members and keeps every other member in
// Extensions.
func (p *ProblemDetail) UnmarshalJSON(b []byte) error {
	var std problemFields
	if err := json.Unmarshal(b, &std); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	*p = ProblemDetail(std)
	for k, raw := range all {
		if reservedMember(k) {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		if p.Extensions == nil {
			p.Extensions = map[string]any{}
		}
		p.Extensions[k] = v
	}
	return nil
}

// TMFError is the TM Forum TMF630 error body.
type TMFError struct {
	Code           string `json:"code"`
	Reason         string `json:"reason"`
	Message        string `json:"message,omitempty"`
	ReferenceError string `json:"referenceError,omitempty"`
	Type           string `json:"@type"`
}

func sortedMembers(m map[string]any) []Member {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Member, len(keys))
	for i, k := range keys {
		out[i] = Member{Name: k, Value: m[k]}
	}
	return out
}
