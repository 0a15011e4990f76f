package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// SharedPrompt is the long start of a prompt that many requests send (all
// the streams of a decode cell), encoded for the wire once: a request that
// names it sends these very bytes instead of building a copy of its own. At
// 64K tokens a prompt is a third of a megabyte, and a cell of 128 streams
// would otherwise hold 128 copies, twice (the text, then its JSON).
type SharedPrompt struct {
	ids  bool   // token ids, for the completions API; else text
	wire []byte // the JSON of the start: the text escaped without its quotes, or the ids joined by commas
}

// ShareText encodes the start of text prompts once.
func ShareText(text string) *SharedPrompt {
	var buf bytes.Buffer
	buf.Grow(len(text) + 2)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(text) // a string always encodes
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return &SharedPrompt{wire: b[1 : len(b)-1]}
}

// ShareIDs encodes the start of token-id prompts once.
func ShareIDs(ids []int) *SharedPrompt {
	b := make([]byte, 0, 7*len(ids))
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return &SharedPrompt{ids: true, wire: b}
}

// Markers stand where the shared start goes while the rest of a request is
// encoded; the encoded marker is then the place to splice it in.
const (
	sharedTextMarker = "\x00speedmatrix-shared-prompt\x00"
	sharedIDMarker   = -739182645
)

// sharedParts is req's path, and its body as parts: the encoded request up
// to where its prompt starts, the shared start, and the rest. The JSON is
// the same as if the whole prompt had been in req. req.Shared is not empty.
func sharedParts(req StreamRequest) (string, [][]byte, error) {
	var marker []byte
	switch {
	case len(req.Messages) > 0:
		return "", nil, fmt.Errorf("stream: a shared prompt cannot go with messages")
	case req.Shared.ids && req.Prompt != "":
		return "", nil, fmt.Errorf("stream: a token-id shared prompt cannot end with text")
	case req.Shared.ids:
		req.PromptTokenIDs = append([]int{sharedIDMarker}, req.PromptTokenIDs...)
		marker = strconv.AppendInt(nil, sharedIDMarker, 10)
	case req.PromptTokenIDs != nil:
		return "", nil, fmt.Errorf("stream: a text shared prompt cannot end with token ids")
	default:
		req.Prompt = sharedTextMarker + req.Prompt
		marker = []byte(`\u0000speedmatrix-shared-prompt\u0000`)
	}
	path, body, err := streamBody(req)
	if err != nil {
		return "", nil, err
	}
	i := bytes.Index(body, marker)
	if i < 0 {
		return "", nil, fmt.Errorf("stream: encode request: the shared prompt's place was not found")
	}
	return path, [][]byte{body[:i], req.Shared.wire, body[i+len(marker):]}, nil
}
