package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/sweeptest"
)

// okPlan is a plan that can run.
var okPlan = engine.Plan{DecodeContexts: []int{1024}, Concurrency: []int{1}, Duration: 3e9, MaxOutputTokens: 64, API: engine.APIChat}

// savedSweep saves in a new folder the sweep of server.toml (baseTOML, in
// a folder of its own) and o, as a new sweep does; it returns the folder
// and server.toml's path.
func savedSweep(t *testing.T, o sweep.Origin, varyText string) (dir, server string) {
	t.Helper()
	dir, server = t.TempDir(), filepath.Join(t.TempDir(), "server.toml")
	if err := os.WriteFile(server, []byte(baseTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _, err := Derive(server, baseTOML, o, varyText)
	if err != nil {
		t.Fatal(err)
	}
	s := sweep.New(server, okPlan, cs, "test")
	s.ServerSHA256, s.Origin = sweep.Digest([]byte(baseTOML)), o
	if err := sweep.Save(dir, s); err != nil {
		t.Fatal(err)
	}
	return dir, server
}

// edit changes the sweep.json in dir as f says, as a hand (or someone
// else's) would.
func edit(t *testing.T, dir string, f func(m map[string]any)) {
	sweeptest.EditJSON(t, filepath.Join(dir, sweep.JSONFile), f)
}

// config is configuration i of a sweep.json being edited.
func config(m map[string]any, i int) map[string]any { return m["configs"].([]any)[i].(map[string]any) }

// TestResumeRunsNothingSweepJSONAloneSays: a resume makes the
// configurations again from server.toml and the recorded --vary options,
// and refuses a sweep.json that says otherwise, or whose plan can't run,
// before anything starts.
func TestResumeRunsNothingSweepJSONAloneSays(t *testing.T) {
	settings := func(key, value string) func(map[string]any) {
		return func(m map[string]any) { config(m, 1)["settings"] = []any{map[string]any{"key": key, "value": value}} }
	}
	mismatch := func(i int, want string) func(error) bool {
		return func(err error) bool {
			var me *MismatchError
			return errors.As(err, &me) && me.Index == i && me.Want == want
		}
	}
	many := make([]any, 2*sweep.HardMaxConfigs)
	for i := range many {
		many[i] = map[string]any{"name": fmt.Sprint(i), "folder": fmt.Sprint("f", i), "status": "Pending"}
	}
	for _, tt := range []struct {
		name  string
		edit  func(map[string]any)
		check func(error) bool
	}{
		{"as saved", func(map[string]any) {}, func(err error) bool { return err == nil }},
		{"another executable", settings("executable", `"/tmp/evil-vllm"`), mismatch(1, "max_num_seqs=4")},
		{"an API key", settings("api_key", `"sk-1"`), mismatch(1, "max_num_seqs=4")},
		{"another value", settings("max_num_seqs", "5"), mismatch(1, "max_num_seqs=4")},
		{"an unknown key", settings("max_num_seq", "4"), mismatch(1, "max_num_seqs=4")},
		{"another name", func(m map[string]any) { config(m, 2)["name"] = "fastest" }, mismatch(2, "max_num_seqs=8")},
		{"another folder", func(m map[string]any) { config(m, 2)["folder"] = "baseline-2" }, mismatch(2, "max_num_seqs=8")},
		{"one more", func(m map[string]any) {
			m["configs"] = append(m["configs"].([]any), map[string]any{"name": "x", "folder": "x", "status": "Pending"})
		}, mismatch(3, "")},
		{"one fewer", func(m map[string]any) { m["configs"] = m["configs"].([]any)[:2] }, mismatch(2, "max_num_seqs=8")},
		{"vary options with an unknown key", func(m map[string]any) { m["vary"] = []any{"max_num_seq=4,8"} },
			func(err error) bool {
				return err != nil && strings.Contains(err.Error(), "server.toml has no key max_num_seq")
			}},
		{"vary options past the hard limit", func(m map[string]any) {
			m["vary"] = []any{"max_num_seqs=" + seq(1, 40), "max_model_len=" + seq(1000, 40)}
		}, func(err error) bool { var se *SizeError; return errors.As(err, &se) && se.N == 1600 }},
		{"one list past the hard limit", func(m map[string]any) { m["vary"] = []any{"max_num_seqs=" + seq(1, 100000)} },
			// sweep.json's strings are cut to engine.MaxTextRunes as they are
			// read: the list is refused with what is left of it.
			func(err error) bool { var se *SizeError; return errors.As(err, &se) && se.N > sweep.HardMaxConfigs }},
		{"no origin", func(m map[string]any) { delete(m, "vary") }, func(err error) bool { return errors.Is(err, ErrNoOrigin) }},
		{"a plan that can't run", func(m map[string]any) { m["plan"].(map[string]any)["concurrency"] = []any{0} },
			func(err error) bool { var pe *engine.PlanError; return errors.As(err, &pe) }},
		{"two of one name", func(m map[string]any) { config(m, 2)["name"] = "max_num_seqs=4" },
			func(err error) bool {
				return err != nil && strings.Contains(err.Error(), `two configurations are named "max_num_seqs=4"`)
			}},
		{"more than a sweep runs", func(m map[string]any) { m["configs"] = append(m["configs"].([]any)[:1], many...) },
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "more than a sweep runs") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir, server := savedSweep(t, sweep.Origin{Vary: []string{"max_num_seqs=4,8"}}, "")
			edit(t, dir, tt.edit)
			s, _, err := Resume(dir, Inputs{Server: server})
			if !tt.check(err) {
				t.Fatalf("Resume = %v", err)
			}
			if err == nil && (len(s.Configs) != 3 || s.Configs[1].Settings[0] != (sweep.Setting{Key: "max_num_seqs", Value: "4"})) {
				t.Errorf("configs %+v", s.Configs)
			}
		})
	}
}

// seq is n whole numbers from first, written for --vary.
func seq(first, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprint(first + i)
	}
	return strings.Join(parts, ",")
}

// TestResumeGivenTheVaryOptions: a sweep.json without its origin (an
// earlier version's) resumes when its user gives the options again, which
// it then records; options that make other configurations are refused.
func TestResumeGivenTheVaryOptions(t *testing.T) {
	dir, server := savedSweep(t, sweep.Origin{Vary: []string{"max_num_seqs=4,8"}}, "")
	edit(t, dir, func(m map[string]any) { delete(m, "vary") })
	var me *MismatchError
	if _, _, err := Resume(dir, Inputs{Server: server, Vary: []string{"max_num_seqs=4,9"}}); !errors.As(err, &me) || me.Index != 2 {
		t.Errorf("other options: %v", err)
	}
	s, _, err := Resume(dir, Inputs{Server: server, Vary: []string{"max_num_seqs=4, 8"}})
	if err != nil || len(s.Vary) != 1 || s.Vary[0] != "max_num_seqs=4, 8" {
		t.Errorf("Resume = %+v, %v", s.Origin, err)
	}
}

// TestResumeReadsItsInputs: server.toml and the vary-file are read only
// where the user says, never where sweep.json says (whoever wrote the
// folder could have written the file it names, outside the folder, with a
// digest to match), and must be the ones the sweep began with.
func TestResumeReadsItsInputs(t *testing.T) {
	const varyText = "[small]\nmax_num_seqs = 4\n"
	vary := filepath.Join(t.TempDir(), "sweep.toml")
	o := sweep.Origin{VaryFile: vary, VaryFileSHA256: sweep.Digest([]byte(varyText))}
	inputErr := func(path string, varyFile bool, reason error) func(error) bool {
		return func(err error) bool {
			var ie *InputError
			return errors.As(err, &ie) && ie.Path == path && ie.VaryFile == varyFile && errors.Is(err, reason)
		}
	}
	missing := func(want MissingError) func(error) bool {
		return func(err error) bool { var me *MissingError; return errors.As(err, &me) && *me == want }
	}
	ok := func(err error) bool { return err == nil }
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, dir, server string) (Inputs, func(error) bool)
	}{
		{"as they were", func(_ *testing.T, _, server string) (Inputs, func(error) bool) {
			return Inputs{Server: server, VaryFile: vary}, ok
		}},
		{"neither given", func(_ *testing.T, _, server string) (Inputs, func(error) bool) {
			return Inputs{}, missing(MissingError{Server: true, VaryFile: true, ServerPath: server, VaryFilePath: vary})
		}},
		{"no server.toml", func(_ *testing.T, _, server string) (Inputs, func(error) bool) {
			return Inputs{VaryFile: vary}, missing(MissingError{Server: true, ServerPath: server})
		}},
		{"no vary-file", func(_ *testing.T, _, server string) (Inputs, func(error) bool) {
			return Inputs{Server: server}, missing(MissingError{VaryFile: true, VaryFilePath: vary})
		}},
		{"a path no one can copy", func(t *testing.T, dir, server string) (Inputs, func(error) bool) {
			edit(t, dir, func(m map[string]any) { m["server_toml"] = "/tmp/a\nb" })
			return Inputs{VaryFile: vary}, missing(MissingError{Server: true})
		}},
		{"vary options in place of the vary-file", func(_ *testing.T, _, server string) (Inputs, func(error) bool) {
			return Inputs{Server: server, Vary: []string{"max_num_seqs=4"}}, func(err error) bool { var me *MismatchError; return errors.As(err, &me) }
		}},
		{"server.toml changed", func(t *testing.T, _, server string) (Inputs, func(error) bool) {
			write(t, server, baseTOML+"max_model_len = 4096\n")
			return Inputs{Server: server, VaryFile: vary}, inputErr(server, false, ErrChanged)
		}},
		{"server.toml moved", func(t *testing.T, _, server string) (Inputs, func(error) bool) {
			return Inputs{Server: server + ".moved", VaryFile: vary}, inputErr(server+".moved", false, os.ErrNotExist)
		}},
		{"server.toml in the folder, named by its user", func(t *testing.T, dir, _ string) (Inputs, func(error) bool) {
			inside := filepath.Join(dir, "server.toml")
			write(t, inside, baseTOML)
			return Inputs{Server: inside, VaryFile: vary}, ok
		}},
		{"server.toml's text, as the app's form makes it", func(t *testing.T, _, _ string) (Inputs, func(error) bool) {
			text := baseTOML
			return Inputs{Server: "form", ServerText: &text, VaryFile: vary}, ok
		}},
		{"other text", func(t *testing.T, _, server string) (Inputs, func(error) bool) {
			text := baseTOML + "port = 1\n"
			return Inputs{Server: "form", ServerText: &text, VaryFile: vary}, inputErr("form", false, ErrChanged)
		}},
		{"no text, even where a file is named", func(t *testing.T, _, server string) (Inputs, func(error) bool) {
			text := ""
			return Inputs{Server: server, ServerText: &text, VaryFile: vary}, inputErr(server, false, ErrChanged)
		}},
		{"vary-file changed", func(t *testing.T, _, server string) (Inputs, func(error) bool) {
			write(t, vary, varyText+"[big]\nmax_num_seqs = 64\n")
			return Inputs{Server: server, VaryFile: vary}, inputErr(vary, true, ErrChanged)
		}},
		{"vary-file moved, given", func(t *testing.T, _, server string) (Inputs, func(error) bool) {
			moved := filepath.Join(t.TempDir(), "moved.toml")
			write(t, moved, varyText)
			return Inputs{Server: server, VaryFile: moved}, ok
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			write(t, vary, varyText)
			dir, server := savedSweep(t, o, varyText)
			in, check := tt.setup(t, dir, server)
			if _, text, err := Resume(dir, in); !check(err) || (err == nil && text != baseTOML) {
				t.Errorf("Resume = %v", err)
			}
		})
	}
}

// TestResumeTakesWhatRunsFromItsUser: a sweep.json that names a
// server.toml outside its folder, with the digest of its text, runs
// nothing it says: the user's own server.toml is another, and a resume
// given none reads none. Recorded vary options that choose what runs are
// refused unless the user gives them.
func TestResumeTakesWhatRunsFromItsUser(t *testing.T) {
	dir, mine := savedSweep(t, sweep.Origin{Vary: []string{"max_num_seqs=4,8"}}, "")
	evilText := "executable = \"/tmp/evil-vllm\"\n" + baseTOML
	evil := filepath.Join(t.TempDir(), "evil.toml")
	write(t, evil, evilText)
	cs, _, err := Derive(evil, evilText, sweep.Origin{Vary: []string{"max_num_seqs=4,8"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	edit(t, dir, func(m map[string]any) {
		m["server_toml"], m["server_toml_sha256"], m["configs"] = evil, sweep.Digest([]byte(evilText)), cs
	})
	var me *MissingError
	if _, _, err := Resume(dir, Inputs{}); !errors.As(err, &me) || me.ServerPath != evil {
		t.Errorf("given nothing: %v, want a *MissingError naming %s", err, evil)
	}
	if _, _, err := Resume(dir, Inputs{Server: mine}); !errors.Is(err, ErrChanged) {
		t.Errorf("given the user's own server.toml: %v, want it refused as changed", err)
	}

	dir, mine = savedSweep(t, sweep.Origin{Vary: []string{"max_num_seqs=4,8"}}, "")
	vary := []string{"executable=/tmp/evil-vllm"}
	if cs, _, err = Derive(mine, baseTOML, sweep.Origin{Vary: vary}, ""); err != nil {
		t.Fatal(err)
	}
	edit(t, dir, func(m map[string]any) { m["vary"], m["configs"] = vary, cs })
	var pe *ProgramError
	if _, _, err := Resume(dir, Inputs{Server: mine}); !errors.As(err, &pe) || strings.Join(pe.Keys, ",") != "executable" {
		t.Errorf("recorded vary options that set the executable: %v, want a *ProgramError", err)
	}
	if _, _, err := Resume(dir, Inputs{Server: mine, Vary: vary}); err != nil {
		t.Errorf("the same vary options, given by the user: %v", err)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProgramKeys: the keys that choose what runs are found wherever a
// configuration sets them.
func TestProgramKeys(t *testing.T) {
	cs := []sweep.Config{{Name: sweep.BaselineName, Baseline: true}, {Settings: []sweep.Setting{{Key: "max_num_seqs", Value: "4"}, {Key: "model", Value: `"m"`}}},
		{Settings: []sweep.Setting{{Key: "executable", Value: `"/x"`}, {Key: "model", Value: `"n"`}}}}
	if got := ProgramKeys(cs); strings.Join(got, ",") != "model,executable" {
		t.Errorf("ProgramKeys = %q", got)
	}
}

// TestNamesAreUnique: every output finds a configuration's run by its
// name, so no two share one.
func TestNamesAreUnique(t *testing.T) {
	cs := named([]sweep.Config{{Name: sweep.BaselineName, Baseline: true}, {Name: "x"}, {Name: "x"}, {Name: "x (2)"}})
	seen := map[string]bool{}
	for _, c := range cs {
		if seen[c.Name] {
			t.Errorf("two configurations are named %q: %+v", c.Name, cs)
		}
		seen[c.Name] = true
	}
}

// TestChanges: the settings between two server.toml texts, a table
// compared whole and written inline, a key left out with no value.
func TestChanges(t *testing.T) {
	from := "model = \"m\"\nport = 8000\nmax_num_seqs = 16\n\n[env]\nA = \"1\"\n"
	to := "executable = \"/x/vllm\"\nmodel = \"m\"\nmax_num_seqs = 8\n\n[env]\nA = \"1\"\nB = \"2\"\n"
	got, err := Changes(from, to)
	want := []sweep.Setting{{Key: "env", Value: `{ "A" = "1", "B" = "2" }`}, {Key: "executable", Value: `"/x/vllm"`}, {Key: "max_num_seqs", Value: "8"}, {Key: "port", Value: ""}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Changes = %q, %v; want %q", got, err, want)
	}
	if _, err := Changes("model = ", to); err == nil {
		t.Error("text that is not TOML: no error")
	}
}
