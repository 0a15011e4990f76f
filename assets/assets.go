// Package assets holds the files embedded into the speedmatrix binary: the
// application icon. What it may import is one table for the whole tree,
// allowedImports in imports_test.go, which TestImportRules checks.
package assets

import _ "embed"

// IconPNG is the 512×512 application icon: a small decode heatmap.
//
//go:embed icon.png
var IconPNG []byte
