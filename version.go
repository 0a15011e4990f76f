package main

import (
	_ "embed"
	"strings"
)

// manifest is FyneApp.toml, the one home of the product's version: `fyne
// package` stamps its Version into the package, and the binary says it
// with --version and writes it into every results file.
//
//go:embed FyneApp.toml
var manifest string

// version, when the linker sets it (`-ldflags "-X main.version=..."`),
// overrides the manifest's for a build that must say another.
var version string

// release is this build's version: version when set, else the manifest's.
func release() string {
	if version != "" {
		return version
	}
	return manifestVersion(manifest)
}

// manifestVersion is the Version of a FyneApp.toml's [Details] table ("" if
// it has none).
func manifestVersion(toml string) string {
	table := ""
	for line := range strings.Lines(toml) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			table = line
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && table == "[Details]" && strings.TrimSpace(k) == "Version" {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}
