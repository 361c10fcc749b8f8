package fxsvc_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/lifecycle"
)

// appDB is an app's own component: a pool the handlers use, which must be
// open before the server takes a request and closed after it drained.
type appDB struct {
	mu      sync.Mutex
	events  []string
	openErr error
	srv     **fxsvc.Server
}

func (db *appDB) Name() string { return "orders-db" }

func (db *appDB) note(e string) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.events = append(db.events, e)
}

func (db *appDB) Open(context.Context) error {
	db.note("db open" + db.serving())
	return db.openErr
}

func (db *appDB) Close(context.Context) error {
	db.note("db close" + db.serving())
	return nil
}

// serving says whether the app's server answers (its own probe route:
// another process may take the port once it is free).
func (db *appDB) serving() string {
	s := *db.srv
	if s == nil || s.Addr() == "" {
		return ""
	}
	c := &http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + s.Addr() + "/probe")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	if body, _ := io.ReadAll(resp.Body); string(body) == probeAnswer {
		return " while serving"
	}
	return ""
}

const probeAnswer = "the orders service"

func probeRouter() *chi.Mux {
	r := chi.NewRouter()
	r.Get("/probe", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, probeAnswer) })
	return r
}

// An app's own component registered with package lifecycle, in a module
// before fxsvc.Serve, opens before the server listens and closes after it
// stopped; a failed open stops the start naming the component.
func TestAnAppComponentBesideSvcs(t *testing.T) {
	for _, openErr := range []error{nil, errors.New("connection refused")} {
		var srv *fxsvc.Server
		db := &appDB{openErr: openErr, srv: &srv}
		app := fx.New(fx.NopLogger,
			fxsvc.Errors(),
			fx.Module("orders", fx.Supply(db), fx.Invoke(func(lc fx.Lifecycle, db *appDB) { lifecycle.Register(lc, db) })),
			fx.Supply(probeRouter()),
			fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")),
			fx.Populate(&srv),
		)
		err := app.Start(t.Context())
		if openErr != nil {
			var e *lifecycle.Error
			if !errors.As(err, &e) || e.Component != "orders-db" || e.Op != "open" || !strings.Contains(err.Error(), "svc: open orders-db: connection refused") {
				t.Fatalf("start: %v, want a *lifecycle.Error naming orders-db", err)
			}
			if db.serving() != "" {
				t.Fatal("the server answers after a failed start")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := app.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(db.events, ", "); got != "db open, db close" {
			t.Fatalf("events %q, want the db opened before and closed after the server", got)
		}
	}
}
