package charts

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// seedPage is a reference report's text and how it separates table cells: the
// RTX PRO 6000 page has Markdown pipes, the RTX 3090 page glues cells.
type seedPage struct {
	text  string
	pipes bool
}

func readSeedPage(t *testing.T, name string) seedPage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "seeds", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Newlines at both ends let every line be matched as "\n…\n".
	text := "\n" + string(b) + "\n"
	return seedPage{text: text, pipes: strings.Contains(text, "| Context |")}
}

// row writes table cells the way the page does.
func (p seedPage) row(cells []string) string {
	if p.pipes {
		return "| " + strings.Join(cells, " | ") + " |"
	}
	return strings.Join(cells, "")
}

func (p seedPage) mustHave(t *testing.T, what, s string) {
	t.Helper()
	if !strings.Contains(p.text, s) {
		t.Errorf("%s %q is not on the reference report page", what, s)
	}
}

// TestSeedFiguresCarried reads every figure back from the model of the
// sheet drawn from each reference fixture and finds it, formatted identically,
// on the reference report page; and counts the page's rows so none is missing.
func TestSeedFiguresCarried(t *testing.T) {
	for _, name := range []string{"seed000", "seed003"} {
		t.Run(name, func(t *testing.T) {
			page := readSeedPage(t, name)
			m := BuildModel(loadSeed(t, name))
			checkHeader(t, page, m)
			checkSections(t, page, m)
			checkPrefillList(t, page, m)
			checkHeatmap(t, page, m)
			checkTable(t, page, m)
		})
	}
}

func checkHeader(t *testing.T, page seedPage, m Model) {
	t.Helper()
	page.mustHave(t, "title", "\n"+m.Header.Title+"\n")
	page.mustHave(t, "model line", "\n"+m.Header.Model+"\n")
	page.mustHave(t, "subtitle", "\n"+m.Header.ServerLine+m.Header.MatrixLine+"\n")
	page.mustHave(t, "launch command", "\n"+strings.Join(m.Launch, "\n")+"\n")
	if m.Header.Simulated || m.Header.Badge != "Measured" {
		t.Errorf("badge %q, simulated %v: reference reports are measured", m.Header.Badge, m.Header.Simulated)
	}
}

// checkSections finds the reference report's Hardware, Engine and Run blocks, line for
// line and in order, at the start of ours; lines the reference reports lack may follow.
func checkSections(t *testing.T, page seedPage, m Model) {
	t.Helper()
	ends := map[string]string{"Hardware": "\nEngine\n", "Engine": "\nRun\n", "Run": "\nLaunch command\n"}
	for _, sec := range m.Sections {
		start := strings.Index(page.text, "\n"+sec.Title+"\n")
		end := strings.Index(page.text, ends[sec.Title])
		if start < 0 || end < start {
			t.Fatalf("no %s section on the reference report page", sec.Title)
		}
		var lines []string
		for _, l := range strings.Split(page.text[start+len(sec.Title)+2:end], "\n") {
			if l = strings.TrimPrefix(l, "- "); l != "" {
				lines = append(lines, l)
			}
		}
		var ours []string
		for _, kv := range sec.Rows {
			if kv.Key == "Benchmark tool" && !strings.Contains(page.text, "- Benchmark tool") {
				page.mustHave(t, "benchmark tool (by-line)", kv.Value)
				continue
			}
			ours = append(ours, kv.Key, kv.Value)
		}
		if len(ours) < len(lines) || !slices.Equal(ours[:len(lines)], lines) {
			t.Errorf("%s section does not start with the reference report's lines:\n got %q\nreference %q", sec.Title, ours, lines)
		}
	}
}

func checkPrefillList(t *testing.T, page seedPage, m Model) {
	t.Helper()
	page.mustHave(t, "prefill caption", "prompt tok/s by context length")
	for _, r := range m.PrefillRows {
		page.mustHave(t, "prefill line", r.Context+r.TokPerSec+r.TTFT+"\n")
	}
	if n := len(regexp.MustCompile(`\d+K context`).FindAllString(page.text, -1)); n != len(m.PrefillRows) {
		t.Errorf("reference report lists %d prefill contexts, model %d", n, len(m.PrefillRows))
	}
	if got := len(m.Prefill.Series); got != 2 || len(m.Prefill.Series[0].Points) != len(m.PrefillRows) {
		t.Errorf("prefill chart has %d series", got)
	}
}

func checkHeatmap(t *testing.T, page seedPage, m Model) {
	t.Helper()
	h := m.Decode
	page.mustHave(t, "heatmap caption", h.Subtitle)
	page.mustHave(t, "heatmap header", page.row(append([]string{h.RowHeader}, h.Cols...)))
	for i, label := range h.Rows {
		cells := []string{label}
		for _, c := range h.Cells[i] {
			cells = append(cells, c.Text+c.Detail)
		}
		page.mustHave(t, "heatmap row", page.row(cells))
	}
	var legend []string
	for _, l := range h.Legend {
		legend = append(legend, l.Note)
	}
	page.mustHave(t, "heatmap legend", strings.Join(legend, " ")+"\n")
	for _, n := range h.Notes {
		page.mustHave(t, "heatmap note", n)
	}
}

func checkTable(t *testing.T, page seedPage, m Model) {
	t.Helper()
	var titles []string
	for _, c := range m.Table.Columns {
		titles = append(titles, c.Title)
	}
	page.mustHave(t, "table header", page.row(titles))
	page.mustHave(t, "table note", m.Table.NotesBefore[0])
	for _, r := range m.Table.Rows {
		page.mustHave(t, "table row", "\n"+page.row(r.Cells)+"\n")
	}
	rowRE := regexp.MustCompile(`(?m)^(\| )?(Prefill|Sustained decode)( \| )?\d`)
	if n := len(rowRE.FindAllString(page.text, -1)); n != len(m.Table.Rows) {
		t.Errorf("reference table has %d rows, model %d", n, len(m.Table.Rows))
	}
	if !strings.HasSuffix(strings.TrimSpace(page.text), strings.Join(m.Table.NotesAfter, " ")) {
		t.Errorf("table notes %q do not end the reference report page", m.Table.NotesAfter)
	}
}
