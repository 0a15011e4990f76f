package launch

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"speedmatrix/engine/servers"
)

// TestFlavorsMatchRegistry: Launch has a flavor for every servers.Registry
// entry that Launches and for no other (its title is the entry's), and
// every key an entry does not support is a server.toml key.
func TestFlavorsMatchRegistry(t *testing.T) {
	for name := range flavors {
		e, ok := servers.Lookup(name)
		if !ok || !e.Launches {
			t.Errorf("flavor %q: registry entry %+v", name, e)
		}
	}
	for _, name := range servers.Launchable() {
		if flavors[name] == nil {
			t.Errorf("servers.Registry's %q Launches, but no flavor registered it", name)
		}
	}
	var keys []string
	for f := range reflect.TypeFor[ServerConfig]().Fields() {
		keys = append(keys, strings.Split(f.Tag.Get("toml"), ",")[0])
	}
	for _, e := range servers.Registry {
		for _, k := range e.Unsupported {
			if !slices.Contains(keys, k) {
				t.Errorf("%s's unsupported key %q is no server.toml key", e.Name, k)
			}
		}
	}
}

// TestOnlySupported leaves out what SGLang has no flag for, and nothing of
// vLLM's.
func TestOnlySupported(t *testing.T) {
	n := 2
	cfg := ServerConfig{Model: "m", AsyncScheduling: true, RayAddress: "h:1", EnforceEager: true, KVCacheMemoryBytes: 1,
		Device: DeviceCPU, CPUKVCacheSpaceGiB: 4, CPUOMPThreadsBind: "auto", CPUNumReservedCPUs: &n, TensorParallelSize: 2}
	if got := cfg.OnlySupported(); !reflect.DeepEqual(got, cfg) {
		t.Errorf("vLLM's OnlySupported = %+v, want it unchanged", got)
	}
	cfg.Server = servers.SGLang
	want := ServerConfig{Server: servers.SGLang, Model: "m", TensorParallelSize: 2}
	if got := cfg.OnlySupported(); !reflect.DeepEqual(got, want) {
		t.Errorf("SGLang's OnlySupported = %+v, want %+v", got, want)
	}
}
