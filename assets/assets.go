// Package assets holds the files embedded into the speedmatrix binary:
// the application icon.
package assets

import _ "embed"

// IconPNG is the 512×512 application icon: a small decode heatmap.
//
//go:embed icon.png
var IconPNG []byte
