// Package assets holds the files embedded into the speedmatrix binary:
// the application icon. It imports only the standard library (embed), and
// only app imports it.
package assets

import _ "embed"

// IconPNG is the 512×512 application icon: a small decode heatmap.
//
//go:embed icon.png
var IconPNG []byte
