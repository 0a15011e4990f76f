package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
	"speedmatrix/engine/sweep/sweeptest"
)

// savedCLISweep saves, as `sweep --launch server.toml --vary vary…` would
// before its first start-up, a sweep whose server is exe; it returns the
// sweep's folder and server.toml, which lies outside it.
func savedCLISweep(t *testing.T, exe string, vary ...string) (dir, server string) {
	t.Helper()
	base := fmt.Sprintf("executable = %q\nmodel = \"fake/model\"\nmax_num_seqs = 16\nport = 1\nstartup_timeout = \"10s\"\n", exe)
	server = filepath.Join(t.TempDir(), "server.toml")
	if err := os.WriteFile(server, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	o := sweep.Origin{Vary: vary}
	cs, _, err := runner.Derive(server, base, o, "")
	if err != nil {
		t.Fatal(err)
	}
	plan := engine.Plan{DecodeContexts: []int{1024}, Concurrency: []int{1}, Duration: 3e9, MaxOutputTokens: 64, API: engine.APIChat}
	s := sweep.New(server, plan, cs, "test")
	s.ServerSHA256, s.Origin = sweep.Digest([]byte(base)), o
	dir = filepath.Join(t.TempDir(), "sw")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := sweep.Save(dir, s); err != nil {
		t.Fatal(err)
	}
	return dir, server
}

// editJSON changes the sweep.json of dir as f says.
func editJSON(t *testing.T, dir string, f func(m map[string]any)) {
	sweeptest.EditJSON(t, filepath.Join(dir, sweep.JSONFile), f)
}

// TestSweepResumeRunsNothingSweepJSONAloneSays: a sweep.json changed to
// run another program, to carry an API key, to measure other settings or
// a plan that can't run, or to vary what runs, is refused by sweep
// --resume in one line before any server starts; the program it names
// never runs.
func TestSweepResumeRunsNothingSweepJSONAloneSays(t *testing.T) {
	t.Parallel()
	server, started := sweeptest.MarkerProgram(t, "vllm")
	evil, ran := sweeptest.MarkerProgram(t, "evil-vllm")
	setting := func(key, value string) func(map[string]any) {
		return func(m map[string]any) {
			m["configs"].([]any)[1].(map[string]any)["settings"] = []any{map[string]any{"key": key, "value": value}}
		}
	}
	edited := "sweep.json was edited; nothing was started"
	for _, tt := range []struct {
		name    string
		args    []string
		edit    func(map[string]any)
		wantErr string
	}{
		{"another executable", nil, setting("executable", fmt.Sprintf("%q", evil)),
			"sweep --resume: configuration 2 of sweep.json is not what server.toml and the sweep's vary options make there (max_num_seqs=4); " + edited},
		{"an API key", nil, setting("api_key", `"sk-evil-1"`), edited},
		{"another max_num_seqs", nil, setting("max_num_seqs", "5"), edited},
		{"an unknown key", nil, setting("max_num_seq", "4"), edited},
		{"a plan that can't run", nil, func(m map[string]any) { m["plan"].(map[string]any)["concurrency"] = []any{0} },
			"sweep --resume: sweep.json's plan can't run (invalid plan: concurrency: must be at least 1 request); " + edited},
		{"vary options that run another program", nil, func(m map[string]any) {
			m["vary"] = []any{"executable=" + evil}
			m["configs"] = m["configs"].([]any)[:1]
			cs, _, _ := runner.Derive("x", fmt.Sprintf("executable = %q\nmodel = \"m\"\n", server), sweep.Origin{Vary: []string{"executable=" + evil}}, "")
			data, _ := json.Marshal(cs[1])
			var c map[string]any
			_ = json.Unmarshal(data, &c)
			m["configs"] = append(m["configs"].([]any), c)
		}, "sweep --resume: the sweep varies executable, which chooses what runs: a resume takes it only from your command line, never from sweep.json"},
		{"more than 64 configurations without --yes", nil, func(m map[string]any) {}, "sweep --resume: 69 configurations besides the baseline, more than 64: each starts the server (minutes with vLLM); pass --yes to run them"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _ = os.Remove(started), os.Remove(ran) // each case on its own
			vary := []string{"max_num_seqs=4,8"}
			if strings.HasPrefix(tt.name, "more than 64") {
				vary = []string{"max_num_seqs=" + strings.Join(numbers(1, 70), ",")}
			}
			dir, toml := savedCLISweep(t, server, vary...)
			editJSON(t, dir, tt.edit)
			c := cliFor(t)
			c.NoGPUWait = true
			out, err := sweepCLI(t, t.Context(), append([]string{"--resume", dir, "--launch", toml}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v (output %.300q), want one line with %q", err, out, tt.wantErr)
			}
			for _, marker := range []string{started, ran} {
				if _, err := os.Stat(marker); err == nil {
					t.Errorf("%s ran", filepath.Base(marker))
				}
			}
			if strings.Contains(out+fmt.Sprint(err), "sk-evil-1") {
				t.Errorf("the key is shown: %v\n%s", err, out)
			}
		})
	}
}

// TestSweepResumeTakesWhatRunsFromTheCommandLine: a shared sweep folder
// whose sweep.json names a server.toml outside it, with the digest of its
// text and an executable of its own, runs nothing: --resume without
// --launch asks for the user's server.toml in one line, naming the path
// to check, and the user's own server.toml is refused as changed.
func TestSweepResumeTakesWhatRunsFromTheCommandLine(t *testing.T) {
	t.Parallel()
	evil, ran := sweeptest.MarkerProgram(t, "evil-vllm")
	mine, started := sweeptest.MarkerProgram(t, "vllm")
	_, myTOML := savedCLISweep(t, mine, "max_num_seqs=4,8")
	vary := filepath.Join(t.TempDir(), "my sweep.toml")
	if err := os.WriteFile(vary, []byte("[small]\nmax_num_seqs = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		args    []string
		edit    func(map[string]any)
		wantErr string // EVIL stands for the path sweep.json names
	}{
		{"no --launch", nil, nil,
			"sweep --resume: give the server.toml the sweep began with: --launch EVIL (a resume never takes what runs from the sweep's files)"},
		{"no --launch, a path no one can copy", nil, func(m map[string]any) { m["server_toml"] = strings.Repeat("/x", 3000) },
			"sweep --resume: give the server.toml the sweep began with: --launch SERVER.TOML (a resume never takes what runs from the sweep's files)"},
		{"no --vary-file", []string{"--launch", myTOML}, func(m map[string]any) {
			m["vary_file"], m["vary_file_sha256"] = vary, "0"
		}, "sweep --resume: give the vary-file the sweep began with: --vary-file '" + vary + "' (a resume never takes what runs from the sweep's files)"},
		{"neither", nil, func(m map[string]any) { m["vary_file"] = vary },
			"sweep --resume: give the server.toml and vary-file the sweep began with: --launch EVIL --vary-file '" + vary + "' (a resume"},
		{"the user's own server.toml", []string{"--launch", myTOML}, nil,
			"sweep --resume: " + myTOML + " changed since the sweep began: restore it, or begin a new sweep with another --out"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir, evilTOML := savedCLISweep(t, evil, "max_num_seqs=4,8")
			if tt.edit != nil {
				editJSON(t, dir, tt.edit)
			}
			c := cliFor(t)
			c.NoGPUWait = true
			out, err := sweepCLI(t, t.Context(), append([]string{"--resume", dir}, tt.args...)...)
			want := strings.ReplaceAll(tt.wantErr, "EVIL", evilTOML)
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v (output %.300q), want one line with %q", err, out, want)
			}
			for _, marker := range []string{started, ran} {
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("%s ran", filepath.Base(marker))
				}
			}
		})
	}
}

// numbers are n whole numbers from first, as text.
func numbers(first, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint(first + i)
	}
	return out
}

// TestSweepKeepsSecretsOutOfEverything: the two ways round the key rules
// of issue 37 are refused in one line, and the key appears nowhere: not in
// the console, not in a file of the sweep's folder, not in its name.
func TestSweepKeepsSecretsOutOfEverything(t *testing.T) {
	t.Parallel()
	exe, started := sweeptest.MarkerProgram(t, "vllm")
	server := filepath.Join(t.TempDir(), "server.toml")
	if err := os.WriteFile(server, fmt.Appendf(nil, "executable = %q\nmodel = \"m\"\nport = 1\n", exe), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, vary, key, wantErr string }{
		{"secret variable", `env={ VLLM_API_KEY = "sk-X-issue37" }`, "sk-X-issue37", "sweep: --vary env: env VLLM_API_KEY is a secret and can't vary"},
		{"secret flag as the model", "model=--api-key=sk-Y-issue37", "sk-Y-issue37", "sweep: --vary model: model holds --api-key, whose value is a secret"},
	} {
		t.Run(tt.name, func(t *testing.T) { // not the key: the test's folders are named after it
			out := filepath.Join(t.TempDir(), "sw")
			console, err := sweepCLI(t, t.Context(), "--launch", server, "--vary", tt.vary, "--out", out,
				"--contexts", "1K", "--concurrency", "1", "--prefill-contexts", "none", "--precision", "off", "--duration", "3s")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v, want one line with %q", err, tt.wantErr)
			}
			if strings.Contains(console+fmt.Sprint(err), tt.key) {
				t.Errorf("the console shows the key:\n%s%v", console, err)
			}
			if _, err := os.Stat(started); err == nil {
				t.Error("a server started")
			}
			_ = filepath.WalkDir(filepath.Dir(out), func(path string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				data, _ := os.ReadFile(path)
				if strings.Contains(path, tt.key) || (!d.IsDir() && strings.Contains(string(data), tt.key)) {
					t.Errorf("%s holds the key", path)
				}
				return nil
			})
		})
	}
}

// TestReportWaitsForARunningSweep: report --in of a sweep that is running
// (its folder locked) writes nothing and says why, as every writer of a
// run's folder does.
func TestReportWaitsForARunningSweep(t *testing.T) {
	t.Parallel()
	exe, _ := sweeptest.MarkerProgram(t, "vllm")
	dir, _ := savedCLISweep(t, exe, "max_num_seqs=4")
	lock, err := runs.LockFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	err = cliFor(t).report(t.Context(), []string{"--in", dir}, &out, &out)
	want := "report: another speedmatrix run is saving into " + dir + ": wait for it to end, or give --out another folder"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, sweep.MDFile)); err == nil {
		t.Error("report wrote sweep.md into a running sweep's folder")
	}
	lock.Unlock()
	noCharts(t)
	cliFor(t).WriteSweepCharts = nil
	if err := cliFor(t).report(t.Context(), []string{"--in", dir}, &out, &out); err != nil {
		t.Fatalf("once the sweep ended: %v\n%s", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, sweep.MDFile)); err != nil {
		t.Errorf("once the sweep ended: %v", err)
	}
}
