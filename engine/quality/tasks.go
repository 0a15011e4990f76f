package quality

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"speedmatrix/engine"
)

// The bounds a task file is held to where it is read.
const (
	// MaxTaskFileBytes is the largest task file ParseTasks reads.
	MaxTaskFileBytes = 64 << 20
	// MaxTasks is the most items a task file holds (MMLU-Pro's test set
	// has about 12,000).
	MaxTasks = engine.MaxQualityItems
	// MaxTaskLineBytes is the longest line: a prompt of about 250K tokens.
	MaxTaskLineBytes = 1 << 20
	// maxLineErrors is how many bad lines a TasksError lists.
	maxLineErrors = 20
)

// LineError is one bad line of a task file.
type LineError struct {
	Line    int    // from 1
	Problem string // `no "answer"`, `not a JSON object: …`
}

// Error is "line N: PROBLEM".
func (e LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Problem) }

// TasksError is a task file that does not read: its bad lines (the first
// maxLineErrors, More counts the rest), or one Problem with the whole file.
type TasksError struct {
	Problem string // the whole file's: too large, too many items, no items
	Lines   []LineError
	More    int
}

// Error is the problem, or the bad lines one per line.
func (e *TasksError) Error() string {
	if e.Problem != "" {
		return "task file: " + e.Problem
	}
	parts := make([]string, len(e.Lines))
	for i, l := range e.Lines {
		parts[i] = l.Error()
	}
	if e.More > 0 {
		parts = append(parts, fmt.Sprintf("and %d more bad lines", e.More))
	}
	return "task file: " + strings.Join(parts, "\n")
}

// taskLine is one line as it is written.
type taskLine struct {
	Prompt *string          `json:"prompt"`
	Answer *json.RawMessage `json:"answer"`
	Match  *string          `json:"match"`
}

// ParseTasks reads a task file, JSON Lines: one object per line with
// "prompt" (a string), "answer" (a string, or a number written as one) and
// "match" (exact, number, choice or regex, in any case: NewTask); other
// keys are ignored, blank lines skipped, a leading byte-order mark
// dropped. It reads at most MaxTaskFileBytes, MaxTasks items and
// MaxTaskLineBytes a line; an answer and a match name are at most
// engine.MaxTextRunes bytes. Every bad line is a LineError in one
// *TasksError, so that one pass names them all.
func ParseTasks(r io.Reader) ([]Task, error) { return parseTasks(r, MaxTaskFileBytes) }

// parseTasks is ParseTasks with a limit in bytes.
func parseTasks(r io.Reader, limit int64) ([]Task, error) {
	lr := &io.LimitedReader{R: r, N: limit + 1}
	br := bufio.NewReader(lr)
	var tasks []Task
	var bad TasksError
	for line := 1; ; line++ {
		text, long, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read task file: %w", err)
		}
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\ufeff"))
		}
		switch {
		case long:
			bad.add(line, fmt.Sprintf("longer than %d MiB", MaxTaskLineBytes>>20))
		case len(bytes.TrimSpace(text)) > 0:
			t, problem := parseTaskLine(text)
			if problem != "" {
				bad.add(line, problem)
				break
			}
			if len(tasks) == MaxTasks {
				return nil, &TasksError{Problem: fmt.Sprintf("it has more than %d items", MaxTasks)}
			}
			t.Line = line
			tasks = append(tasks, t)
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	switch {
	case lr.N == 0:
		return nil, &TasksError{Problem: fmt.Sprintf("it is larger than %d MiB", limit>>20)}
	case len(bad.Lines) > 0:
		return nil, &bad
	case len(tasks) == 0:
		return nil, &TasksError{Problem: "it has no items"}
	}
	return tasks, nil
}

// add records a bad line.
func (e *TasksError) add(line int, problem string) {
	if len(e.Lines) == maxLineErrors {
		e.More++
		return
	}
	e.Lines = append(e.Lines, LineError{Line: line, Problem: problem})
}

// readLine reads one line without its end; long is whether it was longer
// than MaxTaskLineBytes, in which case the rest was skipped unread into
// memory. err is io.EOF after the last line.
func readLine(br *bufio.Reader) (text []byte, long bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(text)+len(chunk) > MaxTaskLineBytes+1 {
				long, text = true, nil
			} else {
				text = append(text, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(text, "\r\n"), long, err
		}
	}
}

// parseTaskLine is one non-blank line as a task, or what is wrong with it.
func parseTaskLine(text []byte) (Task, string) {
	var l taskLine
	var typeErr *json.UnmarshalTypeError
	err := json.Unmarshal(text, &l)
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return Task{}, fmt.Sprintf("%q is not a string", engine.BoundText(typeErr.Field, 64))
	case err != nil || bytes.TrimSpace(text)[0] != '{':
		return Task{}, "not a JSON object with prompt, answer and match"
	case l.Prompt == nil || *l.Prompt == "":
		return Task{}, `no "prompt"`
	case l.Answer == nil:
		return Task{}, `no "answer"`
	case l.Match == nil:
		return Task{}, `no "match": give exact, number, choice or regex`
	}
	answer, ok := answerText(*l.Answer)
	switch {
	case !ok:
		return Task{}, `"answer" is not a string or a number`
	case strings.TrimSpace(answer) == "":
		return Task{}, `"answer" is empty`
	case len(answer) > engine.MaxTextRunes || len(*l.Match) > engine.MaxTextRunes:
		return Task{}, fmt.Sprintf(`"answer" or "match" is longer than %d bytes`, engine.MaxTextRunes)
	}
	t, err := NewTask(*l.Prompt, answer, Match(strings.ToLower(strings.TrimSpace(*l.Match))))
	if err != nil {
		return Task{}, engine.BoundText(err.Error(), 300)
	}
	return t, ""
}

// answerText is an answer written as a string, or a number's text.
func answerText(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), true
	}
	return "", false
}
