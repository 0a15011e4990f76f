package widget

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app/apptest"
)

// countedLabel counts the refreshes that reach it.
type countedLabel struct {
	widget.Label
	refreshed int
}

func newCountedLabel() *countedLabel {
	l := &countedLabel{}
	l.Text = "screen"
	l.ExtendBaseWidget(l)
	return l
}

func (l *countedLabel) Refresh() { l.refreshed++; l.Label.Refresh() }

// TestTabScreenPassesOnOnlyWhatChangesIt: in Fyne's tabs, every selection
// refreshes every tab's content; through a TabScreen, the content sees the
// first refresh and one after each change of theme, and still shows
// when its tab is selected.
func TestTabScreenPassesOnOnlyWhatChangesIt(t *testing.T) {
	a := apptest.NewTempApp(t)
	shown, hidden := newCountedLabel(), newCountedLabel()
	tabs := container.NewAppTabs(container.NewTabItem("A", NewTabScreen(shown)), container.NewTabItem("B", NewTabScreen(hidden)))
	w := test.NewTempWindow(t, tabs)
	w.Resize(fyne.NewSize(400, 300))
	first := hidden.refreshed
	if first == 0 {
		t.Fatal("the hidden tab's content never saw its first refresh")
	}
	for range 3 {
		tabs.SelectIndex(1)
		tabs.SelectIndex(0)
	}
	if hidden.refreshed != first {
		t.Errorf("6 selections refreshed the other tab's content %d times, want none", hidden.refreshed-first)
	}
	a.Settings().SetTheme(test.NewTheme()) // another theme: other colours and sizes
	tabs.Refresh()
	if hidden.refreshed == first {
		t.Error("a change of theme did not reach the hidden tab's content")
	}
	tabs.SelectIndex(1)
	if !apptest.HasText(tabs.Selected().Content, "screen") || hidden.Size().Width == 0 {
		t.Errorf("the selected tab's content is not laid out: size %v", hidden.Size())
	}
}
