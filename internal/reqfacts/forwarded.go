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
		forVal, fors, ok := p.element()
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

// element reads pairs separated by ";" up to a "," or the end, returning
// the for= value and how many for= pairs it held.
func (p *fwdParser) element() (forVal string, fors int, ok bool) {
	for {
		p.space()
		if !p.done() && p.s[p.i] != ';' && p.s[p.i] != ',' {
			key := p.token()
			if key == "" || p.done() || p.s[p.i] != '=' {
				return "", 0, false
			}
			p.i++
			val, ok := p.value()
			if !ok {
				return "", 0, false
			}
			if strings.EqualFold(key, "for") {
				forVal, fors = val, fors+1
			}
			p.space()
		}
		if p.done() || p.s[p.i] == ',' {
			return forVal, fors, true
		}
		if p.s[p.i] != ';' {
			return "", 0, false
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
