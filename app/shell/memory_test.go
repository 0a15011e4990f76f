package shell

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
)

// TestDrawCacheEnv: the app starts again with a short draw cache lifetime
// once, and never over the user's own FYNE_CACHE.
func TestDrawCacheEnv(t *testing.T) {
	env, again := drawCacheEnv([]string{"HOME=/h", "LANG=C"})
	if !again || !slices.Equal(env, []string{"HOME=/h", "LANG=C", "FYNE_CACHE=" + drawCacheLifetime}) {
		t.Errorf("without FYNE_CACHE: %q, again %v", env, again)
	}
	if _, again := drawCacheEnv(env); again {
		t.Error("started again although FYNE_CACHE is set: it would loop")
	}
	if env, again := drawCacheEnv([]string{"FYNE_CACHE=1m"}); again || env[0] != "FYNE_CACHE=1m" {
		t.Errorf("the user's FYNE_CACHE was not kept: %q", env)
	}
}

// TestRunMemoryLimit: a run gets a soft limit of what the runtime holds
// plus the headroom, and the limit is lifted when the run ends.
func TestRunMemoryLimit(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: the app leaves it alone")
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	lift := limitRunMemory()
	limit := debug.SetMemoryLimit(-1)
	if held := int64(m.Sys - m.HeapReleased); limit < runMemoryHeadroom || limit > held+2*runMemoryHeadroom {
		t.Errorf("limit %d MB with %d MB held, want about %d MB more", limit>>20, held>>20, runMemoryHeadroom>>20)
	}
	lift()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after the run the limit is %d, want none", got)
	}
}
