package quality

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestParseTasks: a GSM8K- and an MMLU-style line read, with their line
// numbers; blank lines, extra keys and a byte-order mark are fine.
func TestParseTasks(t *testing.T) {
	file := "\ufeff" + `{"prompt": "Natalia sold clips…", "answer": "#### 72", "match": "number", "id": "gsm8k-1"}` + "\n" +
		"\n" +
		`{"prompt": "Capital of France?\nA) Rome\nB) Paris", "answer": "B", "match": "Choice"}` + "\r\n" +
		`{"prompt": "2+2", "answer": 4, "match": "number"}`
	tasks, err := ParseTasks(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 3 || tasks[0].Line != 1 || tasks[1].Line != 3 || tasks[2].Line != 4 {
		t.Fatalf("tasks %+v, want lines 1, 3 and 4", tasks)
	}
	if !tasks[0].Correct("72 clips\n#### 72") || !tasks[1].Correct("The answer is (B)") || !tasks[2].Correct("4") || tasks[2].Correct("5") {
		t.Error("the parsed tasks do not check as their matchers do")
	}
}

// TestParseTasksBadLines: every bad line is one LineError with its
// number, all in one *TasksError.
func TestParseTasksBadLines(t *testing.T) {
	lines := []string{
		`{"prompt": "ok", "answer": "a", "match": "exact"}`,
		`not json`,
		`["prompt", "answer"]`,
		`{"answer": "a", "match": "exact"}`,
		`{"prompt": "p", "match": "exact"}`,
		`{"prompt": "p", "answer": "a"}`,
		`{"prompt": "p", "answer": "a", "match": "fuzzy"}`,
		`{"prompt": "p", "answer": "seven", "match": "number"}`,
		`{"prompt": "p", "answer": "(", "match": "regex"}`,
		`{"prompt": 5, "answer": "a", "match": "exact"}`,
		`{"prompt": "p", "answer": true, "match": "exact"}`,
		`{"prompt": "p", "answer": " ", "match": "exact"}`,
		`{"prompt": "p", "answer": "a", "match": "exact"`,
		`{"prompt": "` + strings.Repeat("x", MaxTaskLineBytes) + `", "answer": "a", "match": "exact"}`,
	}
	want := []string{"", "not a JSON object", "not a JSON object", `no "prompt"`, `no "answer"`, `no "match"`,
		`"fuzzy" is not one of`, "no number", "does not compile", `"prompt" is not a string`,
		`"answer" is not a string or a number`, `"answer" is empty`, "not a JSON object", "longer than 1 MiB"}
	_, err := ParseTasks(strings.NewReader(strings.Join(lines, "\n")))
	var te *TasksError
	if !errors.As(err, &te) || len(te.Lines) != len(lines)-1 {
		t.Fatalf("ParseTasks = %v, want a *TasksError with %d lines", err, len(lines)-1)
	}
	for i, le := range te.Lines {
		if le.Line != i+2 || !strings.Contains(le.Problem, want[i+1]) {
			t.Errorf("bad line %d: %v, want line %d about %q", i, le, i+2, want[i+1])
		}
	}
}

// TestParseTasksFile: whole-file problems, and a long list of bad lines
// cut to its first 20 and a count.
func TestParseTasksFile(t *testing.T) {
	for _, tc := range []struct {
		name, file, want string
	}{
		{"empty", "", "no items"},
		{"blank", "\n\n  \n", "no items"},
	} {
		_, err := ParseTasks(strings.NewReader(tc.file))
		var te *TasksError
		if !errors.As(err, &te) || !strings.Contains(te.Problem, tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	_, err := ParseTasks(strings.NewReader(strings.Repeat("a,b,c\n", 50)))
	var te *TasksError
	if !errors.As(err, &te) || len(te.Lines) != maxLineErrors || te.More != 30 || !strings.Contains(err.Error(), "and 30 more bad lines") {
		t.Errorf("a CSV of 50 lines: %v", err)
	}
}

// TestParseTasksTooLarge: a file past the limit is refused, read no
// further than the limit.
func TestParseTasksTooLarge(t *testing.T) {
	line := `{"prompt": "p", "answer": "a", "match": "exact"}` + "\n"
	const limit = 1000
	r := &countingReader{s: strings.Repeat(line, limit/len(line)+2)}
	_, err := parseTasks(r, limit)
	var te *TasksError
	if !errors.As(err, &te) || !strings.HasPrefix(te.Problem, "it is larger than") || r.read > limit+1 {
		t.Errorf("parseTasks = %v after reading %d bytes", err, r.read)
	}
	if _, err := parseTasks(strings.NewReader(strings.Repeat(line, limit/len(line))), limit); err != nil {
		t.Errorf("within the limit: %v", err)
	}
}

// countingReader is a string reader that counts what it gave.
type countingReader struct {
	s    string
	read int
}

func (r *countingReader) Read(p []byte) (int, error) {
	n := copy(p, r.s[r.read:])
	r.read += n
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// FuzzParseTasks: whatever a task file holds, ParseTasks returns tasks
// with a line and a known matcher each, or an error; it never panics.
func FuzzParseTasks(f *testing.F) {
	f.Add(`{"prompt": "p", "answer": "42", "match": "number"}`)
	f.Add(`{"prompt": "p", "answer": "B", "match": "choice"}` + "\n" + `{"prompt": "p", "answer": "^a+$", "match": "regex"}`)
	f.Add("\ufeff\n{}\n[]")
	f.Fuzz(func(t *testing.T, file string) {
		tasks, err := ParseTasks(strings.NewReader(file))
		for _, task := range tasks {
			if err != nil || task.Line < 1 || !slices.Contains(Matches, task.Match) {
				t.Errorf("task %+v with error %v", task, err)
			}
			task.Correct(file)
		}
	})
}
