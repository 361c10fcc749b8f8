package svcerrors

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"
)

// Every way the package offers to answer an error says when to use it and
// not the others, and docs/errors.md lists it in its table (issue 32 item
// 6): an entry point added without either fails here. An entry point is an
// exported function or method that takes the http.ResponseWriter, returns a
// Rendered, or turns a function returning an error into an http.Handler.
func TestEveryErrorEntryPointSaysWhenToUseIt(t *testing.T) {
	// Where each entry point appears in the docs' table; Rendered.Write
	// is Render's second half and shares its row.
	rows := map[string]string{
		"Handler":              "| `svcerrors.Handler(fn)` |",
		"Refuse":               "| `svcerrors.Refuse(w, r, err)` |",
		"Respond":              "| `svcerrors.Respond(w, r, status, detail, extensions)` |",
		"Responses.ServeError": "| `res.ServeError(w, r, err)` |",
		"Responses.Render":     "| `res.Render(err, path).Write(w)` |",
		"Rendered.Write":       "| `res.Render(err, path).Write(w)` |",
	}
	doc, err := os.ReadFile("../../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var found []string
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() || !entryPoint(fn.Type) {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil {
				recv := typeName(fn.Recv.List[0].Type)
				if !ast.IsExported(recv) {
					continue
				}
				name = recv + "." + name
			}
			found = append(found, name)
			row, listed := rows[name]
			if !listed {
				t.Errorf("%s answers an error but is not in this test's list, nor perhaps in docs/errors.md's table", name)
				continue
			}
			if !strings.Contains(string(doc), row) {
				t.Errorf("docs/errors.md's table has no row %s", row)
			}
			if name != "Rendered.Write" && !strings.Contains(fn.Doc.Text(), "Use it") {
				t.Errorf("%s's doc comment does not say when to use it (a sentence starting \"Use it\")", name)
			}
		}
	}
	sort.Strings(found)
	if len(found) != len(rows) {
		t.Errorf("entry points found %v, want the %d of the list", found, len(rows))
	}
}

// entryPoint reports whether a function of type ft writes an answer: it
// takes an http.ResponseWriter, returns a Rendered, or takes a function
// returning an error and returns an http.Handler.
func entryPoint(ft *ast.FuncType) bool {
	takesErrFunc := false
	for _, p := range ft.Params.List {
		if sel, ok := p.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "ResponseWriter" {
			return true
		}
		if f, ok := p.Type.(*ast.FuncType); ok && f.Results != nil {
			for _, r := range f.Results.List {
				if id, ok := r.Type.(*ast.Ident); ok && id.Name == "error" {
					takesErrFunc = true
				}
			}
		}
	}
	if ft.Results == nil {
		return false
	}
	for _, r := range ft.Results.List {
		switch t := r.Type.(type) {
		case *ast.Ident:
			if t.Name == "Rendered" {
				return true
			}
		case *ast.SelectorExpr:
			if t.Sel.Name == "Handler" && takesErrFunc {
				return true
			}
		}
	}
	return false
}

// typeName is the name of a receiver's type, pointer or not.
func typeName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
