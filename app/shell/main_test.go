//go:build !xvfb

package shell

import (
	"os"
	"testing"
)

// TestMain runs the tests with the app's draw-cache lifetime, as Main does
// (withDrawCacheLifetime starts the test binary again with FYNE_CACHE set):
// with Fyne's default minute, the renderers of every window made in the
// last minute stay in its cache (apptest.NewTempApp).
func TestMain(m *testing.M) {
	withDrawCacheLifetime()
	os.Exit(m.Run())
}
