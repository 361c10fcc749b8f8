package otelcore

import (
	"fmt"
	"strings"
	"testing"
)

func TestRegistryRefusesASecondRegistration(t *testing.T) {
	r := NewRegistry[int]("metrics")
	r.Register("console", 1)
	if f, ok := r.Lookup("console"); !ok || f != 1 || !r.Linked("console") || r.Linked("otlp-grpc") {
		t.Fatalf("lookup after one registration: %v %v", f, ok)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "metrics: exporter console registered twice") {
			t.Fatalf("recovered %v, want the second registration refused", p)
		}
	}()
	r.Register("console", 2)
}

// The last one installed is current; removing it hands back to the one
// before, and the state saved by the first install comes back after the
// last, whatever the order of removal.
func TestInstallerOrder(t *testing.T) {
	var log []string
	in := Installer[string]{
		Save:    func() { log = append(log, "save") },
		Restore: func() { log = append(log, "restore") },
		Switch:  func(s string) { log = append(log, "switch "+s) },
	}
	in.Install("a", func() {})
	in.Install("b", func() {})
	in.Uninstall("a")
	in.Uninstall("zz")
	in.Uninstall("b")
	want := "save,switch a,switch b,switch b,switch ,restore"
	if got := strings.Join(log, ","); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
