package cli

import (
	"speedmatrix/charts"
	"speedmatrix/engine"
)

// writeCharts writes the charts next to the report (a var so tests can
// leave them out).
var writeCharts = func(dir string, r engine.Report) error {
	return charts.WriteAll(dir, r)
}
