package fxsvc_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

// Regression: issue 32 item 5.
// One function builds the chain and reads as it: buildChain adds svc's
// stages in the written order, names in sequence, and wraps the router
// last; Serve hands it the router, so a reader walking from the server
// reaches the router through it.
func TestBuildChainReadsAsTheChain(t *testing.T) {
	fset := token.NewFileSet()
	funcs := map[string]*ast.FuncDecl{}
	for _, file := range []string{"chain.go", "serve.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				funcs[fn.Name.Name] = fn
			}
		}
	}
	build := funcs["buildChain"]
	if build == nil {
		t.Fatal("no func buildChain in chain.go")
	}
	var added []string
	for _, st := range build.Body.List {
		if call := callOf(st); call != nil && calleeName(call) == "add" && len(call.Args) == 1 {
			if inner, ok := call.Args[0].(*ast.CallExpr); ok {
				added = append(added, calleeName(inner))
			}
		}
	}
	if want := []string{"newTelemetry", "errorsStage", "corsStage", "healthStage", "newComponents", "gateStage"}; !slices.Equal(added, want) {
		t.Fatalf("buildChain adds %q, want %q", added, want)
	}
	// The router appears once, in the last statement: the wrapping.
	var routerAt []token.Pos
	ast.Inspect(build.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "router" {
			routerAt = append(routerAt, id.Pos())
		}
		return true
	})
	last := build.Body.List[len(build.Body.List)-1]
	if len(routerAt) != 1 || routerAt[0] < last.Pos() {
		t.Fatalf("the router is referenced at %v; want once, in the last statement", routerAt)
	}
	calls := false
	ast.Inspect(funcs["Serve"], func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && calleeName(call) == "buildChain" {
			calls = calls || slices.ContainsFunc(call.Args, func(a ast.Expr) bool { id, ok := a.(*ast.Ident); return ok && id.Name == "router" })
		}
		return true
	})
	if !calls {
		t.Fatal("Serve does not hand the router to buildChain")
	}
}

// callOf is the call a statement makes, if it is one.
func callOf(st ast.Stmt) *ast.CallExpr {
	if es, ok := st.(*ast.ExprStmt); ok {
		call, _ := es.X.(*ast.CallExpr)
		return call
	}
	return nil
}

// calleeName is the name a call calls: f for f(…) and x.f(…).
func calleeName(call *ast.CallExpr) string {
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		return fn.Name
	case *ast.SelectorExpr:
		return fn.Sel.Name
	}
	return ""
}
