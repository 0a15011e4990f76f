package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// allowedImports is the layout's import rule, and its one home: the Speed
// Matrix packages each package may import (tests may import more). README's
// Layout and METHODOLOGY's table describe it. Front ends (app, cli) sit on
// top and nothing imports them but main and app's own packages (a screen,
// the widgets and the shell that wires them import app, the shell every
// screen, and no screen another); engine, the domain, is at the
// bottom and imports no Speed Matrix package; hw and charts read engine's
// types. Nesting means one thing (checked below, whatever the table says):
// no package imports a package in a folder inside its own. Nothing under
// engine reaches up to hw, directly or through another package (checked
// below too): the domain samples hardware through engine/telemetry's
// Sources, and only hw needs NVML and gopsutil.
var allowedImports = map[string][]string{
	"":                               {"app", "app/locale", "app/shell", "cli"},
	"app":                            {"charts", "engine", "engine/dcgm", "engine/launch", "engine/measure", "engine/openai", "engine/quality", "engine/report", "engine/roofline", "engine/runs", "engine/secret", "engine/sim", "engine/sweep", "engine/sweep/runner", "engine/telemetry"},
	"app/apptest":                    {},
	"app/hardware":                   {"app", "app/widget", "engine", "engine/report", "engine/simtarget"},
	"app/history":                    {"app", "app/widget", "charts", "engine", "engine/quality", "engine/report", "engine/runs", "engine/sweep"},
	"app/matrix":                     {"app", "app/widget", "engine", "engine/measure", "engine/quality", "engine/quality/probe", "engine/report", "engine/runs", "engine/trace"},
	"app/results":                    {"app", "app/widget", "charts", "engine", "engine/report", "engine/runs", "engine/sweep", "engine/sweep/runner"},
	"app/run":                        {"app", "app/widget", "engine", "engine/launch", "engine/measure", "engine/openai", "engine/quality", "engine/quality/probe", "engine/report", "engine/runs", "engine/secret", "engine/simtarget", "engine/sweep", "engine/sweep/runner", "engine/telemetry"},
	"app/server":                     {"app", "app/widget", "engine", "engine/capture", "engine/dcgm", "engine/hfcache", "engine/launch", "engine/measure", "engine/openai", "engine/quality", "engine/quality/probe", "engine/report", "engine/runs", "engine/secret", "engine/servers", "engine/sim", "engine/simtarget", "engine/sweep", "engine/sweep/runner", "engine/telemetry"},
	"app/settings":                   {"app", "app/widget", "engine"},
	"app/shell":                      {"app", "app/hardware", "app/history", "app/matrix", "app/results", "app/run", "app/server", "app/settings", "app/widget", "assets", "charts", "engine", "engine/capture", "engine/launch", "engine/measure", "engine/openai", "engine/report", "engine/sim", "engine/simtarget", "engine/sweep", "hw"},
	"app/widget":                     {"app", "charts", "engine", "engine/measure", "engine/report", "engine/sweep", "engine/telemetry"},
	"assets":                         {},
	"charts":                         {"engine", "engine/report", "engine/secret", "engine/sweep"},
	"cli":                            {"charts", "engine", "engine/capture", "engine/dcgm", "engine/launch", "engine/measure", "engine/openai", "engine/quality", "engine/quality/probe", "engine/report", "engine/roofline", "engine/runs", "engine/secret", "engine/servers", "engine/sim", "engine/simtarget", "engine/sweep", "engine/sweep/runner", "engine/telemetry", "engine/trace", "hw"},
	"engine":                         {},
	"engine/capture":                 {"engine", "engine/launch", "engine/secret", "engine/servers"},
	"engine/dcgm":                    {"engine", "engine/openai", "engine/secret", "engine/telemetry"},
	"engine/dcgm/dcgmtest":           {},
	"engine/hfcache":                 {},
	"engine/launch":                  {"engine", "engine/hfcache", "engine/measure", "engine/roofline", "engine/secret", "engine/servers"},
	"engine/measure":                 {"engine", "engine/openai", "engine/secret", "engine/servers", "engine/trace"},
	"engine/trace":                   {"engine"},
	"engine/quality":                 {"engine"},
	"engine/quality/probe":           {"engine", "engine/openai", "engine/quality"},
	"engine/openai":                  {"engine", "engine/secret"},
	"engine/report":                  {"engine", "engine/secret", "engine/servers"},
	"engine/roofline":                {"engine", "engine/hfcache"},
	"engine/runs":                    {"engine", "engine/measure", "engine/openai", "engine/quality", "engine/quality/probe", "engine/report", "engine/roofline"},
	"engine/sweep":                   {"engine", "engine/quality", "engine/report"},
	"engine/sweep/runner":            {"engine", "engine/launch", "engine/measure", "engine/openai", "engine/quality", "engine/quality/probe", "engine/report", "engine/runs", "engine/secret", "engine/sweep", "engine/telemetry"},
	"engine/sweep/sweeptest":         {},
	"engine/secret":                  {},
	"engine/servers":                 {"engine/openai"},
	"engine/sim":                     {"engine", "engine/roofline"},
	"engine/sim/simtest":             {"engine/sim"},
	"engine/simtarget":               {"engine", "engine/measure", "engine/servers", "engine/sim", "engine/telemetry"},
	"engine/telemetry":               {"engine"},
	"engine/telemetry/telemetrytest": {},
	"hw":                             {"engine", "engine/secret", "engine/servers", "engine/telemetry"},
	"hw/nvmlmock":                    {},
	"app/locale":                     {},
}

// fynePackages may depend on Fyne; everything else runs headless (the CLI,
// the tests, CI).
var fynePackages = []string{"", "app", "app/apptest", "app/history", "app/hardware", "app/matrix", "app/results", "app/run", "app/server", "app/settings", "app/shell", "app/widget"}

// TestImportRules checks the import graph that `go list` shows against
// allowedImports, and that no package but app's (and main) depends on Fyne,
// directly or through another package.
func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \",\"}}|{{join .Deps \",\"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		fields := strings.Split(strings.TrimSpace(line), "|")
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], "speedmatrix"), "/")
		allowed, known := allowedImports[pkg]
		if !known {
			t.Errorf("package %q is not in allowedImports: add it with what it may import, and describe it in README's Layout", pkg)
			continue
		}
		seen++
		for _, imp := range strings.Split(fields[1], ",") {
			own, ok := strings.CutPrefix(imp, "speedmatrix/")
			if ok && !slices.Contains(allowed, own) {
				t.Errorf("%s imports %s, which the layout does not allow (allowedImports)", fields[0], imp)
			}
			if ok && strings.HasPrefix(pkg, "app/") && pkg != "app/shell" && strings.HasPrefix(own, "app/") && own != "app/widget" {
				t.Errorf("%s imports %s: a screen imports app and app/widget, never another screen; it asks another screen through a small interface that app/shell connects", fields[0], imp)
			}
			if ok && pkg != "" && strings.HasPrefix(own, pkg+"/") {
				t.Errorf("%s imports %s, a package inside its own folder: a folder inside a package holds what builds on it, so move what %s needs up into it", fields[0], imp, pkg)
			}
		}
		if underEngine(pkg) {
			for _, dep := range strings.Split(fields[2], ",") {
				if dep == "speedmatrix/hw" || strings.HasPrefix(dep, "speedmatrix/hw/") {
					t.Errorf("%s depends on %s: nothing under engine may reach up to hw (NVML, gopsutil); give it an engine/telemetry Source instead", fields[0], dep)
				}
			}
		}
		if slices.Contains(fynePackages, pkg) {
			continue
		}
		for _, dep := range strings.Split(fields[2], ",") {
			if strings.HasPrefix(dep, "fyne.io/") {
				t.Errorf("%s depends on Fyne (%s): only app and its packages may, so that the CLI, the tests and CI run headless", fields[0], dep)
				break
			}
		}
	}
	for pkg, allowed := range allowedImports {
		if underEngine(pkg) && slices.ContainsFunc(allowed, func(imp string) bool { return imp == "hw" || strings.HasPrefix(imp, "hw/") }) {
			t.Errorf("allowedImports lets %s import hw: nothing under engine may reach up to hw", pkg)
		}
	}
	if seen < len(allowedImports) {
		t.Errorf("go list showed %d of the %d packages in allowedImports: remove the ones that are gone", seen, len(allowedImports))
	}
}

// underEngine reports whether pkg (a path below the module) is engine or
// a package under it.
func underEngine(pkg string) bool { return pkg == "engine" || strings.HasPrefix(pkg, "engine/") }
