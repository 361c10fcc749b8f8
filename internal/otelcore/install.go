package otelcore

import (
	"slices"
	"sync"
)

// Installer makes one signal's open, active components global in turn:
// the last one opened is the one the global provider forwards to, and
// what was global before the first is put back after the last.
type Installer[T comparable] struct {
	// Mu guards the installer and whatever the signal keeps global beside
	// it.
	Mu    sync.Mutex
	stack []T
	// Save remembers what is global as the first component is installed;
	// Restore puts it back after the last is uninstalled.
	Save, Restore func()
	// Switch makes t the one the global forwards to; the zero T: none.
	Switch func(t T)
}

// Install puts t on top and makes it current, then runs also; all under
// Mu.
func (in *Installer[T]) Install(t T, also func()) {
	in.Mu.Lock()
	defer in.Mu.Unlock()
	if len(in.stack) == 0 {
		in.Save()
	}
	in.stack = append(in.stack, t)
	in.Switch(t)
	also()
}

// Uninstall takes t out: the latest one still installed becomes current,
// and with none left what Save remembered is restored. An unknown t is
// ignored.
func (in *Installer[T]) Uninstall(t T) {
	in.Mu.Lock()
	defer in.Mu.Unlock()
	i := slices.Index(in.stack, t)
	if i < 0 {
		return
	}
	in.stack = slices.Delete(in.stack, i, i+1)
	var top T
	if n := len(in.stack); n > 0 {
		top = in.stack[n-1]
	}
	in.Switch(top)
	if len(in.stack) == 0 {
		in.Restore()
	}
}
