package shell

import (
	"testing"

	"speedmatrix/app"
	"speedmatrix/app/apptest"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestQuestionIsWordsOnly: a question shows its title, its message and a
// button per answer in words: no big "?" icon, no ✕ on an answer that is
// not a cancel, the main answer rightmost and highlighted, a Cancel that
// picks nothing else.
func TestQuestionIsWordsOnly(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	picked := -1
	u.Choose("Replace the earlier export?", "/tmp/x already holds an export of this run.",
		[]string{"Replace", "New folder", "Cancel"}, func(i int) { picked = i })
	top := u.Win.Canvas().Overlays().Top()
	if top == nil || !apptest.HasText(top, "already holds an export") {
		t.Fatal("no dialog with the message")
	}
	var buttons []*widget.Button
	apptest.Walk(top, func(o fyne.CanvasObject) bool {
		switch w := o.(type) {
		case *widget.Button:
			buttons = append(buttons, w)
		case *canvas.Image:
			if w.Resource != nil || w.Image != nil {
				t.Errorf("the dialog shows an icon (%v)", w.Resource)
			}
		}
		return false
	})
	var labels []string
	for _, b := range buttons {
		labels = append(labels, b.Text)
		if b.Icon != nil {
			t.Errorf("button %q has an icon", b.Text)
		}
	}
	if len(labels) != 3 || labels[0] != "Cancel" || labels[1] != "New folder" || labels[2] != "Replace" {
		t.Fatalf("buttons %q, want Cancel, New folder, Replace", labels)
	}
	if buttons[2].Importance != widget.HighImportance {
		t.Error("the main answer is not highlighted")
	}
	test.Tap(buttons[0])
	if picked != 2 || u.Win.Canvas().Overlays().Top() != nil {
		t.Errorf("Cancel picked %d, dialog open %v", picked, u.Win.Canvas().Overlays().Top() != nil)
	}
}
