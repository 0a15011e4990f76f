package server

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"speedmatrix/engine/launch"
	"speedmatrix/engine/servers"
)

// TestLaunchFormHasEveryUnsupportedKey: the Launch form has a field for
// every key an engine it launches does not support, which onEngine
// disables for that engine.
func TestLaunchFormHasEveryUnsupportedKey(t *testing.T) {
	test.NewTempApp(t)
	f := NewLaunchForm(func() {})
	keyed := f.keyed()
	for _, name := range launch.Servers {
		e, _ := servers.Lookup(name)
		for _, k := range e.Unsupported {
			if w, ok := keyed[k]; !ok && k != "ray_executable" {
				t.Errorf("%s's unsupported key %s has no field on the form", name, k)
			} else if ok && name == servers.SGLang {
				f.Server.SetSelected(servers.SGLangTitle)
				if !w.(interface{ Disabled() bool }).Disabled() {
					t.Errorf("%s stays enabled for SGLang", k)
				}
			}
		}
	}
}
