package dcgm

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/telemetry"
	"speedmatrix/engine/telemetry/telemetrytest"
)

// counterPage is node1's page with GPU 0's energy counter at gpu0 mJ and
// GPU 1's at gpu1.
func counterPage(t *testing.T, gpu0, gpu1 string) string {
	page := readFixture(t, "node1.prom")
	page = strings.Replace(page, "} 918273645123", "} "+gpu0, 1)
	return strings.Replace(page, "} 911122233344", "} "+gpu1, 1)
}

// The exporter's DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION gives a cell's
// energy where every GPU's counter rises plausibly; a counter of 1e30 is
// no reading, and the cell falls back to the power samples, saying why.
func TestDCGMEnergyCounter(t *testing.T) {
	for _, tc := range []struct {
		name       string
		gpu1       func(n int64) string
		wantMethod engine.EnergyMethod
		wantW      float64
		wantNote   string
	}{
		{"both count", func(n int64) string { return fmt.Sprint(911122233344 + n*500_000) }, engine.EnergyCounter, 600 + 500, ""},
		{"1e30", func(int64) string { return "1e30" }, engine.EnergyIntegrated, 612.345 + 598.655, "GPU 1 has no energy counter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var served atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := served.Add(1) // 1 is Open's
				_, _ = w.Write([]byte(counterPage(t, fmt.Sprint(918273645123+n*600_000), tc.gpu1(n))))
			}))
			defer srv.Close()
			clock := telemetrytest.NewClock(t0)
			src, err := open(t.Context(), []string{srv.URL}, Options{Now: clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			tel := start(context.Background(), src, time.Second, telemetry.WithClock(clock))
			for _, ok := tel.Latest(); !ok; _, ok = tel.Latest() {
				runtime.Gosched()
			}
			for range 4 {
				clock.Advance(time.Second)
			}
			tel.Stop()
			e := engine.CellEnergyOf(tel.Summary(t0.Add(time.Second), t0.Add(3*time.Second)), nil, nil, engine.PhaseDecode, 1000)
			if e == nil || e.Method != tc.wantMethod || !near(e.PowerW, tc.wantW) || e.Note != tc.wantNote {
				t.Fatalf("energy %+v: want %s, %.1f W, note %q", e, tc.wantMethod, tc.wantW, tc.wantNote)
			}
			if e.Method == engine.EnergyCounter && e.Source != engine.EnergyFromDCGM {
				t.Errorf("source %q, want %q", e.Source, engine.EnergyFromDCGM)
			}
		})
	}
}
