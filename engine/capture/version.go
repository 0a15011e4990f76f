package capture

import (
	"path/filepath"
	"regexp"
	"strings"
)

// venvVersion is the version of vLLM installed in the virtual environment
// the command runs from ("0.30.1rc1.dev452+g73a583112"): the program (or,
// for `python .../bin/vllm`, the script) lives in VENV/bin, and pip records
// the package as VENV/lib/python3.X/site-packages/vllm-VERSION.dist-info.
// It is "" when the command is not run from a venv holding vllm.
func venvVersion(argv []string) string {
	progs := argv[:min(1, len(argv))]
	if len(argv) > 1 && strings.HasPrefix(filepath.Base(argv[0]), "python") {
		progs = argv[:2]
	}
	for _, prog := range progs {
		bin := filepath.Dir(prog)
		if !filepath.IsAbs(prog) || filepath.Base(bin) != "bin" {
			continue
		}
		infos, _ := filepath.Glob(filepath.Join(filepath.Dir(bin), "lib", "python3*", "site-packages", "vllm-*.dist-info"))
		if len(infos) > 0 {
			return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(infos[0]), "vllm-"), ".dist-info")
		}
	}
	return ""
}

// imageTag is the version tag of a vLLM image: v0.32.0 or 0.32.0, with
// an optional suffix ("-x86_64", "-cu130").
var imageTag = regexp.MustCompile(`^v?(\d+\.\d+(?:\.\d+)?(?:rc\d+)?)(?:-.*)?$`)

// imageVersion is the vLLM version an image's tag names
// ("vllm/vllm-openai:v0.32.0-x86_64" → "0.32.0"), or "" for another image
// or a tag without a version ("latest").
func imageVersion(image string) string {
	slash := strings.LastIndex(image, "/")
	repo, tag, ok := strings.Cut(image[slash+1:], ":")
	if !ok || !strings.Contains(repo, "vllm") {
		return ""
	}
	tag, _, _ = strings.Cut(tag, "@")
	if m := imageTag.FindStringSubmatch(tag); m != nil {
		return m[1]
	}
	return ""
}
