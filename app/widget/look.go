package widget

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// ShowIf shows o when on, else hides it.
func ShowIf(o fyne.CanvasObject, on bool) {
	if on {
		o.Show()
	} else {
		o.Hide()
	}
}

// PartialColor marks runs that did not finish every cell.
var PartialColor = color.NRGBA{R: 0xb9, G: 0x1c, B: 0x1c, A: 0xff}

// ImportedColor marks runs another tool measured.
var ImportedColor = color.NRGBA{R: 0x1d, G: 0x4e, B: 0xd8, A: 0xff}

// NewTextTable is a read-only table of cells under columns.
func NewTextTable(columns []string, widths []float32, cells [][]string) *widget.Table {
	t := widget.NewTableWithHeaders(
		func() (int, int) { return len(cells), len(columns) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			l.SetText(cells[id.Row][id.Col])
			l.Alignment = fyne.TextAlignTrailing
			if id.Col == 0 {
				l.Alignment = fyne.TextAlignLeading
			}
			l.Refresh()
		})
	t.ShowHeaderColumn = false
	t.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			l := o.(*widget.Label)
			l.TextStyle = fyne.TextStyle{Bold: true}
			l.SetText(columns[id.Col])
		}
	}
	for i, w := range widths {
		t.SetColumnWidth(i, w)
	}
	return t
}

// IsClosed reports whether ch is closed.
func IsClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
