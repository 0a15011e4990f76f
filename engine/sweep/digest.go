package sweep

import (
	"crypto/sha256"
	"encoding/hex"
)

// Digest is the ServerSHA256 of a server.toml's text, which a resume
// compares with the text it finds: a changed file's configurations would
// not be the ones measured.
func Digest(text []byte) string {
	h := sha256.Sum256(text)
	return hex.EncodeToString(h[:])
}
