// Package fxsvc is the fx facade of svc: one constructor per component, each
// an fx.Option a service adds in one line, and [Main] to run the app.
//
//	fxsvc.Main(
//		fxsvc.Errors(),
//		fx.Provide(newRouter), // the app's own chi router (authn.NewChiRouter)
//		fxsvc.Serve(),
//	)
//
// Components open when the app starts, in the order they were given, and
// close in reverse when it stops; a component that fails to open stops the
// start with an error naming it.
package fxsvc
