package charts

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReferenceCopies keeps testdata/seeds, the chart tests' own copies of
// the two reference reports, byte-identical to docs/reference.
func TestReferenceCopies(t *testing.T) {
	for name, original := range map[string]string{
		"seed000.txt": "000_1b44bfbd8dea3652.txt",
		"seed003.txt": "003_3576f9639d2e7c90.txt",
	} {
		a, err := os.ReadFile(filepath.Join("testdata", "seeds", name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join("..", "docs", "reference", original))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("testdata/seeds/%s differs from docs/reference/%s: copy the reference report again", name, original)
		}
	}
}
