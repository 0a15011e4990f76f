package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"speedmatrix/engine"
)

// hostile serves answers whose strings are 1 MB long or carry a
// right-to-left override, as a hostile server or proxy might.
func hostile(t *testing.T, modelID string) *Client {
	huge := strings.Repeat("v", 1<<20)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"data":[{"id":"`+modelID+`","root":"`+huge+`"}]}`)
	})
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"version":"0.32.0\u202e`+huge+`"}`)
	})
	mux.HandleFunc("GET /get_server_info", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"version":"`+huge+`","model_path":"m\u202e","served_model_name":"`+huge+`"}`)
	})
	mux.HandleFunc("POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"message":"bad\u202e `+huge+`","type":"`+huge+`","code":"x\u202e"}`)
	})
	return testClient(t, mux)
}

// TestServerStringsAreBoundedWhereTheyEnter: what /version, SGLang's
// server info, /v1/models' root and an error answer say reaches the rest
// of the tool as a name of at most engine.MaxNameRunes (a message of 300
// runes), with no bidi control.
func TestServerStringsAreBoundedWhereTheyEnter(t *testing.T) {
	c := hostile(t, "gemma")
	ctx := context.Background()
	v, err := c.VersionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.ServerInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	models, err := c.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Tokenize(ctx, "gemma", "hi")
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("Tokenize: %v, want an APIError", err)
	}
	for name, c := range map[string]struct {
		s   string
		max int
	}{
		"version": {v.Version, engine.MaxNameRunes}, "server info version": {info.Version, engine.MaxNameRunes},
		"model path": {info.ModelPath, engine.MaxNameRunes}, "served model name": {info.ServedModelName, engine.MaxNameRunes},
		"root": {models[0].Root, engine.MaxNameRunes}, "error message": {apiErr.Message, 300},
		"error type": {apiErr.Type, engine.MaxNameRunes}, "error code": {apiErr.Code, engine.MaxNameRunes},
	} {
		if n := utf8.RuneCountInString(c.s); n > c.max || strings.ContainsRune(c.s, '\u202e') {
			t.Errorf("%s: %d runes (at most %d), %.30q", name, n, c.max, c.s)
		}
	}
}

// TestModelIDsThatCantBeNamesAreRefused: a model id is sent back in every
// request, so one too long or with a control character is refused whole,
// in one line, rather than cut.
func TestModelIDsThatCantBeNamesAreRefused(t *testing.T) {
	for name, id := range map[string]string{
		"1 MB":         strings.Repeat("m", 1<<20),
		"257 runes":    strings.Repeat("m", engine.MaxNameRunes+1),
		"RLO":          `gemma\u202eti`,
		"newline":      `gemma\nit`,
		"escape":       `gemma\u001b[31m`,
		"256 is fine":  strings.Repeat("m", engine.MaxNameRunes),
		"unicode fine": "模型/gemma-é",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := hostile(t, id).Models(context.Background())
			ok := strings.HasSuffix(name, "fine")
			switch {
			case ok && err != nil:
				t.Errorf("Models: %v, want the model", err)
			case !ok && !errors.Is(err, ErrMalformed):
				t.Errorf("Models: %v, want ErrMalformed", err)
			case !ok && (len(err.Error()) > 400 || strings.ContainsAny(err.Error(), "\n\u202e\x1b")):
				t.Errorf("error is not one short clean line: %.200q", err)
			}
		})
	}
}
