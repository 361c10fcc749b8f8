package lifecycle_test

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/fx"

	"github.com/svckit/svc/lifecycle"
)

// ordersDB stands for an app's own database pool.
type ordersDB struct{ down bool }

func (*ordersDB) Name() string { return "orders-db" }

func (db *ordersDB) Open(context.Context) error {
	if db.down {
		return errors.New("connection refused")
	}
	fmt.Println("orders-db opened")
	return nil
}

func (*ordersDB) Close(context.Context) error {
	fmt.Println("orders-db closed")
	return nil
}

// An app's own component opens with the app and closes with it; a failed
// Open stops the start and names the component.
func ExampleRegister() {
	for _, db := range []*ordersDB{{}, {down: true}} {
		app := fx.New(fx.NopLogger,
			fx.Supply(db),
			fx.Invoke(func(lc fx.Lifecycle, db *ordersDB) { lifecycle.Register(lc, db) }),
		)
		if err := app.Start(context.Background()); err != nil {
			var e *lifecycle.Error
			fmt.Println(errors.As(err, &e), e)
			continue
		}
		_ = app.Stop(context.Background())
	}
	// Output:
	// orders-db opened
	// orders-db closed
	// true svc: open orders-db: connection refused
}

// Two registrations of a kind the app may hold once fail fx.New, naming
// the kind and both options (First and Again, in no set order).
func ExampleSingleton() {
	app := fx.New(fx.NopLogger,
		lifecycle.Singleton("queue", "queue.Consumer"),
		lifecycle.Singleton("queue", "queue.Consumer (again)"),
	)
	var e *lifecycle.SingletonError
	fmt.Println(errors.As(app.Err(), &e), e.Kind)
	// Output:
	// true queue
}
