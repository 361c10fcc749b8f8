package authnhuma_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/ratelimit"
)

// A marker that reads the body (idempotency fingerprints it) hands the
// operation a fresh one; a multipart operation must read that one too,
// also when another marker runs outside it.
func TestAMultipartOperationReadsTheBodyAnInnerMarkerRead(t *testing.T) {
	r := chi.NewRouter()
	a := authnhuma.NewChi(r, huma.DefaultConfig("Shop", "1.0.0"))
	type uploadOut struct{ Body string }
	huma.Post(a, "/uploads", func(_ context.Context, in *struct {
		RawBody multipart.Form
	}) (*uploadOut, error) {
		return &uploadOut{Body: "name=" + in.RawBody.Value["name"][0]}, nil
	}, authnhuma.Use(ratelimit.Limit("100/s", 100), idempotency.Required()))
	srv := behindtest.Stack(t, r, fresh(t)...)

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("name", "report.pdf")
	_ = mw.Close()
	resp := behindtest.Do(t, srv, "POST", "/uploads", behindtest.Alice, body.String(),
		"Idempotency-Key", "u1", "Content-Type", mw.FormDataContentType())
	if got := behindtest.Body(t, resp); resp.StatusCode != http.StatusOK || got != `"name=report.pdf"`+"\n" {
		t.Fatalf("%d %q", resp.StatusCode, got)
	}
}
