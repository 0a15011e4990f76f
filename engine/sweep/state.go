package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// maxJSONBytes bounds what Load reads of a sweep.json: 64 configurations
// of a few settings each take a few tens of KB, so a larger file is not
// one a sweep wrote.
const maxJSONBytes = 8 << 20

// New is a sweep of cs, the baseline first, measuring plan against the
// server.toml at server.
func New(server string, plan engine.Plan, cs []Config, tool string) Sweep {
	return Sweep{FormatVersion: formatVersion, Tool: tool, Server: server, Plan: plan, Configs: cs}
}

// Save writes s into dir as sweep.json, atomically.
func Save(dir string, s Sweep) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("save sweep: %w", err)
	}
	return report.WriteFileAtomic(filepath.Join(dir, JSONFile), append(data, '\n'))
}

// Load reads the sweep.json of a sweep's folder (or the file itself) and
// checks that it is one a sweep could write.
func Load(path string) (Sweep, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, JSONFile)
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Sweep{}, fmt.Errorf("%s not found: give the folder of a sweep", path)
	}
	if err != nil {
		return Sweep{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxJSONBytes+1))
	if err != nil {
		return Sweep{}, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxJSONBytes {
		return Sweep{}, fmt.Errorf("%s is larger than any sweep.json (%d MiB): it is not a sweep's", path, maxJSONBytes>>20)
	}
	var s Sweep
	if err := json.Unmarshal(data, &s); err != nil {
		return Sweep{}, fmt.Errorf("%s is not a sweep.json: %w", path, err)
	}
	engine.BoundStrings(&s) // a shared sweep folder is anyone's file
	if problem := s.problem(); problem != "" {
		return Sweep{}, fmt.Errorf("%s is not a sweep this build can read: %s", path, problem)
	}
	return s, nil
}

// problem is why s is not a sweep a sweep writes; "" when it is.
func (s Sweep) problem() string {
	switch {
	case s.FormatVersion != formatVersion:
		return fmt.Sprintf("format version %d (this build reads %d)", s.FormatVersion, formatVersion)
	case len(s.Configs) == 0 || !s.Configs[0].Baseline:
		return "its first configuration is not the baseline"
	case len(s.Configs) > HardMaxConfigs+1:
		return fmt.Sprintf("%d configurations, more than a sweep runs (%d and the baseline)", len(s.Configs), HardMaxConfigs)
	case s.Prior.problem() != "":
		return s.Prior.problem()
	case s.qualityProblem() != "":
		return s.qualityProblem()
	}
	seen, names := map[string]bool{}, map[string]bool{}
	for _, c := range s.Configs {
		if c.Folder == "" || c.Folder != filepath.Base(c.Folder) || c.Folder == "." || c.Folder == ".." || seen[c.Folder] {
			return fmt.Sprintf("configuration %q has folder %q", c.Name, c.Folder)
		}
		// Every output finds a configuration's run by its name: two of one
		// name would show one run's figures twice.
		if names[c.Name] {
			return fmt.Sprintf("two configurations are named %q", c.Name)
		}
		seen[c.Folder], names[c.Name] = true, true
	}
	return ""
}

// RunDir is the run folder of configuration c in the sweep's folder dir.
func RunDir(dir string, c Config) string { return filepath.Join(dir, c.Folder) }

// LoadRuns reads the run of every configuration that has one, keyed by
// its name. A run that can't be read is left out, with its error.
func LoadRuns(dir string, s Sweep) (map[string]engine.Report, map[string]error) {
	got, bad := map[string]engine.Report{}, map[string]error{}
	for _, c := range s.Configs {
		p := filepath.Join(RunDir(dir, c), report.JSONFile)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		r, err := report.Load(p)
		if err != nil {
			bad[c.Name] = err
			continue
		}
		got[c.Name] = r
	}
	return got, bad
}
