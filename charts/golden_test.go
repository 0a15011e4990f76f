package charts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./charts -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s changed; look at the pictures (go test ./charts -run TestPreview -preview DIR), then run with -update", path)
	}
}

// TestModelGolden pins what the charts show for each reference report: every series,
// point, cell, row and note, formatted.
func TestModelGolden(t *testing.T) {
	for _, name := range []string{"seed000", "seed003"} {
		b, err := json.MarshalIndent(BuildModel(loadSeed(t, name)), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, name+".model.json", append(b, '\n'))
	}
}

// TestLayoutGolden pins the layout of every picture: positions, sizes,
// colours and strings of each shape (not font pixels).
func TestLayoutGolden(t *testing.T) {
	for _, name := range []string{"seed000", "seed003"} {
		r := loadSeed(t, name)
		for _, kind := range Kinds {
			d, err := Draw(kind, r, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+"."+string(kind)+".txt", []byte(d.dump()))
		}
	}
	d, err := drawDelta(loadSeed(t, "seed003"), loadSeed(t, "seed000"), Options{Theme: Dark})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "delta.dark.txt", []byte(d.dump()))
}
