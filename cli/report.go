package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
)

// report implements `speedmatrix report --in FILE [--out DIR]
// [--theme light|dark] [--scale 1|2]`: it loads a saved run, or imports
// another tool's results file (llm-inference-bench, vllm bench serve,
// GuideLLM, AIPerf, inference-perf), and draws its pictures (report,
// prefill, decode heatmap, per-request; PNG and SVG) and results.csv; a
// load test's pictures (charts.LoadKinds) and load.csv. An
// import also writes report.json and report.md, so the app's History and
// this command can open it again.
func (c *CLI) report(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "", "a run's report.json or its folder, or another tool's results file (llm-inference-bench, vllm bench serve, GuideLLM, AIPerf, inference-perf)")
	out := fs.String("out", "", "folder to write to (default: the folder of --in)")
	theme := fs.String("theme", string(charts.Light), "colour theme: light or dark")
	scale := fs.Int("scale", 1, "pixel scale: 1, or 2 for high-density screens")
	var slo sloFlags
	slo.register(fs, "judge the run again, in place of its own SLO,")
	var price priceFlags
	price.register(fs, "price the run's decode cells again")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: speedmatrix report --in FILE [--out DIR] [--theme light|dark] [--scale 1|2] [--slo-ttft 2s] [--slo-itl 50ms] [--slo-percentile 99] [--slo-user-tok-s 50] [--price-per-hour 2.50] [--price-per-kwh 0.30]")
		fmt.Fprintln(fs.Output(), "Draw the charts and results.csv (a load test's load.csv) of a saved run again, or of another tool's results file (JSON:")
		fmt.Fprintln(fs.Output(), "llm-inference-bench --output, vllm bench serve --save-result, GuideLLM's benchmarks.json, AIPerf's profile_export_aiperf.json,")
		fmt.Fprintln(fs.Output(), "inference-perf's stage_N_lifecycle_metrics.json),")
		fmt.Fprintln(fs.Output(), "which is imported: its figures stay labelled as that tool's, and report.json and report.md are written too.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("report: unexpected argument %q; give the run with --in", fs.Arg(0))
	}
	if *in == "" {
		return fmt.Errorf("report: no run given: add --in with a run's report.json or its folder, or another tool's results file")
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	rejudge, err := slo.slo("report", set)
	if err != nil {
		return err
	}
	prices, err := price.prices("report", set)
	if err != nil {
		return err
	}
	opts := charts.Options{Theme: charts.Theme(*theme), Scale: *scale}
	if isSweep(*in) {
		if slo.anySet(set) || price.anySet(set) {
			return errors.New("report: --slo-ttft, --slo-itl, --slo-percentile and the price flags apply to one run: give --in one of the sweep's run folders")
		}
		return reportSweep(ctx, *in, *out, opts, stdout)
	}
	r, format, err := readRun(ctx, *in)
	var fe *report.FormatError
	switch {
	case errors.As(err, &fe):
		return fmt.Errorf("report: %w; give --in a run's report.json or one of those tools' results files", err)
	case ctx.Err() != nil:
		return errReportInterrupted
	case err != nil:
		return fmt.Errorf("report: %w", err)
	}
	dir := *out
	if dir == "" {
		dir = *in
		if st, err := os.Stat(*in); err == nil && !st.IsDir() {
			dir = filepath.Dir(*in)
		}
	}
	lock, err := lockOut(dir)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	imported := format.Imported()
	if slo.anySet(set) && r.Load != nil {
		return errors.New("report: --slo-ttft, --slo-itl and --slo-percentile judge a matrix again; a load test's goodput was counted per request while it ran: run speedmatrix load again with the SLO")
	}
	if slo.anySet(set) {
		r.Plan.SLO = rejudge
	}
	if prices != nil {
		if r.Load != nil {
			return errors.New("report: --price-per-hour and --price-per-kwh price a matrix's decode cells; a load test has none")
		}
		r.Run.Prices = prices
	}
	if imported {
		if _, err := os.Stat(filepath.Join(dir, report.JSONFile)); err == nil {
			return fmt.Errorf("report: %s already holds a run's report.json: choose another --out for the import", dir)
		}
		fmt.Fprintf(stdout, "imported %s results from %s: its figures are that tool's, not measured by Speed Matrix\n", r.Run.Imported.Label(), *in)
	}
	err = writeReport(ctx, dir, r, opts, writes{imported: imported, rejudged: !imported && slo.anySet(set), priced: !imported && prices != nil}, stdout)
	if ctx.Err() != nil {
		return errReportInterrupted
	}
	return err
}

// errReportInterrupted is report's error when SIGINT or SIGTERM stops it.
var errReportInterrupted = errors.New("report: interrupted before every file was written; each file written is whole: run it again to write them all")

// readRun is report.Read, given up as soon as ctx is done: nothing is
// written while a file is read, so there is nothing to finish.
func readRun(ctx context.Context, path string) (engine.Report, report.Format, error) {
	type read struct {
		r      engine.Report
		format report.Format
		err    error
	}
	done := make(chan read, 1)
	go func() {
		r, format, err := report.Read(path)
		done <- read{r, format, err}
	}()
	select {
	case res := <-done:
		return res.r, res.format, res.err
	case <-ctx.Done():
		return engine.Report{}, "", ctx.Err()
	}
}

// writes says which saved files report writes beside the drawn ones (each
// file's report.Again): results.csv (a load test's load.csv) always; an
// import's every file, report.json and report.md among them (so that it
// opens again); a run judged again against another SLO's, or priced with
// prices given, report.md too (its SLO or its Energy and cost section;
// report.json keeps the run as it was saved).
type writes struct {
	imported, rejudged, priced bool
}

// again reports whether report writes the saved file a.
func (w writes) again(a report.Artifact) bool {
	return w.imported || a.Again == report.Redrawn || ((w.rejudged || w.priced) && a.Again == report.Judged)
}

// writeReport writes r's files (charts.Artifacts) into dir: the drawn ones
// (the pictures and the page), then the saved ones w says. The drawn go
// first: they check the theme and scale before anything is written. It
// stops once ctx is done.
func writeReport(ctx context.Context, dir string, r engine.Report, opts charts.Options, w writes, stdout io.Writer) error {
	// The saved file written again every time comes first, then those w
	// adds: that order is the one report has always named them in.
	var drawn, saved, added []report.Artifact
	for _, a := range charts.Artifacts(r, charts.Pictures(r, opts)) {
		switch {
		case a.Stage == report.Drawn:
			drawn = append(drawn, a)
		case a.Again == report.Redrawn:
			saved = append(saved, a)
		case w.again(a):
			added = append(added, a)
		}
	}
	saved = append(saved, added...)
	for _, a := range drawn {
		if err := a.Write(ctx, dir); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	printWritten(stdout, dir, drawn)
	if err := ctx.Err(); err != nil {
		return err
	}
	var err error
	if w.imported {
		err = report.Save(dir, r) // every saved file, as a run saves them
	} else {
		for _, a := range saved {
			if err = a.Write(ctx, dir); err != nil {
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	printWritten(stdout, dir, saved)
	if w.imported {
		writeSLOLines(stdout, r)
	}
	if w.rejudged {
		judged := "no SLO"
		if r.Plan.SLO.On() {
			judged = report.SLOText(r.Plan.SLO)
		}
		fmt.Fprintf(stdout, "judged against %s; %s keeps the run's own SLO\n", judged, report.JSONFile)
		writeSLOLines(stdout, r)
	}
	if w.priced {
		fmt.Fprintf(stdout, "priced with the prices given; %s keeps the run's own\n", report.JSONFile)
		writeEnergyLines(stdout, r)
	}
	return nil
}

// printWritten says which files were written into dir, one line each; a
// picture's formats share one ("wrote DIR/report {.png,.svg}").
func printWritten(stdout io.Writer, dir string, files []report.Artifact) {
	for i := 0; i < len(files); {
		a := files[i]
		if a.Picture == "" {
			fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(dir, a.Name))
			i++
			continue
		}
		var formats []string
		for ; i < len(files) && files[i].Picture == a.Picture; i++ {
			formats = append(formats, "."+strings.TrimPrefix(files[i].Name, a.Picture+"."))
		}
		fmt.Fprintf(stdout, "wrote %s {%s}\n", filepath.Join(dir, a.Picture), strings.Join(formats, ","))
	}
}

// lockOut makes and takes the folder report writes into, as every writer
// of a run's or a sweep's folder does: a run or sweep that saves into it
// holds it, and report waits for it to end rather than write beside it.
func lockOut(dir string) (*runs.FolderLock, error) {
	l, err := runs.LockFolder(dir)
	var busy *runs.BusyError
	switch {
	case errors.As(err, &busy):
		return nil, fmt.Errorf("report: %v: wait for it to end, or give --out another folder", err)
	case err != nil:
		return nil, fmt.Errorf("report: make output folder: %w", err)
	}
	return l, nil
}

// isSweep reports whether path is a sweep's folder or its sweep.json.
func isSweep(path string) bool {
	if filepath.Base(path) == sweep.JSONFile {
		return true
	}
	_, err := os.Stat(filepath.Join(path, sweep.JSONFile))
	return err == nil
}

// reportSweep writes a sweep's summary again from its runs: sweep.json's
// answer, sweep.md, sweep.csv and its pictures, into out (default: the
// sweep's folder).
func reportSweep(ctx context.Context, in, out string, opts charts.Options, stdout io.Writer) error {
	dir := in
	if filepath.Base(in) == sweep.JSONFile {
		dir = filepath.Dir(in)
	}
	s, err := sweep.Load(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if out == "" {
		out = dir
	}
	lock, err := lockOut(out)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	got, bad := sweep.LoadRuns(dir, s)
	for name, err := range bad {
		fmt.Fprintf(stdout, "warning: the run of %s is left out: %v\n", name, err)
	}
	a := sweep.Analyze(s, got)
	s.Answer = &a
	if err := charts.WriteSweep(ctx, out, s, got, opts); err != nil {
		if ctx.Err() != nil {
			return errReportInterrupted
		}
		return fmt.Errorf("report: %w", err)
	}
	if err := sweep.WriteSummary(out, s, got, runner.EstimateBasis(s)); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s, %s and the pictures of a sweep of %s into %s\n", sweep.MDFile, sweep.CSVFile,
		engine.Count(len(s.Configs), "configuration", "configurations"), out)
	for _, ca := range a.Cells {
		fmt.Fprintf(stdout, "  %s\n", sweep.CellLine(ca))
	}
	printSweepQuality(stdout, s)
	return nil
}
