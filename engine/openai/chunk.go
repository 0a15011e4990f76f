package openai

import (
	"encoding/json"
	"fmt"

	"speedmatrix/engine"
)

// flatChunk is what one stream event says, before it becomes a Chunk. Both
// chunk parsers fill it, so the fuzz test can compare them.
type flatChunk struct {
	text, content, reasoningContent, reasoning, finish string
	usage                                              Usage
	hasUsage                                           bool
}

// wireChunk is a streamed chat or completions chunk as encoding/json sees it,
// plus the fields of an error event.
type wireChunk struct {
	Choices []struct {
		Text  string `json:"text"`
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage   *Usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// parseChunk parses one event's data: the fast parser when it can, else
// encoding/json. An error event from the server becomes an *APIError.
func parseChunk(data []byte) (flatChunk, error) {
	var f flatChunk
	if parseChunkFast(data, &f) {
		return f, nil
	}
	return parseChunkJSON(data)
}

// parseChunkJSON is the reference parser.
func parseChunkJSON(data []byte) (flatChunk, error) {
	var w wireChunk
	if err := json.Unmarshal(data, &w); err != nil {
		return flatChunk{}, fmt.Errorf("%w: the server sent an event that is not a completion chunk (%v): %q: is this an OpenAI-compatible server?",
			ErrMalformed, err, oneLine(string(data)))
	}
	if (len(w.Error) > 0 && string(w.Error) != "null") || w.Object == "error" {
		var e wireError
		_ = json.Unmarshal(data, &e)
		apiErr := &APIError{}
		apiErr.fillFrom(e)
		apiErr.Message = oneLine(apiErr.Message)
		if apiErr.Message == "" {
			apiErr.Message = oneLine(string(data))
		}
		apiErr.StatusCode = codeStatus(apiErr.Code)
		return flatChunk{}, apiErr
	}
	var f flatChunk
	if len(w.Choices) > 0 {
		c := w.Choices[0]
		f.text, f.finish = c.Text, c.FinishReason
		f.content, f.reasoningContent, f.reasoning = c.Delta.Content, c.Delta.ReasoningContent, c.Delta.Reasoning
	}
	if w.Usage != nil {
		f.usage, f.hasUsage = *w.Usage, true
	}
	return f, nil
}

// codeStatus reads an HTTP status out of an error event's code, 0 if none.
func codeStatus(code string) int {
	var n int
	if _, err := fmt.Sscanf(code, "%d", &n); err != nil || n < 100 || n > 599 {
		return 0
	}
	return n
}

// chunk turns a parsed event into the Chunk handed to callers.
func (f *flatChunk) chunk() Chunk {
	c := Chunk{Content: f.content, Reasoning: f.reasoningContent, FinishReason: f.finish}
	if c.FinishReason != "" { // kept in report.json: once a stream, bounded as a name
		c.FinishReason = engine.BoundName(c.FinishReason)
	}
	if c.Content == "" {
		c.Content = f.text
	}
	if c.Reasoning == "" {
		c.Reasoning = f.reasoning
	}
	if f.hasUsage {
		u := f.usage
		c.Usage = &u
	}
	return c
}

// chunkID reads the "id" of a chunk. It runs once per stream (until a chunk
// has one), so it uses encoding/json rather than the fast parser, whose
// every-chunk path stays free of a field only the first chunk needs.
func chunkID(data []byte) string {
	var w struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(data, &w) != nil {
		return ""
	}
	return w.ID
}
