package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/secret"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
)

// A sweep in the app: the Server screen's "Compare settings…" makes one
// of the Launch form's configurations, the Run screen runs it (runner.Runner)
// into a folder of the runs folder, History lists that folder as one entry
// and Results shows its summary. The folder holds what the CLI's --out
// holds, and server.toml: the form as it was. A resume runs what the
// Launch form says now, which must be what it said then: it never takes
// what runs from the folder, which someone else may have written.

// SweepServerFile is the server.toml of a sweep's folder: the Launch form
// as the sweep began, without its secrets. A resume reads it only to say
// how the form differs, never to run it.
const SweepServerFile = "server.toml"

// SweepJob is a sweep the Run screen is asked to run: a new one, or one
// saved in dir to resume.
type SweepJob struct {
	dir string // the sweep's folder; "" for a new sweep, whose folder the Run screen makes
	// S, base and model make a new sweep: its configurations and plan,
	// server.toml'S text, and the model its folder is named after.
	S     sweep.Sweep
	Base  string
	Model string
	// Secrets are the form's API key, HF token and secret variables, which
	// server.toml leaves out (launch.WithSecrets): in memory only, so that
	// a resumed sweep's servers get the form's keys of the day.
	Secrets launch.ServerConfig
	// FormErr is why the Launch form could not be written as server.toml
	// when a resume asked for it (base is its text otherwise).
	FormErr error
}

// Open makes the folder of a new sweep in root (started now) and writes
// its server.toml, or reads the saved sweep to resume. It returns the sweep,
// its folder and server.toml's text; its errors say what to do in the
// app's words.
func (j *SweepJob) Open(root string, now time.Time) (s sweep.Sweep, dir, base string, err error) {
	if j.dir != "" {
		return j.reopen()
	}
	dir, err = makeSweepFolder(root, now, j.Model)
	if err != nil {
		return s, "", "", fmt.Errorf("the sweep's folder could not be made in %s (check that it is writable, or choose another runs folder in Settings): %w", root, err)
	}
	path := filepath.Join(dir, SweepServerFile)
	if err := os.WriteFile(path, []byte(j.Base), 0o644); err != nil {
		return s, "", "", fmt.Errorf("%s could not be written (check that %s is writable): %w", path, dir, err)
	}
	s = j.S
	s.Server, s.ServerSHA256 = path, sweep.Digest([]byte(j.Base))
	return s, dir, j.Base, nil
}

// reopen reads the sweep saved in j.dir, with the state of each of its
// configurations from its folder (runner.Reopen), to finish it with the
// servers the Launch form starts now (j.base): they must be the ones the
// sweep began with, and the configurations those sweep.json records.
func (j *SweepJob) reopen() (s sweep.Sweep, dir, base string, err error) {
	if j.FormErr != nil {
		return s, "", "", fmt.Errorf("the Launch form could not be written as server.toml (check its fields, then Resume again): %w", j.FormErr)
	}
	path := filepath.Join(j.dir, SweepServerFile) // the runs folder may have moved since
	s, base, err = runner.Resume(j.dir, runner.Inputs{Server: path, ServerText: &j.Base})
	var (
		missing *runner.MissingError
		program *runner.ProgramError
	)
	switch {
	case errors.Is(err, runner.ErrChanged):
		return s, "", "", fmt.Errorf("this sweep began with another server: set the Launch form on the Server screen to what it was%s, then Resume again", formChanges(path, s.ServerSHA256, j.Base))
	case errors.As(err, &missing):
		return s, "", "", fmt.Errorf("this sweep was made from a vary-file, which a resume takes only from you: finish it with %s",
			launch.CommandLine(nil, []string{"speedmatrix", "sweep", "--resume", j.dir, "--launch", "SERVER.TOML", "--vary-file", "SWEEP.TOML"}, UserHome()))
	case errors.As(err, &program):
		return s, "", "", fmt.Errorf("this sweep compares %s, which chooses what runs, and a resume takes that only from you: compare settings anew from the Server screen", fieldNames(program.Keys))
	case err != nil:
		return s, "", "", err
	}
	return s, j.dir, base, nil
}

// fieldNames names server.toml keys as Compare settings… lists them
// ("model (Model)"), or as themselves where it does not offer them.
func fieldNames(keys []string) string {
	names := slices.Clone(keys)
	for i, k := range names {
		for _, f := range CompareFields {
			if f.Key == k {
				names[i] = f.Option()
			}
		}
	}
	return strings.Join(names, ", ")
}

// formChanges says what to change on the Launch form, whose server.toml
// is now form, for it to be what it was when the sweep began: the settings
// between them (runner.Changes), at most a few, each cut short. It says
// nothing where the folder's server.toml (path) is not the one sweep.json
// records (digest), which then can't say what the form was.
func formChanges(path, digest, form string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	was, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil || sweep.Digest(was) != digest {
		return ""
	}
	changes, err := runner.Changes(form, string(was))
	if err != nil || len(changes) == 0 {
		return ""
	}
	const most, width = 4, 160 // a path whole, in most cases
	var parts []string
	for _, c := range changes {
		part := c.Key + " = " + c.Value
		switch {
		case c.Value == "":
			part = "no " + c.Key
		case secret.IsName(c.Key): // not its value, whoever wrote it
			part = c.Key
		}
		if r := []rune(part); len(r) > width {
			part = string(r[:width-1]) + "…"
		}
		parts = append(parts, part)
	}
	if len(parts) > most {
		parts = append(parts[:most-1], fmt.Sprintf("%d more", len(parts)-most+1))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// makeSweepFolder makes a new folder for a sweep of model in root, named as
// runs are (runs.Folder: the time first) with "sweep-" before the model,
// and -2, -3… when the name is taken.
func makeSweepFolder(root string, now time.Time, model string) (string, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	name := runs.Folder(engine.Report{Run: engine.RunInfo{StartedAt: now, ServedModel: "sweep-" + filepath.Base(model)}})
	dir := filepath.Join(root, name)
	for n := 2; ; n++ {
		err := os.Mkdir(dir, 0o755)
		if !errors.Is(err, os.ErrExist) || n > 100 {
			return dir, err
		}
		dir = filepath.Join(root, fmt.Sprintf("%s-%d", name, n))
	}
}

// IsSweepRun reports whether the run folder dir is a configuration's of a
// sweep: its parent holds sweep.json. A sweep resumes as a whole, so such
// a run is not resumed alone.
func IsSweepRun(dir string) bool {
	if dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(filepath.Dir(dir), sweep.JSONFile))
	return err == nil
}

// CompareField is a field of the Launch form that "Compare settings…" can
// vary: its server.toml key, its label on the form and example values.
type CompareField struct{ Key, label, Example string }

// CompareFields are the form's fields that change how fast the server
// serves, each by its server.toml key (what a sweep varies and every
// output names) and the form's label.
var CompareFields = []CompareField{
	{"max_num_seqs", "Max sequences", "64, 128, 256"},
	{"gpu_memory_utilization", "GPU memory utilization", "0.85, 0.95"},
	{"max_model_len", "Max model length", "8192, 32768"},
	{"kv_cache_dtype", "KV cache data type", "auto, fp8"},
	{"enable_prefix_caching", "Prefix caching", "true, false"},
	{"async_scheduling", "async scheduling", "true, false"},
	{"enforce_eager", "enforce eager", "true, false"},
	{"tensor_parallel_size", "Tensor parallel", "1, 2"},
	{"pipeline_parallel_size", "Pipeline parallel", "1, 2"},
	{"data_parallel_size", "Data parallel", "1, 2"},
	{"quantization", "Quantization", "fp8"},
	{"dtype", "Data type", "bfloat16, float16"},
	{"attention_backend", "Attention backend", "FLASH_ATTN, FLASHINFER"},
	{"model", "Model", "Qwen/Qwen3-0.6B, Qwen/Qwen3-1.7B"},
	{"cpu_kvcache_space_gib", "KV cache space (GiB)", "8, 16"},
	{"cpu_omp_threads_bind", "OpenMP thread binding", "auto, 0-15"},
	{"extra_args", "Extra arguments", `["--seed","1"], ["--seed","2"]`},
}

// Option is how the field picker lists f: "max_num_seqs (Max sequences)".
func (f CompareField) Option() string { return f.Key + " (" + f.label + ")" }

// UserHome is the home directory paths are written under as $HOME.
func UserHome() string {
	home, _ := os.UserHomeDir()
	return home
}
