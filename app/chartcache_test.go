package app

import (
	"image"
	"testing"

	"speedmatrix/charts"
)

// TestPictureCacheKeepsNewestSize: a chart drawn for a new area replaces
// its picture for the old one in the same theme, not in the other theme
// nor another chart's.
func TestPictureCacheKeepsNewestSize(t *testing.T) {
	c := newPictureCache(1 << 30)
	pic := func(w int) image.Image { return image.NewRGBA(image.Rect(0, 0, w, 10)) }
	small, large := charts.Pane{Width: 100, Height: 10, Scale: 1}, charts.Pane{Width: 200, Height: 10, Scale: 1}
	c.put(keyFor("r/heatmap", small, false), pic(100))
	c.put(keyFor("r/heatmap", small, true), pic(100))
	c.put(keyFor("r/prefill", small, false), pic(100))
	c.put(keyFor("r/heatmap", large, false), pic(200))

	if _, ok := c.get(keyFor("r/heatmap", small, false)); ok {
		t.Error("the heatmap's picture for the old area is still kept")
	}
	for _, k := range []pictureKey{keyFor("r/heatmap", large, false), keyFor("r/heatmap", small, true), keyFor("r/prefill", small, false)} {
		if _, ok := c.get(k); !ok {
			t.Errorf("%+v was dropped", k)
		}
	}
	if want := 4 * (200*10 + 100*10 + 100*10); c.used != want {
		t.Errorf("used = %d bytes, want %d", c.used, want)
	}
}
