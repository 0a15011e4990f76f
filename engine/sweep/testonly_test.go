package sweep

import (
	"bytes"
	"strings"
)

type bytesBuffer struct{ bytes.Buffer }

// basis stands for what the estimate assumed (runner.EstimateBasis), which
// sweep.md's tests don't read.
const basis = "the test's assumptions"

// named gives each configuration what the runner's configurations have
// (engine/sweep/runner's named, which this package's tests can't call): a
// folder made of its name, Pending, and the keys it sets that change the
// model's output, of the two these tests set.
func named(cs []Config) []Config {
	for i := range cs {
		cs[i].Folder = strings.NewReplacer("=", "-", " ", "_").Replace(cs[i].Name)
		cs[i].Status, cs[i].ChangesOutput = StatusPending, nil
		for _, s := range cs[i].Settings {
			if s.Key == "kv_cache_dtype" || s.Key == "quantization" {
				cs[i].ChangesOutput = append(cs[i].ChangesOutput, s.Key)
			}
		}
	}
	return cs
}
