package fxsvc

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.uber.org/fx"
)

// settingsGroup collects each component's check of its own settings.
const settingsGroup = "svc.settings"

// settingsCheck reads and checks one component's settings (its
// environment variables and options) without building anything. fx stops
// at the first constructor that fails, so a deployment with three bad
// variables would learn of them one start at a time; [Run] and its check command
// run every component's check first and report every bad setting at once.
type settingsCheck struct {
	check func(settingsEnv) error
}

// settingsEnv is what a check may need to know of the app: whether its
// graph is built by the check command, or for a test ([ForTests]); both need fewer
// settings than a deployment. stop is where a component records its share
// of the stop budget as its settings give it, so that a budget they
// overrun is reported with the other bad settings (see withStopBudget).
type settingsEnv struct {
	check    checkOnly
	forTests bool
	stop     *stopParts
}

// checkSettings adds a component's settings check to the app.
func checkSettings(check func() error) fx.Option {
	return checkSettingsFor(func(settingsEnv) error { return check() })
}

// checkSettingsFor adds a check that depends on how the app is built.
func checkSettingsFor(check func(settingsEnv) error) fx.Option {
	return fx.Supply(fx.Annotated{Group: settingsGroup, Target: settingsCheck{check: check}})
}

// CheckSettings adds one of the app's own settings checks to those [Run]
// and its check command run before building anything, so that a bad variable of the
// app's is reported together with the components' (check's error should
// name the variable). In an app built with fx.New, where nothing runs the
// checks first, it runs where it stands in the app's options, and its
// error fails the build. A nil check is refused the same way.
func CheckSettings(check func() error) fx.Option {
	if check == nil {
		return fx.Error(errors.New("fxsvc.CheckSettings: the check is nil"))
	}
	return fx.Options(checkSettings(check), fx.Invoke(func(in checkedIn) error {
		if in.Checked != nil {
			return nil // run first with every other check
		}
		return check()
	}))
}

// settingsFound is what [Run] and its check command learn from the settings besides
// their errors: the stop parts they give (see withStopBudget), and the
// misspelt variables, found first because a typo is often why a setting
// is missing.
type settingsFound struct {
	stop     stopParts
	misspelt []misspelt
}

// settingsChecked marks an app whose settings were checked first.
type settingsChecked struct{}

type checkedIn struct {
	fx.In
	Checked *settingsChecked `optional:"true"`
}

type settingsIn struct {
	fx.In
	Checks   []settingsCheck `group:"svc.settings"`
	Mode     checkOnly       `optional:"true"`
	ForTests *forTests       `optional:"true"`
}

// settingsReport is every invalid setting of an app, each naming the
// variable or option to fix, in a stable order; [Run] and its check command print it
// before anything is built.
type settingsReport struct {
	errs []error
}

func (e *settingsReport) Error() string {
	if len(e.errs) == 1 {
		return e.errs[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d invalid settings:", len(e.errs))
	for _, err := range e.errs {
		b.WriteString("\n  ")
		b.WriteString(strings.ReplaceAll(err.Error(), "\n", "\n  "))
	}
	return b.String()
}

// Unwrap returns the errors, for errors.As and errors.Is.
func (e *settingsReport) Unwrap() []error { return e.errs }

// checkAllSettings is a module of its own placed first in the app: fx runs
// the invokes of the app's modules in order, so it runs before any
// component is built, and it sees the checks supplied anywhere in the app.
// What it learns besides errors is recorded in found.
func checkAllSettings(found *settingsFound, extra ...func() error) fx.Option {
	return fx.Module("svc.settings", fx.Supply(&settingsChecked{}), findMisspeltEnv(&found.misspelt), fx.Invoke(func(in settingsIn) error {
		return in.checkAll(&found.stop, extra...)
	}))
}

// checkAll runs every component's settings check and extra, and returns
// every bad setting at once; stop records the stop parts they give.
func (in settingsIn) checkAll(stop *stopParts, extra ...func() error) error {
	var all []error
	env := settingsEnv{check: in.Mode, forTests: in.ForTests != nil, stop: stop}
	for _, c := range in.Checks {
		all = append(all, flatten(c.check(env))...)
	}
	for _, c := range extra {
		all = append(all, flatten(c())...)
	}
	return settingsErrors(all)
}

// settingsErrors returns nil for no errors, else a *settingsReport with the
// duplicates removed (two components may read one variable) and sorted:
// fx's value groups come in no set order.
func settingsErrors(errs []error) error {
	seen := map[string]bool{}
	var out []error
	for _, err := range errs {
		if msg := err.Error(); !seen[msg] {
			seen[msg] = true
			out = append(out, err)
		}
	}
	if len(out) == 0 {
		return nil
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Error() < out[j].Error() })
	return &settingsReport{errs: out}
}

// flatten lists the errors err joins (errors.Join, *settingsReport), one
// per bad setting.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// joinErrors is errors.Join, but keeps a single error as itself so that
// errors.As and the message stay simple.
func joinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errors.Join(errs...)
}
