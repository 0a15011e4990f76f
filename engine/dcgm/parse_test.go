package dcgm

import (
	"errors"
	"math"
	"os"
	"testing"
)

func readFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseExporterPage(t *testing.T) {
	rs, err := parse(readFixture(t, "node2.prom"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("got %d GPUs, want 2", len(rs))
	}
	g := rs[1]
	if g.Host != "node2" || g.GPU != 1 || g.UUID != "GPU-9e4b2c6a-1d8f-3e7a-c4b9-7a2d6f0e1c44" ||
		g.Model != "NVIDIA H100 80GB HBM3" || g.Driver != "550.90.07" {
		t.Errorf("labels: %+v", g)
	}
	if g.PowerW != 699.9 || g.UtilizationPct != 97 || g.TemperatureC != 71 || g.SMClockMHz != 1755 ||
		g.MemClockMHz != 2619 || g.FBUsedMiB != 76276 || g.FBFreeMiB != 4390 {
		t.Errorf("figures: %+v", g)
	}
	if g.vramMiB() != 76276+4390+583 {
		t.Errorf("VRAM %v MiB, want used+free+reserved", g.vramMiB())
	}
	if g.PCIeRxMBs != 1210 {
		t.Errorf("PCIe rx %v MB/s, want 1210 (the field is bytes/s)", g.PCIeRxMBs)
	}
	if !g.ClockEventsRead || g.ClockEventReasons != 4 || !rs[0].ClockEventsRead || rs[0].ClockEventReasons != 0 {
		t.Errorf("clock events: %+v / %+v", g, rs[0])
	}
}

func TestParseCases(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		gpus    int
		wantErr error
		check   func(t *testing.T, rs []reading)
	}{
		{name: "garbage", text: "<html>502 Bad Gateway</html>\n", wantErr: errNotExporter},
		{name: "empty", text: "", wantErr: errNotExporter},
		{name: "node exporter", text: "node_load1 0.5\nnode_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 12\n", wantErr: errNotExporter},
		{name: "MIG instances only", text: `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",GPU_I_ID="1",GPU_I_PROFILE="1g.10gb"} 5` + "\n", wantErr: errNotExporter},
		{name: "no gpu label", text: `DCGM_FI_DEV_GPU_UTIL{UUID="GPU-a"} 5` + "\n", wantErr: errNotExporter},
		{
			name: "bad lines skipped", gpus: 1,
			text: "garbage line\n" + `DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-a"} 300.5` + "\n" + `DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-a" 5` + "\n",
			check: func(t *testing.T, rs []reading) {
				if rs[0].PowerW != 300.5 || !math.IsNaN(rs[0].TemperatureC) || rs[0].vramMiB() != 0 || rs[0].ClockEventsRead {
					t.Errorf("%+v: want power only", rs[0])
				}
			},
		},
		{
			name: "new reasons name wins", gpus: 1,
			text: `DCGM_FI_DEV_CLOCKS_EVENT_REASONS{gpu="0",UUID="GPU-a"} 8` + "\n" + `DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{gpu="0",UUID="GPU-a"} 4` + "\n",
			check: func(t *testing.T, rs []reading) {
				if rs[0].ClockEventReasons != 8 {
					t.Errorf("reasons %d, want 8 from DCGM_FI_DEV_CLOCKS_EVENT_REASONS", rs[0].ClockEventReasons)
				}
			},
		},
		{
			name: "no UUID: keyed by gpu", gpus: 2,
			text: `DCGM_FI_DEV_GPU_UTIL{gpu="0"} 5` + "\n" + `DCGM_FI_DEV_GPU_UTIL{gpu="1"} 6` + "\n" + `DCGM_FI_DEV_POWER_USAGE{gpu="1"} 70` + "\n",
			check: func(t *testing.T, rs []reading) {
				if rs[1].UtilizationPct != 6 || rs[1].PowerW != 70 || rs[1].GPU != 1 {
					t.Errorf("%+v", rs[1])
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := parse(tc.text)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if len(rs) != tc.gpus {
				t.Fatalf("got %d GPUs, want %d", len(rs), tc.gpus)
			}
			if tc.check != nil {
				tc.check(t, rs)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(readFixture(f, "node1.prom"))
	f.Add(`DCGM_FI_DEV_CLOCKS_EVENT_REASONS{gpu="0",UUID="GPU-a"} 8`)
	f.Add("garbage line\n")
	f.Fuzz(func(t *testing.T, text string) {
		rs, err := parse(text)
		if (err == nil) != (len(rs) > 0) {
			t.Fatalf("err %v with %d readings", err, len(rs))
		}
	})
}
