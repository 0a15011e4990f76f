package shell

import (
	"image"
	"image/color"
	"slices"
	"testing"

	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// TestVisibleTexts: the tour's texts are what a user sees: hidden objects
// and unselected tabs are left out.
func TestVisibleTexts(t *testing.T) {
	hidden := widget.NewLabel("hidden")
	hidden.Hide()
	tabs := container.NewAppTabs(
		container.NewTabItem("One", widget.NewLabel("first tab")),
		container.NewTabItem("Two", widget.NewLabel("second tab")),
	)
	card := widget.NewCard("Title", "sub", widget.NewButton("Press", nil))
	got := visibleTexts(container.NewVBox(widget.NewLabel("shown"), hidden, tabs, container.NewHSplit(card, widget.NewCheck("Tick", nil))))
	want := []string{"shown", "One", "Two", "first tab", "Title", "sub", "Press", "Tick"}
	if !slices.Equal(got, want) {
		t.Errorf("visibleTexts = %q, want %q", got, want)
	}
}

// TestDistinctColorsFindsBlankPictures: a flat picture is blank, one with
// a gradient is not.
func TestDistinctColorsFindsBlankPictures(t *testing.T) {
	flat := image.NewNRGBA(image.Rect(0, 0, 60, 60))
	if n := distinctColors(flat, 16); n != 1 {
		t.Errorf("a flat picture has %d colours", n)
	}
	grad := image.NewNRGBA(image.Rect(0, 0, 60, 60))
	for x := range 60 {
		for y := range 60 {
			grad.Set(x, y, color.NRGBA{R: uint8(x * 4), G: uint8(y * 4), A: 255})
		}
	}
	if n := distinctColors(grad, 16); n != 16 {
		t.Errorf("a gradient counts %d colours, want the limit 16", n)
	}
}
