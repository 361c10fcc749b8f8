package fxsvc

import (
	"go.uber.org/fx"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/lifecycle"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// Errors registers RFC 9457 problem details as the app's one error format.
// It provides the *svcerrors.Responses and wraps the served router so that
// router errors (404, 405, http.Error) take the format too. Only one error
// format may be registered per app. An error no entry knows answers a 500
// and is logged (the app's *zap.Logger, else [DefaultLogger]).
func Errors(opts ...svcerrors.Option) fx.Option {
	return errorsModule("fxsvc.Errors", func(extra ...svcerrors.Option) *svcerrors.Responses {
		return svcerrors.New(append(opts, extra...)...)
	})
}

// TMFErrors registers TM Forum TMF630 bodies as the app's one error format:
// `code` is `<codePrefix>-<ANCHOR>`; referenceError is svcerrors.KindDocs
// for the kind's documentation address, another address, or "" to omit it.
func TMFErrors(codePrefix, referenceError string, opts ...svcerrors.Option) fx.Option {
	return errorsModule("fxsvc.TMFErrors", func(extra ...svcerrors.Option) *svcerrors.Responses {
		return svcerrors.NewTMF(codePrefix, referenceError, append(opts, extra...)...)
	})
}

type errorsIn struct {
	fx.In
	Spec errorsSpec
	Log  logIn
}

// errorsSpec is one registration's choice of format, private to its module
// so that two registrations reach the singleton check instead of clashing.
type errorsSpec struct {
	by    string
	build func(...svcerrors.Option) *svcerrors.Responses
}

func errorsModule(by string, build func(...svcerrors.Option) *svcerrors.Responses) fx.Option {
	return withKit(fx.Module("svc.errors",
		lifecycle.Singleton("errors", by),
		fx.Supply(fx.Private, errorsSpec{by: by, build: build}),
		fx.Provide(onlyOneErrorFormatPerApp),
		describe("errors", func(r *svcerrors.Responses, enc zapcore.ObjectEncoder) {
			format := "rfc9457"
			if r.MediaType() != svcerrors.ProblemMediaType {
				format = "tmf630"
			}
			enc.AddString("format", format)
		}),
	))
}

// onlyOneErrorFormatPerApp builds the registered format. Its name is what
// fx reports when an app registers two formats. The errors it answers with
// a 500 without knowing them are logged to the app's logger, or to
// [DefaultLogger] when the app has none: a 500 is never silent.
func onlyOneErrorFormatPerApp(in errorsIn) (*svcerrors.Responses, error) {
	log, err := in.Log.get()
	if err != nil {
		return nil, err
	}
	return in.Spec.build(svcerrors.Logger(log)), nil
}
