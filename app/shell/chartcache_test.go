package shell

import (
	"image"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
)

// TestPictureCacheKeepsNewestSize: a chart drawn for a new area replaces
// its picture for the old one in the same theme, not in the other theme
// nor another chart's.
func TestPictureCacheKeepsNewestSize(t *testing.T) {
	c := app.NewPictureCache(1 << 30)
	c.Showing(app.PlaceResults, "r/")
	pic := func(w int) image.Image { return image.NewRGBA(image.Rect(0, 0, w, 10)) }
	small, large := charts.Pane{Width: 100, Height: 10, Scale: 1}, charts.Pane{Width: 200, Height: 10, Scale: 1}
	c.Put(app.KeyFor("r/heatmap", small, false), pic(100))
	c.Put(app.KeyFor("r/heatmap", small, true), pic(100))
	c.Put(app.KeyFor("r/prefill", small, false), pic(100))
	c.Put(app.KeyFor("r/heatmap", large, false), pic(200))

	if _, ok := c.Get(app.KeyFor("r/heatmap", small, false)); ok {
		t.Error("the heatmap's picture for the old area is still kept")
	}
	for _, k := range []app.PictureKey{app.KeyFor("r/heatmap", large, false), app.KeyFor("r/heatmap", small, true), app.KeyFor("r/prefill", small, false)} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%+v was dropped", k)
		}
	}
	if want := 4 * (200*10 + 100*10 + 100*10); c.Used != want {
		t.Errorf("used = %d bytes, want %d", c.Used, want)
	}
}

// TestPictureCacheKeepsWhatIsShown: a place that moves on to another report
// lets the last one's pictures go, unless another place shows them; a
// picture of what no place shows (a view replaced while it drew) is not
// kept.
func TestPictureCacheKeepsWhatIsShown(t *testing.T) {
	c := app.NewPictureCache(1 << 30)
	pic := image.NewRGBA(image.Rect(0, 0, 100, 10))
	pane := charts.Pane{Width: 100, Height: 10, Scale: 1}
	c.Showing(app.PlaceResults, "a/")
	c.Showing(app.PlaceSweep, "s/")
	c.Put(app.KeyFor("a/heatmap", pane, false), pic)
	c.Put(app.KeyFor("a/prefill", pane, true), pic)
	c.Put(app.KeyFor("s/best", pane, false), pic)
	c.Put(app.KeyFor("b/heatmap", pane, false), pic) // no place shows b yet
	if len(c.Entries) != 3 {
		t.Fatalf("%d pictures kept, want 3", len(c.Entries))
	}
	c.Showing(app.PlaceResults, "a/") // the same report drawn again (a theme, a heatmap mode)
	c.Showing(app.PlaceCompare, "a/")
	c.Showing(app.PlaceResults, "b/")
	if len(c.Entries) != 3 {
		t.Errorf("%d pictures kept, want a's two (History's comparison shows them) and the sweep's", len(c.Entries))
	}
	c.Showing(app.PlaceCompare, "")
	for k := range c.Entries {
		if k.Source != "s/best" {
			t.Errorf("%s is kept after every place moved on from it", k.Source)
		}
	}
	if c.Used != app.ImageBytes(pic) || c.Order.Len() != 1 {
		t.Errorf("used %d bytes in %d pictures, want the sweep's %d", c.Used, c.Order.Len(), app.ImageBytes(pic))
	}
}

// TestResultsLetsTheLastReportsPicturesGo: once Results shows the next run,
// no picture of the last one is held by the app, neither in the picture
// cache nor in a chart view of the Results screen's hidden tabs; every run
// used to add its pictures (15–25 MB at 1280×800) to what the app kept.
func TestResultsLetsTheLastReportsPicturesGo(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.Show(app.TabResults)
	held := func(rep engine.Report) (cached, viewed int) {
		key := app.ReportKey(rep) + "/"
		for k := range u.Pictures.Entries {
			if strings.HasPrefix(k.Source, key) {
				cached++
			}
		}
		for _, tabs := range []*container.AppTabs{u.results.Views, u.results.Load.Views} {
			for _, item := range tabs.Items {
				apptest.Walk(item.Content, func(o fyne.CanvasObject) bool {
					if c, ok := o.(*fyne.Container); ok {
						if v, ok := c.Layout.(*appwidget.ChartView); ok && strings.HasPrefix(v.Source, key) && v.Img.Image != nil {
							viewed++
						}
					}
					return false
				})
			}
		}
		return cached, viewed
	}
	quick, load, quick2 := cannedReport("quick", 195.7), cannedLoadReport("load", 1, 2), cannedReport("quick2", 200)
	var lastViews []*appwidget.ChartView // Fyne may hold them a while after they left the screen
	for i, rep := range []engine.Report{quick, load, quick2} {
		u.results.Show(rep, "")
		waitFor(t, u.results.Rendered, "the run's charts")
		if cached, viewed := held(rep); cached == 0 || viewed == 0 {
			t.Fatalf("run %d: %d of its pictures kept, %d shown", i+1, cached, viewed)
		}
		if i > 0 {
			last := []engine.Report{quick, load}[i-1]
			if cached, viewed := held(last); cached+viewed != 0 {
				t.Errorf("run %d shown: the run before it still has %d pictures in the cache and %d in chart views", i+1, cached, viewed)
			}
			for _, v := range lastViews {
				if v.Img.Image != nil {
					t.Errorf("run %d shown: a view of the run before it still holds its picture %s", i+1, v.Source)
				}
			}
		}
		lastViews = u.results.Group.Views
	}
}
