package behind

// Documented is a marker that tells an API document (authnhuma) what it
// adds to an operation of the given method, beside its refusals
// ([Refuser]). A marker that does nothing for the method returns the zero
// APIDoc, and its refusals are not listed there.
type Documented interface {
	APIDoc(method string) APIDoc
}

// APIDoc is what a marker adds to one operation.
type APIDoc struct {
	// Params are the request headers the marker reads.
	Params []Header
	// Headers are the response headers it sets on the operation's
	// successful answers (2xx) and on its own Answers.
	Headers []Header
	// Answers are the answers it gives itself that are not refusals, such
	// as a 304.
	Answers []Answer
}

// IsZero reports whether the marker adds nothing to the operation: it
// lets the operation's method through untouched, and declares no refusal
// there either.
func (d APIDoc) IsZero() bool {
	return len(d.Params) == 0 && len(d.Headers) == 0 && len(d.Answers) == 0
}

// Header is one header in an [APIDoc].
type Header struct {
	Name        string
	Description string
	// Required: a request without it is refused (a parameter only).
	Required bool
	// Integer: the value is a number of seconds, else a string.
	Integer bool
	// OnRefusals: also set on the marker's own refusals (a response
	// header only).
	OnRefusals bool
}

// Answer is one answer in an [APIDoc].
type Answer struct {
	Status      int
	Description string
}

// Safe reports whether method is one that the write markers (idempotency,
// conditional writes) let through untouched: GET, HEAD, OPTIONS, TRACE.
func Safe(method string) bool {
	switch method {
	case "GET", "HEAD", "OPTIONS", "TRACE":
		return true
	}
	return false
}
