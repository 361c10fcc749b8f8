package metrics

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// problemMediaType is RFC 9457's media type. The svc errors module owns
// the general renderer; this package writes its few bodies itself so it
// depends on nothing but net/http.
const problemMediaType = "application/problem+json"

type problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail"`
	Instance string `json:"instance,omitempty"`
}

// writeProblem writes an RFC 9457 body with type about:blank and the two
// safety headers every svc error response carries.
func writeProblem(w http.ResponseWriter, r *http.Request, status int, detail string) {
	body, _ := json.Marshal(problem{
		Type:     "about:blank",
		Title:    http.StatusText(status),
		Status:   status,
		Detail:   detail,
		Instance: r.URL.EscapedPath(),
	})
	h := w.Header()
	h.Set("Content-Type", problemMediaType)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
