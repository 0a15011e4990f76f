// Package dcgmtest serves engine/dcgm's DCGM exporter fixtures (pages in
// the exporter's real text format) to the tests of packages that read
// exporters.
package dcgmtest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Exporter serves the fixture name (a file in engine/dcgm/testdata) until
// the test ends, and returns its metrics URL.
func Exporter(t testing.TB, name string) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	page, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(page) }))
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}
