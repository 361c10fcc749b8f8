package otelcore

import (
	"reflect"
	"strings"
)

// Field describes one Config field for error messages.
type Field struct {
	Spec   string // setting name, e.g. "export_interval"
	GoName string // Config field name
	Option string // the option setting it
}

// Fields is a signal's table of its Config fields.
type Fields []Field

// BySpec returns the field named spec; an unknown name stands for itself
// in every role, so a message still names something.
func (fs Fields) BySpec(spec string) Field {
	for _, f := range fs {
		if f.Spec == spec {
			return f
		}
	}
	return Field{Spec: spec, GoName: spec, Option: spec}
}

// Keys maps the fields of the struct type rt to their variables under
// prefix, for ReadEnv.
func (fs Fields) Keys(rt reflect.Type, prefix string) KeyTable {
	t := KeyTable{}
	for _, f := range fs {
		t.add(rt, prefix, f.GoName, f.Spec)
	}
	return t
}

// Setting names where the value of spec came from: its entry in src (an
// environment variable or an option), else "Config.<Field>".
func (fs Fields) Setting(src map[string]string, spec string) string {
	if n, ok := src[spec]; ok {
		return n
	}
	return "Config." + fs.BySpec(spec).GoName
}

// PartnerSetting names the unset partner missing of the set field present
// the way present was given: a variable under envPrefix beside a variable,
// an option beside an option, Config.X beside Config.Y.
func (fs Fields) PartnerSetting(src map[string]string, present, missing, envPrefix string) string {
	switch n := fs.Setting(src, present); {
	case strings.HasPrefix(n, envPrefix):
		return envPrefix + strings.ToUpper(missing)
	case n == fs.BySpec(present).Option:
		return fs.BySpec(missing).Option
	}
	return "Config." + fs.BySpec(missing).GoName
}
