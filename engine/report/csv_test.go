package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestCSVSaysWhatWasMeasured: every row of results.csv says whether the
// run was simulated and what it measured, password hidden, after the 17
// columns it always had.
func TestCSVSaysWhatWasMeasured(t *testing.T) {
	simulated := seedReport()
	simulated.Server.Simulated, simulated.Server.SimProfile = true, "tiny"
	secretURL := seedReport()
	secretURL.Run.Endpoint = "http://bench:hunter2@gpu-box:8000/v1"
	for _, c := range []struct {
		name              string
		csv               string
		simulated, target string
	}{
		{"simulated", writeCSVString(t, simulated), "true", "sim:tiny"},
		{"endpoint", writeCSVString(t, seedReport()), "false", "http://127.0.0.1:8000"},
		{"endpoint with a password", writeCSVString(t, secretURL), "false", "http://bench:<redacted>@gpu-box:8000/v1"},
	} {
		if strings.Contains(c.csv, "hunter2") {
			t.Errorf("%s: results.csv shows the password", c.name)
		}
		rows, err := csv.NewReader(strings.NewReader(c.csv)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1+len(seedReport().Results) || rows[0][17] != "simulated" || rows[0][18] != "target" {
			t.Fatalf("%s: %d rows, header %q", c.name, len(rows), rows[0])
		}
		for _, row := range rows[1:] {
			if len(row) != len(CSVHeader) || row[17] != c.simulated || row[18] != c.target {
				t.Errorf("%s: row %q, want simulated %s and target %s at the end", c.name, row, c.simulated, c.target)
			}
		}
	}
}

// writeCSVString is results.csv of r.
func writeCSVString(t *testing.T, r engine.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
