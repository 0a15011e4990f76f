package report

import (
	"strings"
	"testing"
)

// TestMarkdownShowsHostileNamesLiterally: a served model name with a
// newline, a pipe or HTML, and a server error with a newline, stay one
// line of report.md each, shown literally, and inject nothing.
func TestMarkdownShowsHostileNamesLiterally(t *testing.T) {
	r := seedReport()
	r.Run.Model = "" // the title names the served model
	r.Run.ServedModel = "evil\n# Injected heading\n| Injected | row |<script>alert(1)</script>"
	r.Results[6].Error = "the server answered 500:\n\n## Injected\n<img src=x onerror=alert(1)>"
	r.LaunchCommand = "vllm serve m --served-model-name 'x\n```\n# Injected after the fence'"
	md := Markdown(r)
	for _, bad := range []string{"<script>", "<img src=x onerror=alert(1)>", "\n# Injected heading", "\n## Injected", "\n| Injected"} {
		if strings.Contains(md, bad) {
			t.Errorf("report.md contains %q:\n%s", bad, md)
		}
	}
	const name = `evil\n# Injected heading\n\| Injected \| row \|\<script\>alert(1)\</script\>`
	for _, want := range []string{
		"**" + strings.ReplaceAll(name, `\|`, "|") + " on RTX PRO 6000 Blackwell Server Edition 96GB**\n",
		"| Served model | " + name + " |\n",
		`- Sustained decode 64K × 1: the server answered 500:\n\n## Injected\n\<img src=x onerror=alert(1)\>` + "\n",
		"````sh\nvllm serve m --served-model-name 'x\n```\n# Injected after the fence'\n````\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

func TestMDText(t *testing.T) {
	for in, want := range map[string]string{
		"gemma-4-E2B-it":        "gemma-4-E2B-it",
		"a\r\nb\tc\x1bd":        `a\r\nb\tc\x1bd`,
		`C:\models [fp8] & <b>`: `C:\\models \[fp8\] \& \<b\>`,
		"`code`":                "\\`code\\`",
	} {
		if got := MDText(in); got != want {
			t.Errorf("MDText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := MDCell(`a|b\|c`); got != `a\|b\\\|c` {
		t.Errorf(`MDCell("a|b\|c") = %q`, got)
	}
}
