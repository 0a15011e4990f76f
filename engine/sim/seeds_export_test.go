package sim

import (
	"os"
	"testing"

	"speedmatrix/engine"
)

// The two reference reports (docs/reference) as tables: what the profiles are
// fitted to and what the tests check them against. Exported for the
// external reference test through this _test file.

// SeedCell is one decode cell of a reference report.
type SeedCell struct {
	ContextTokens, Concurrency int
	Status                     string // "Valid", "Looped" or "Over capacity"
	TotalTokPerSec             float64
}

// SeedPrefill is one prefill cell of a reference report.
type SeedPrefill struct {
	ContextTokens int
	TokPerSec     float64
}

// SeedReport is a reference report reduced to what the simulator must reproduce.
type SeedReport struct {
	File, Profile   string
	MaxOutputTokens int
	Prefill         []SeedPrefill
	Contexts        []int // decode contexts as the reference plan asked for them
	Concurrency     []int
	Cells           []SeedCell
}

const kTok = 1024

// SeedReports are reference reports 000 and 003.
var SeedReports = []SeedReport{seed000(), seed003()}

func decodeCells(contexts, conc []int, rows [][]float64, status func(ctx, c int, v float64) string) []SeedCell {
	var cells []SeedCell
	for i, ctx := range contexts {
		for j, c := range conc {
			v := rows[i][j]
			cells = append(cells, SeedCell{ctx, c, status(ctx, c, v), max(v, 0)})
		}
	}
	return cells
}

// Negative entries in the rows below: -1 Over capacity, -2 Looped.
func statusOf(_, _ int, v float64) string {
	switch v {
	case -1:
		return "Over capacity"
	case -2:
		return "Looped"
	}
	return "Valid"
}

func seed000() SeedReport {
	ctx := []int{8 * kTok, 16 * kTok, 32 * kTok, 64 * kTok, 128 * kTok}
	conc := []int{1, 2, 4, 8, 16, 32, 64, 128}
	rows := [][]float64{
		{167.7, 312.8, 617.3, 1237.5, 2329.9, 3842.2, 6270.6, 9005.7},
		{155.3, 290.8, 575.3, 1142.0, 2147.8, 3513.7, 5702.0, 7936.1},
		{138.7, 261.0, 515.8, 1004.0, 1904.8, 2976.7, 4758.9, 6138.7},
		{114.6, 218.3, 432.6, 839.6, 1599.9, 2267.4, 3439.8, 4138.5},
		{86.7, 166.7, 331.4, 640.7, 1229.5, 1562.5, 2268.0, -1},
	}
	return SeedReport{
		File: "000_1b44bfbd8dea3652.txt", Profile: "gemma-4-e2b-rtxpro6000", MaxOutputTokens: 4096,
		// The reference report's 123K and 128K prefill cells are its two largest
		// contexts; the plan asks 128K of both and the engine fits them to
		// max_model_len (123K with 4,096 output tokens, 127K with one).
		Prefill: []SeedPrefill{
			{8 * kTok, 40400}, {16 * kTok, 34800}, {32 * kTok, 25200}, {64 * kTok, 16000},
			{126720, 9534}, {128 * kTok, 9188},
		},
		Contexts: ctx, Concurrency: conc, Cells: decodeCells(ctx, conc, rows, statusOf),
	}
}

func seed003() SeedReport {
	ctx := []int{0, 16 * kTok, 32 * kTok, 64 * kTok, 128 * kTok, 248 * kTok}
	conc := []int{1, 2, 4, 8, 16, 32, 64, 128}
	rows := [][]float64{
		{119.8, -2, -2, 512.3, 743.4, 1092.4, -1, -1},
		{-2, -2, -2, -2, -2, -1, -1, -1},
		{-2, -2, -2, -2, -1, -1, -1, -1},
		{62.8, -2, -2, -1, -1, -1, -1, -1},
		{-2, 83.2, -1, -1, -1, -1, -1, -1},
		{-2, -1, -1, -1, -1, -1, -1, -1},
	}
	return SeedReport{
		File: "003_3576f9639d2e7c90.txt", Profile: "gemma-4-26b-a4b-nvfp4-rtx3090", MaxOutputTokens: 8192,
		Prefill: []SeedPrefill{
			{8 * kTok, 5438}, {16 * kTok, 4700}, {32 * kTok, 3687}, {64 * kTok, 2617}, {128 * kTok, 1645},
		},
		Contexts: ctx, Concurrency: conc, Cells: decodeCells(ctx, conc, rows, statusOf),
	}
}

// fitContext is the context the engine runs for a requested one
// (engine.FitContexts).
func fitContext(requested, maxModelLen, output int) int {
	return engine.FitContexts([]int{requested}, maxModelLen, output)[0]
}

// realTimeEnv opts in to the real-time reference runs.
const realTimeEnv = "SPEEDMATRIX_REALTIME"

// SkipUnlessRealTime skips a test whose rates depend on how busy the
// machine is, unless realTimeEnv is 1 (and neither -short nor -race, which
// slows the client and not the simulated GPU). what says what the test does.
func SkipUnlessRealTime(t *testing.T, what string) {
	t.Helper()
	switch {
	case os.Getenv(realTimeEnv) != "1":
		t.Skipf("%s: set %s=1 to run it, on a quiet machine; TestProfilesMatchSeeds checks the same agreement in virtual time", what, realTimeEnv)
	case testing.Short() || raceEnabled:
		t.Skipf("%s: not with -short or -race", what)
	}
}
