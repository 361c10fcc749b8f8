package authnhuma

import (
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svckit/svc/internal/behind"
)

// describeMarkers writes on an operation what the markers of [Use] and
// [Group] add to it (their refusals are declared with the handler's, see
// declareRejections): the request headers they read as header parameters,
// the answers they give themselves (a 304), and the response headers they
// set on its successful answers, on those answers and, where they say so,
// on their refusals (RateLimit on a 429). A parameter or header the
// operation declares itself (a Huma input or output field) is left alone.
func (d *documenter) describeMarkers(op *huma.Operation) {
	docs := guardOf(op).docs
	if len(docs) == 0 {
		return
	}
	if op.Responses == nil {
		op.Responses = map[string]*huma.Response{}
	}
	for _, md := range docs {
		for _, p := range md.doc.Params {
			if !hasHeaderParam(op, p.Name) {
				op.Parameters = append(op.Parameters, &huma.Param{Name: p.Name, In: "header",
					Description: p.Description, Required: p.Required, Schema: headerSchema(p)})
			}
		}
		answers := make([]int, 0, len(md.doc.Answers))
		for _, a := range md.doc.Answers {
			answers = append(answers, a.Status)
			if code := strconv.Itoa(a.Status); op.Responses[code] == nil {
				op.Responses[code] = &huma.Response{Description: a.Description}
			}
		}
		for code, resp := range op.Responses {
			status, err := strconv.Atoi(code)
			if err != nil || resp == nil {
				continue // "default"
			}
			own := status/100 == 2 || slices.Contains(answers, status)
			for _, h := range md.doc.Headers {
				if own || (h.OnRefusals && slices.Contains(md.refusals, status)) {
					addResponseHeader(resp, h)
				}
			}
		}
	}
}

func hasHeaderParam(op *huma.Operation, name string) bool {
	return slices.ContainsFunc(op.Parameters, func(p *huma.Param) bool {
		return p != nil && p.In == "header" && strings.EqualFold(p.Name, name)
	})
}

func addResponseHeader(resp *huma.Response, h behind.Header) {
	for name := range resp.Headers {
		if strings.EqualFold(name, h.Name) {
			return
		}
	}
	if resp.Headers == nil {
		resp.Headers = map[string]*huma.Param{}
	}
	resp.Headers[h.Name] = &huma.Param{Description: h.Description, Schema: headerSchema(h)}
}

func headerSchema(h behind.Header) *huma.Schema {
	if h.Integer {
		return &huma.Schema{Type: huma.TypeInteger, Minimum: new(float64)}
	}
	return &huma.Schema{Type: huma.TypeString}
}
