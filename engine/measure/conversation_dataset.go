package measure

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"speedmatrix/engine"
)

// conversation is one conversation of a dataset, as a replay sends it: its
// system messages, then its user turns, each with the dataset's answer.
type conversation struct {
	line   int      // its line in the file
	system []string // the system messages before its first user turn
	turns  []conversationTurn
	bytes  int // the text of its messages in all
}

// conversationTurn is one user turn and the assistant's answer to it in
// the dataset ("" with answered false when it has none: the last turn, or
// any turn of a dataset replayed with the model's answers).
type conversationTurn struct {
	user     string
	answer   string
	answered bool
}

// conversationSet is a dataset's conversations, read for a replay.
type conversationSet struct {
	name  string // the file's base name
	convs []conversation
	turns int // user turns in all
}

// CheckConversations reads a JSONL dataset of conversations as a replay
// with these answers would (readConversations), and says how many
// conversations and user turns it holds. The CLI and the app call it to
// check a file before a replay.
func CheckConversations(path string, answers engine.Answers) (conversations, turns int, err error) {
	set, err := readConversations(path, answers)
	if err != nil {
		return 0, 0, err
	}
	return len(set.convs), set.turns, nil
}

// readConversations reads a dataset's conversations (parseConversations),
// naming the file by its base name in errors.
func readConversations(path string, answers engine.Answers) (*conversationSet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseConversations(f, filepath.Base(path), answers)
}

// parseConversations reads one conversation per line, within a dataset's
// bounds: ShareGPT's {"conversations": [{"from": "human", "value": "…"},
// {"from": "gpt", …}, …]}, OpenAI's {"messages": [{"role": "user",
// "content": "…"}, …]}, or {"prompt": "…"}, a conversation of one turn.
// System messages come before the first user turn; assistant turns before
// it answer nothing sent and are left out; two assistant turns in a row are
// one answer. A conversation with no user turn, an empty user turn, more
// than engine.MaxConversationTurns, or, with the dataset's answers, two
// user turns with no answer between them is refused, naming its line.
func parseConversations(r io.Reader, name string, answers engine.Answers) (*conversationSet, error) {
	set := &conversationSet{name: name}
	err := scanDataset(r, name, func(line int, b []byte) error {
		c, err := datasetConversation(b, answers)
		if err != nil {
			return err
		}
		c.line = line
		set.convs = append(set.convs, c)
		set.turns += len(c.turns)
		if set.turns > engine.MaxLoadRequests {
			return fmt.Errorf("more than %d turns in all: keep the conversations to replay", engine.MaxLoadRequests)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(set.convs) == 0 {
		return nil, fmt.Errorf(`%s: no conversation: write one {"messages": […]} per line`, name)
	}
	return set, nil
}

// datasetConversation is the conversation of one line.
func datasetConversation(b []byte, answers engine.Answers) (conversation, error) {
	d, err := decodeDatasetLine(b)
	if err != nil {
		return conversation{}, err
	}
	var turns []datasetTurn
	switch {
	case d.Prompt != nil:
		if strings.TrimSpace(*d.Prompt) == "" {
			return conversation{}, errors.New("an empty prompt: give every line some text")
		}
		return conversation{turns: []conversationTurn{{user: *d.Prompt}}, bytes: len(*d.Prompt)}, nil
	case d.Conversations != nil:
		turns = d.Conversations
	case d.Messages != nil:
		turns = d.Messages
	default:
		return conversation{}, errors.New(`no "prompt", "conversations" or "messages": write {"messages": […]} per line`)
	}
	if len(turns) == 0 {
		return conversation{}, errors.New("an empty conversation: give it a user turn")
	}
	return conversationOf(turns, answers)
}

// conversationOf puts a conversation's messages in order (parseConversations).
func conversationOf(msgs []datasetTurn, answers engine.Answers) (conversation, error) {
	var c conversation
	for i, m := range msgs {
		role, text := turnRole(m)
		c.bytes += len(text)
		switch role {
		case "system":
			if len(c.turns) > 0 {
				return c, fmt.Errorf("message %d is a system message after the first user turn: a replay keeps system messages at the start", i+1)
			}
			c.system = append(c.system, text)
		case "user":
			n := len(c.turns)
			switch {
			case strings.TrimSpace(text) == "":
				return c, fmt.Errorf("message %d is an empty user turn: give every user turn some text", i+1)
			case n == engine.MaxConversationTurns:
				return c, fmt.Errorf("more than %d user turns: keep the first ones", engine.MaxConversationTurns)
			case n > 0 && answers == engine.AnswersDataset && !c.turns[n-1].answered:
				return c, fmt.Errorf("user turns %d and %d have no assistant answer between them, which a replay with the dataset's answers needs", n, n+1)
			}
			c.turns = append(c.turns, conversationTurn{user: text})
		case "assistant":
			if len(c.turns) == 0 {
				continue
			}
			t := &c.turns[len(c.turns)-1]
			if t.answered {
				t.answer += "\n\n"
			}
			t.answer, t.answered = t.answer+text, true
		default:
			return c, fmt.Errorf("message %d has the role %q: a replay takes user, assistant and system messages", i+1, engine.BoundText(role, 40))
		}
	}
	if len(c.turns) == 0 {
		return c, errors.New("no user turn: a conversation needs one to replay")
	}
	return c, nil
}

// turnRole is a message's role, as the chat API names it ("user",
// "assistant", "system"; any other as written), and its text.
func turnRole(t datasetTurn) (role, text string) {
	if t.From != "" || t.Role == "" {
		switch from := strings.ToLower(t.From); from {
		case "human", "user":
			return "user", t.Value
		case "gpt", "assistant", "model", "chatgpt", "bard", "bing":
			return "assistant", t.Value
		case "system":
			return "system", t.Value
		default:
			return from, t.Value
		}
	}
	switch role := strings.ToLower(t.Role); role {
	case "developer":
		return "system", contentText(t.Content)
	default:
		return role, contentText(t.Content)
	}
}
