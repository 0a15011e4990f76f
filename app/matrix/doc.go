// Package matrix is the Matrix screen: the plan of a run (contexts,
// concurrency, the decode window, prefill, the SLO, the quality phase) or a
// load test, its estimate on the target, and the plan as a heatmap to come.
package matrix
