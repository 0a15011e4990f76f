package measure

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"speedmatrix/engine"
)

// Bounds of a dataset file: a hostile or mistaken file (a model's weights,
// a log of gigabytes) is refused at the first line past them.
const (
	// MaxDatasetLineBytes is the longest line of a dataset, a prompt of
	// some 250K tokens.
	MaxDatasetLineBytes = 1 << 20
	// MaxDatasetPrompts is the most prompts a dataset may hold.
	MaxDatasetPrompts = 100_000
	// MaxDatasetBytes is the most text a dataset may hold in all.
	MaxDatasetBytes = 256 << 20
)

// ReadDataset reads a JSONL dataset of prompts (parseDataset), naming the
// file by its base name in errors: "prompts.jsonl line 12: not JSON (…)".
// The CLI and the app call it to check a file before a load test.
func ReadDataset(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseDataset(f, filepath.Base(path))
}

// datasetLine is one line of a dataset in any of the shapes it may take.
type datasetLine struct {
	Prompt        *string       `json:"prompt"`
	Conversations []datasetTurn `json:"conversations"` // ShareGPT
	Messages      []datasetTurn `json:"messages"`      // OpenAI chat
}

// datasetTurn is one turn of a conversation: ShareGPT's from/value or
// OpenAI's role/content.
type datasetTurn struct {
	From    string `json:"from"`
	Value   string `json:"value"`
	Role    string `json:"role"`
	Content any    `json:"content"`
}

// parseDataset reads one prompt per line: {"prompt": "…"}, or a
// conversation, ShareGPT's {"conversations": [{"from": "human", "value":
// "…"}, …]} or OpenAI's {"messages": [{"role": "user", "content": "…"}]},
// of which the first human (user) turn is the prompt. Blank lines are
// skipped. name is the file's name in errors, which give the line.
func parseDataset(r io.Reader, name string) ([]string, error) {
	var prompts []string
	err := scanDataset(r, name, func(_ int, b []byte) error {
		p, err := datasetPrompt(b)
		if err == nil {
			prompts = append(prompts, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(prompts) == 0 {
		return nil, fmt.Errorf(`%s: no prompt: write one {"prompt": "…"} per line`, name)
	}
	return prompts, nil
}

// scanDataset calls each with every line of a dataset that is not blank,
// and its number, within the bounds of a dataset file (MaxDatasetLineBytes,
// MaxDatasetPrompts, MaxDatasetBytes). An error is one line that names the
// file, and the line where each's error came from.
func scanDataset(r io.Reader, name string, each func(line int, b []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), MaxDatasetLineBytes)
	line, total, items := 0, 0, 0
	for sc.Scan() {
		line++
		total += len(sc.Bytes())
		if total > MaxDatasetBytes {
			return fmt.Errorf("%s: more than %d MiB of prompts: keep the ones to send", name, MaxDatasetBytes>>20)
		}
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if items == MaxDatasetPrompts {
			return fmt.Errorf("%s: more than %d prompts: keep the ones to send", name, MaxDatasetPrompts)
		}
		items++
		if err := each(line, b); err != nil {
			return fmt.Errorf("%s line %d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s line %d: longer than %d MiB: is this a JSONL file of prompts?", name, line+1, MaxDatasetLineBytes>>20)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// decodeDatasetLine reads one line of a dataset, of any of its shapes.
func decodeDatasetLine(b []byte) (datasetLine, error) {
	var d datasetLine
	if err := json.Unmarshal(b, &d); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || !json.Valid(b) {
			return d, fmt.Errorf("not JSON (%s): write one JSON object per line", short(err.Error()))
		}
		return d, fmt.Errorf(`not a prompt (%s): write {"prompt": "…"} or ShareGPT's {"conversations": […]}`, short(err.Error()))
	}
	return d, nil
}

// datasetPrompt is the prompt of one line.
func datasetPrompt(b []byte) (string, error) {
	d, err := decodeDatasetLine(b)
	if err != nil {
		return "", err
	}
	var p string
	switch {
	case d.Prompt != nil:
		p = *d.Prompt
	case d.Conversations != nil:
		p = firstHuman(d.Conversations)
	case d.Messages != nil:
		p = firstHuman(d.Messages)
	default:
		return "", errors.New(`no "prompt", "conversations" or "messages": write {"prompt": "…"} per line`)
	}
	if strings.TrimSpace(p) == "" {
		return "", errors.New("an empty prompt: give every line some text")
	}
	return p, nil
}

// firstHuman is the text of the first turn a user wrote, "" when none did.
func firstHuman(turns []datasetTurn) string {
	for _, t := range turns {
		switch {
		case t.From == "human" || t.From == "user":
			return t.Value
		case t.Role == "user":
			return contentText(t.Content)
		}
	}
	return ""
}

// contentText is an OpenAI message's content: a string, or the text parts
// of a list of parts.
func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, part := range v {
			if m, ok := part.(map[string]any); ok && m["type"] == "text" {
				if s, ok := m["text"].(string); ok {
					b.WriteString(s)
				}
			}
		}
		return b.String()
	}
	return ""
}

// short is s cut to a length an error line can hold.
func short(s string) string { return engine.BoundText(s, 80) }
