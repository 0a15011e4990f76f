// Package run is the Run screen: it starts and watches a run, a load test
// or a sweep (progress, the decode heatmap filling in, the GPUs, the
// server's log and output), saves it after every cell, and hands it to
// Results when it ends. It implements app.RunStarter.
package run
