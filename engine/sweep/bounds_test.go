package sweep

import (
	"strings"
	"testing"
	"unicode/utf8"

	"speedmatrix/engine"
)

// TestVaryFileNamesAreNames: a --vary-file table names a configuration in
// every output, so a name too long or with a bidi control is refused in
// one line that says what to do.
func TestVaryFileNamesAreNames(t *testing.T) {
	for name, table := range map[string]string{
		"1 MB": strings.Repeat("n", 1<<20), "257 runes": strings.Repeat("n", engine.MaxNameRunes+1), "RLO": "fast\u202ewols",
	} {
		_, err := ReadVaryFile("sweep.toml", "[\""+table+"\"]\nmax_num_seqs = 4\n")
		if err == nil || !strings.Contains(err.Error(), "can't name a configuration") || !strings.HasSuffix(err.Error(), "rename it") ||
			len(err.Error()) > 300 || strings.ContainsRune(err.Error(), '\u202e') {
			t.Errorf("%s: err = %.300v", name, err)
		}
	}
}

// TestLoadBoundsEveryString: a sweep.json someone edited loads with its
// configurations' names and reasons bounded and without bidi controls.
func TestLoadBoundsEveryString(t *testing.T) {
	dir := t.TempDir()
	s := New("server.toml", engine.Plan{}, named([]Config{{Name: BaselineName, Baseline: true}, {Name: "b", Settings: []Setting{{"max_num_seqs", "8"}}}}), "test")
	s.Configs[1].Name = "b\u202e" + strings.Repeat("x", 1<<20)
	s.Configs[1].Reason = "oom\u202e"
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := got.Configs[1]
	if n := utf8.RuneCountInString(c.Name); n != engine.MaxTextRunes || strings.ContainsRune(c.Name+c.Reason, '\u202e') {
		t.Errorf("configuration: name of %d runes (want %d), %q, reason %q", n, engine.MaxTextRunes, c.Name[:10], c.Reason)
	}
}
