package fxsvc_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/rs/cors"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
)

// Regression: issue 32 item 5.
// The chain is the order written in fxsvc/chain.go, every stage there, with
// an app's wrapper before and after each; a wrapper keeps its place when
// the app registers none of svc's stages.
func TestTheChainIsInWrittenOrderWithAWrapperAtEveryPlace(t *testing.T) {
	var wraps []fx.Option
	for _, s := range []string{"telemetry", "errors", "cors", "health", "components", "gate"} {
		wraps = append(wraps, fxsvc.Wrap("before-"+s, fxsvc.Before(s), pass))
		if s != "gate" {
			wraps = append(wraps, fxsvc.Wrap("after-"+s, fxsvc.After(s), pass))
		}
	}
	every := []fx.Option{fxsvc.Errors(), fxsvc.CORS(cors.Options{AllowedOrigins: []string{"https://app.test"}}),
		fxsvc.Health(), fxsvc.Authn(behindtest.Verifier{}), fxsvc.RateLimits(), fxsvc.Idempotency(),
		fxsvc.Conditional(), fxsvc.ResponseCache()}
	for _, tc := range []struct {
		name string
		opts []fx.Option
		want []string
	}{
		{"every stage", every, []string{
			"before-telemetry", "telemetry", "after-telemetry",
			"before-errors", "errors", "after-errors",
			"before-cors", "cors", "after-cors",
			"before-health", "health", "after-health",
			"before-components", "components", "after-components",
			"before-gate", "gate", "router"}},
		{"svc's own stages left out", nil, []string{
			"before-telemetry", "telemetry", "after-telemetry",
			"before-errors", "after-errors", "before-cors", "after-cors", "before-health", "after-health",
			"before-components", "after-components", "before-gate", "router"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv *fxsvc.Server
			opts := append(append(append([]fx.Option{fx.NopLogger}, tc.opts...), wraps...),
				fx.Provide(func() *chi.Mux { return chi.NewRouter() }),
				fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")), fx.Populate(&srv))
			if err := fx.New(opts...).Err(); err != nil {
				t.Fatal(err)
			}
			if got := srv.Chain(); !slices.Equal(got, tc.want) {
				t.Fatalf("chain %q\nwant  %q", got, tc.want)
			}
		})
	}
}

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
