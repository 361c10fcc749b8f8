package authnhuma

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"path"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svckit/svc/modules/authn"
)

// PublicDocs makes the routes Huma registers for its documentation public
// (authn.Anonymous): the API document in its four spellings
// (OpenAPIPath + .json, .yaml, -3.0.json, -3.0.yaml), the docs page
// (DocsPath) and the JSON Schemas (SchemasPath/{schema}), the links
// between them and the `$schema` links of responses included. The paths
// come from the huma.Config the API is built with, so a renamed or
// disabled route is followed. A request without a token reads them; a
// token that is sent is still verified, so a bad one gets 401.
//
// Without it these routes need a token, like every route behind the gate,
// unless the app excludes them (authn.Exclude). Only Huma's own routes
// are made public: an operation the app registers is never touched.
func PublicDocs() Option { return func(s *settings) { s.publicDocs = true } }

// docsRoutes records the paths of Huma's documentation routes in the
// final config (a create hook sees what the app set after DefaultConfig),
// and where the schemas are served from the root of the app.
func (s *settings) docsRoutes(c huma.Config) {
	s.docs = map[string]bool{}
	if p := c.OpenAPIPath; p != "" {
		for _, suffix := range []string{".json", ".yaml", "-3.0.json", "-3.0.yaml"} {
			s.docs[p+suffix] = true
		}
	}
	if c.DocsPath != "" {
		s.docs[c.DocsPath] = true
	}
	s.schemasPath = ""
	if c.SchemasPath != "" {
		s.docs[c.SchemasPath+"/{schema}"] = true
		s.schemasPath = c.SchemasPath
		s.schemasLink = path.Join(apiPrefix(c.OpenAPI), c.SchemasPath)
	}
}

// apiPrefix is the path of the first server URL that has one, as Huma
// reads it to link its docs page and schemas (huma's getAPIPrefix).
func apiPrefix(oapi *huma.OpenAPI) string {
	if oapi == nil {
		return ""
	}
	for _, server := range oapi.Servers {
		if u, err := url.Parse(server.URL); err == nil && u.Path != "" {
			if u.Scheme != "" || strings.HasPrefix(server.URL, "/") {
				return u.Path
			}
		}
	}
	return ""
}

// isDocsRoute reports whether op is one of the routes Huma registered for
// its documentation. Huma registers them straight on the adapter, without
// an operation ID; every operation registered through huma.Register has
// one, so an app's own operation on the same path is never taken for one.
func (s *settings) isDocsRoute(op *huma.Operation) bool {
	return op.OperationID == "" && op.Method == http.MethodGet && s.docs[op.Path]
}

// handle is what both adapters register: op's handler behind its route
// markers, Huma's documentation routes public with [PublicDocs], and the
// schemas route's links mended.
func (s *settings) handle(op *huma.Operation, handler func(huma.Context)) ([]func(http.Handler) http.Handler, func(huma.Context)) {
	s.registered.claim(op)
	mws := markers(op)
	if s.isDocsRoute(op) {
		if s.publicDocs && len(mws) == 0 {
			mws = []func(http.Handler) http.Handler{authn.Anonymous}
		}
		if op.Path == s.schemasPath+"/{schema}" {
			handler = s.mendSchemaRefs(handler)
		}
	}
	return mws, handler
}

// mendSchemaRefs puts the API's prefix into the $ref links of a schema
// Huma serves: it writes them as SchemasPath/Name.json, which misses the
// prefix of an API served below the root (Prefix, or a server URL with a
// path), so that they would point outside the API.
func (s *settings) mendSchemaRefs(handler func(huma.Context)) func(huma.Context) {
	if s.schemasLink == s.schemasPath {
		return handler
	}
	// json.Marshal writes a member as "$ref":"…" with no space; an escaped
	// quote inside a string value would read \", so this matches only the
	// member itself.
	wrong := []byte(`"$ref":"` + s.schemasPath + "/")
	right := []byte(`"$ref":"` + s.schemasLink + "/")
	return func(ctx huma.Context) {
		var buf bytes.Buffer
		handler(&bufferedContext{innerContext: ctx, buf: &buf})
		ctx.BodyWriter().Write(bytes.ReplaceAll(buf.Bytes(), wrong, right))
	}
}

// bufferedContext is a huma.Context whose body is written to buf.
type bufferedContext struct {
	innerContext
	buf *bytes.Buffer
}

// innerContext names the embedded huma.Context so that its Context method
// is promoted (an embedded huma.Context would be a field named Context).
type innerContext = huma.Context

func (c *bufferedContext) BodyWriter() io.Writer { return c.buf }

// Unwrap hands back the adapter's context (see unwrap).
func (c *bufferedContext) Unwrap() huma.Context { return c.innerContext }

// mendSchemaLink is a transformer that runs after Huma's schema-link
// transformer and makes the `$schema` URL it wrote absolute. Huma builds
// that URL from the request's host, except for a host that is empty or
// starts with "localhost", where it takes the first server URL instead;
// when that is a path (as [Prefix] sets it) the result is
// "https:///api/api/schemas/…", which names no host and doubles the
// prefix. The link is then rebuilt from the host the request was sent to
// (http unless the connection is TLS), or left as an absolute path when
// the request named no host. An absolute server URL with a path doubles
// the prefix too; the link keeps that server's origin.
func (s *settings) mendSchemaLink(ctx huma.Context, _ string, v any) (any, error) {
	if s.schemasLink == "" {
		return v, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return v, nil
	}
	st := rv.Elem()
	if st.NumField() == 0 || !st.Field(0).CanSet() || st.Field(0).Kind() != reflect.String {
		return v, nil
	}
	if f := st.Type().Field(0); f.Name != "Schema" || f.Tag.Get("json") != "$schema" {
		return v, nil
	}
	link := st.Field(0).String()
	u, err := url.Parse(link)
	i := strings.LastIndex(link, s.schemasLink+"/")
	if err != nil || i < 0 {
		return v, nil
	}
	ref := link[i:]
	if u.Host != "" {
		// An absolute server URL with a path (https://api.example/api) is
		// joined with a link that already starts with that path.
		if u.Path != ref {
			st.Field(0).SetString(u.Scheme + "://" + u.Host + ref)
		}
		return v, nil
	}
	if host := ctx.Host(); host != "" {
		scheme := "http://"
		if ctx.TLS() != nil {
			scheme = "https://"
		}
		ref = scheme + host + ref
	}
	st.Field(0).SetString(ref)
	return v, nil
}

// mendSchemaExamples runs after Huma's schema-link transformer has added
// a `$schema` property to an operation's schemas and puts the API's prefix
// into the example URL it gives that property. Huma writes it as the first
// absolute server URL (whose path carries the prefix) + SchemasPath, or,
// when no server URL is absolute (as with [Prefix]),
// https://example.com + SchemasPath, which misses the prefix.
func (s *settings) mendSchemaExamples(oapi *huma.OpenAPI, op *huma.Operation) {
	if s.schemasLink == s.schemasPath || oapi.Components == nil || oapi.Components.Schemas == nil {
		return
	}
	wrong := "https://example.com" + s.schemasPath + "/"
	right := "https://example.com" + s.schemasLink + "/"
	mend := func(content map[string]*huma.MediaType) {
		for _, mt := range content {
			if mt == nil || mt.Schema == nil || !strings.HasPrefix(mt.Schema.Ref, "#/") {
				continue
			}
			schema := oapi.Components.Schemas.SchemaFromRef(mt.Schema.Ref)
			if schema == nil || schema.Properties == nil || schema.Properties["$schema"] == nil {
				continue
			}
			for i, ex := range schema.Properties["$schema"].Examples {
				if e, ok := ex.(string); ok && strings.HasPrefix(e, wrong) {
					schema.Properties["$schema"].Examples[i] = right + strings.TrimPrefix(e, wrong)
				}
			}
		}
	}
	if op.RequestBody != nil {
		mend(op.RequestBody.Content)
	}
	for _, resp := range op.Responses {
		if resp != nil {
			mend(resp.Content)
		}
	}
}
