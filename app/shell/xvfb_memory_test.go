//go:build xvfb

package shell

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"speedmatrix/app"
	"speedmatrix/app/matrix"

	"fyne.io/fyne/v2"
)

// TestXvfbMemoryAfterRuns runs the Quick matrix, then a load test, against
// the simulator in a real window, and writes heap profiles and figures
// (RSS as it is, then the Go heap and RSS after a forced collection) at
// start, after each run and after a rest into MEM_PROFILES:
//
//	FYNE_CACHE=10s MEM_PROFILES=/tmp/mem LANG=en_US.UTF-8 xvfb-run -a -s '-screen 0 1440x900x24' \
//	  go test -tags xvfb -run XvfbMemoryAfterRuns -timeout 20m ./app/shell/
func TestXvfbMemoryAfterRuns(t *testing.T) {
	out := os.Getenv("MEM_PROFILES")
	if out == "" {
		t.Skip("set MEM_PROFILES")
	}
	d := realDeps()
	d.RunsDir = t.TempDir()
	u := glUI(t, d, fyne.NewSize(1280, 800), func(u *ui) { u.start() })
	until := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			ok := false
			fyne.DoAndWait(func() { ok = cond() })
			if ok {
				return
			}
		}
		t.Fatalf("timed out waiting for %s", what)
	}
	measure := func(name string) {
		time.Sleep(15 * time.Second) // frames drawn, pictures kept, Fyne's draw cache (FYNE_CACHE=10s, as the app sets) past
		rss := vmRSS(t)
		runtime.GC()
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		line := fmt.Sprintf("%-12s RSS %4d MB | after GC: heap in use %4d MB, live %4d MB, Go runtime total %4d MB, RSS %4d MB",
			name, rss>>20, ms.HeapInuse>>20, ms.HeapAlloc>>20, (ms.Sys-ms.HeapReleased)>>20, vmRSS(t)>>20)
		t.Log(line)
		f, err := os.OpenFile(filepath.Join(out, "figures.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, line)
			f.Close()
		}
		p, err := os.Create(filepath.Join(out, name+".heap"))
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if err := pprof.WriteHeapProfile(p); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(3 * time.Second)
	measure("start")
	fyne.DoAndWait(func() { u.matrix.UsePreset(app.PresetQuick); u.Show(app.TabRun); u.run.OnStart() })
	until("the Quick run to end", func() bool { return !u.run.Running() && u.results.Has && u.results.IsRendered() })
	measure("quick")
	fyne.DoAndWait(func() {
		f := u.matrix.Load
		f.Kind.SetSelected(matrix.KindLoad)
		f.Rates.SetText("20")
		f.Requests.SetText("10")
		u.Show(app.TabRun)
		u.run.OnStart()
	})
	until("the load test to end", func() bool {
		return !u.run.Running() && u.results.Has && app.IsLoad(u.results.Report) && u.results.IsRendered()
	})
	measure("load")
	fyne.DoAndWait(func() { u.matrix.Load.Kind.SetSelected(matrix.KindMatrix); u.Show(app.TabRun); u.run.OnStart() })
	until("the second Quick run to end", func() bool {
		return !u.run.Running() && u.results.Has && !app.IsLoad(u.results.Report) && u.results.IsRendered()
	})
	measure("quick2")
	time.Sleep(60 * time.Second)
	measure("rest")
}

// vmRSS is this process's resident set size.
func vmRSS(t *testing.T) uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			var kb uint64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb << 10
		}
	}
	return 0
}
