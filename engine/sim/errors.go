package sim

import (
	"encoding/json"
	"net/http"
)

// apiError is vLLM's error body: {"error": {"message", "type", "param", "code"}}.
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

var errorTypes = map[int]string{
	http.StatusBadRequest:          "BadRequestError",
	http.StatusNotFound:            "NotFoundError",
	http.StatusInternalServerError: "InternalServerError",
	http.StatusServiceUnavailable:  "ServiceUnavailableError",
}

// writeError writes a vLLM-shaped error.
func writeError(w http.ResponseWriter, code int, param, msg string) {
	writeErrorAs(w, code, errorTypes[code], param, msg)
}

// writeErrorAs writes a vLLM-shaped error of type typ ("Bad Request" for
// what its request model refuses).
func writeErrorAs(w http.ResponseWriter, code int, typ, param, msg string) {
	e := apiError{Message: msg, Type: typ, Code: code}
	if param != "" {
		e.Param = &param
	}
	writeJSON(w, code, map[string]apiError{"error": e})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "<bos>" as vLLM (Python's json) writes it
	_ = enc.Encode(v)
}
