package measure

import (
	"os"
	"testing"

	"speedmatrix/engine/sim/simtest"
)

// TestMain runs more of the tests at once than there are cores: most wait
// on a simulator's or a fake server's clock (simtest.ParallelWaits).
func TestMain(m *testing.M) {
	simtest.ParallelWaits()
	os.Exit(m.Run())
}
