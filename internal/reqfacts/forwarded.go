package reqfacts

import "strings"

// forwardedFor lists the for= value of each element of RFC 7239 Forwarded
// lines, leftmost first, unquoted. An element without exactly one for=
// gives "", as does a line's rest from the first byte the grammar refuses:
// either stops the walk there.
func forwardedFor(lines []string) []string {
	var hops []string
	for _, line := range lines {
		hops = appendForwarded(hops, line)
	}
	return hops
}

func appendForwarded(hops []string, line string) []string {
	p := fwdParser{s: line}
	for {
		p.space()
		if p.done() {
			return hops
		}
		e, ok := p.element()
		forVal, fors := e.forVal, e.fors
		if !ok {
			return append(hops, "")
		}
		if fors != 1 {
			forVal = ""
		}
		hops = append(hops, forVal)
		p.space()
		if p.done() {
			return hops
		}
		if p.s[p.i] != ',' {
			return append(hops, "")
		}
		p.i++
	}
}

// fwdParser reads one Forwarded line.
type fwdParser struct {
	s string
	i int
}

func (p *fwdParser) done() bool { return p.i >= len(p.s) }

func (p *fwdParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// fwdElement is what one Forwarded element says: its for= value and how
// many for= pairs it held, and its proto= and host= values.
type fwdElement struct {
	forVal      string
	fors        int
	proto, host string
}

// element reads pairs separated by ";" up to a "," or the end.
func (p *fwdParser) element() (e fwdElement, ok bool) {
	for {
		p.space()
		if !p.done() && p.s[p.i] != ';' && p.s[p.i] != ',' {
			key := p.token()
			if key == "" || p.done() || p.s[p.i] != '=' {
				return fwdElement{}, false
			}
			p.i++
			val, ok := p.value()
			if !ok {
				return fwdElement{}, false
			}
			switch {
			case strings.EqualFold(key, "for"):
				e.forVal, e.fors = val, e.fors+1
			case strings.EqualFold(key, "proto"):
				e.proto = val
			case strings.EqualFold(key, "host"):
				e.host = val
			}
			p.space()
		}
		if p.done() || p.s[p.i] == ',' {
			return e, true
		}
		if p.s[p.i] != ';' {
			return fwdElement{}, false
		}
		p.i++
	}
}

// forwardedLast is the last element of the last Forwarded line: the one
// the nearest proxy appended. ok is false when that line does not parse
// to its end.
func forwardedLast(lines []string) (e fwdElement, ok bool) {
	if len(lines) == 0 {
		return fwdElement{}, false
	}
	p := fwdParser{s: lines[len(lines)-1]}
	for {
		p.space()
		if p.done() {
			return e, ok
		}
		if e, ok = p.element(); !ok {
			return fwdElement{}, false
		}
		p.space()
		if p.done() {
			return e, true
		}
		if p.s[p.i] != ',' {
			return fwdElement{}, false
		}
		p.i++
	}
}

func (p *fwdParser) token() string {
	start := p.i
	for p.i < len(p.s) && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// value is a token or a quoted string (RFC 9110 §5.6.4), unescaped.
func (p *fwdParser) value() (string, bool) {
	if p.done() || p.s[p.i] != '"' {
		v := p.token()
		return v, v != ""
	}
	p.i++
	start := p.i
	var b *strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			v := p.s[start:p.i]
			if b != nil {
				b.WriteString(v)
				v = b.String()
			}
			p.i++
			return v, true
		case c == '\\' && p.i+1 < len(p.s):
			if b == nil {
				b = &strings.Builder{}
			}
			b.WriteString(p.s[start:p.i])
			b.WriteByte(p.s[p.i+1])
			p.i += 2
			start = p.i
		case c < 0x20 && c != '\t' || c == 0x7f:
			return "", false
		default:
			p.i++
		}
	}
	return "", false
}

// isTokenChar is a tchar of RFC 9110 §5.6.2.
func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
