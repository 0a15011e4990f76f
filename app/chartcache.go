package app

import (
	"container/list"
	"fmt"
	"hash/fnv"
	"image"
	"strings"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// PictureKey names one picture drawn for the screen: what it shows (a
// report's chart, a comparison), the pane's size in device pixels, the
// scale and the theme.
type PictureKey struct {
	Source            string // reportKey and kind, or the two reports of a comparison
	widthPx, heightPx int
	Scale             float64
	Dark              bool
}

// KeyFor is the key of source's picture for pane p.
func KeyFor(source string, p charts.Pane, dark bool) PictureKey {
	return PictureKey{Source: source, widthPx: int(p.Width*p.Scale + 0.5), heightPx: int(p.Height*p.Scale + 0.5), Scale: p.Scale, Dark: dark}
}

// ReportKey identifies a report by its content: the same run opened twice
// from History is one report, and its pictures are drawn once.
func ReportKey(rep engine.Report) string {
	b, err := report.JSON(rep)
	if err != nil {
		// Not serialisable: it cannot come from History either; key it by
		// what it holds.
		b = fmt.Appendf(nil, "%+v", rep)
	}
	h := fnv.New64a()
	h.Write(b)
	return fmt.Sprintf("%016x", h.Sum64())
}

// PictureCacheBytes bounds the pixels the cache keeps: a dozen report
// sheets at 1.5×, or some hundred charts.
const PictureCacheBytes = 256 << 20

// PictureCache keeps the pictures drawn for the screen, the least recently
// used dropped first once they hold more than max bytes: switching back
// to a screen, a tab or a theme shows its picture at once. It keeps one
// size of each picture in each theme, the newest: the sizes a chart had
// while the window was laid out or resized are not shown again (at the
// end of a Standard run they were 9 MB of the 30 MB Results drew).
//
// It keeps only the pictures of what a place on screen shows (showing):
// Results' report, History's comparison, a sweep's summary. When a place
// moves on to another report, the last one's pictures go: kept, every run
// added its 15–25 MB of pictures to the app's memory until the bound.
// UI goroutine only.
type PictureCache struct {
	max, Used int
	Order     *list.List // of *pictureEntry, most recently used first
	Entries   map[PictureKey]*list.Element
	places    map[string]string // what each place shows: the start of its pictures' sources
}

// The places that show cached pictures (pictureCache.showing).
const (
	PlaceResults = "results" // the report on the Results screen
	PlaceCompare = "compare" // History's comparison of two runs
	PlaceSweep   = "sweep"   // the sweep summary's best heatmap and Pareto chart
)

type pictureEntry struct {
	key PictureKey
	img image.Image
}

// NewPictureCache is an empty cache that keeps at most maxBytes of pictures.
func NewPictureCache(maxBytes int) *PictureCache {
	return &PictureCache{max: maxBytes, Order: list.New(), Entries: map[PictureKey]*list.Element{}, places: map[string]string{}}
}

// Showing says that place now shows the pictures whose sources start with
// prefix ("" for none), and drops those of what it showed before, unless
// another place shows them too.
func (c *PictureCache) Showing(place, prefix string) {
	old := c.places[place]
	c.places[place] = prefix
	if old == "" || old == prefix {
		return
	}
	for k, e := range c.Entries {
		if strings.HasPrefix(k.Source, old) && !c.shown(k.Source) {
			c.drop(k, e)
		}
	}
}

// shown reports whether a place shows the pictures of source.
func (c *PictureCache) shown(source string) bool {
	for _, prefix := range c.places {
		if prefix != "" && strings.HasPrefix(source, prefix) {
			return true
		}
	}
	return false
}

// ImageBytes is the memory img holds, 4 bytes a pixel.
func ImageBytes(img image.Image) int {
	b := img.Bounds()
	return 4 * b.Dx() * b.Dy()
}

// Get returns the picture for k, if kept.
func (c *PictureCache) Get(k PictureKey) (image.Image, bool) {
	e, ok := c.Entries[k]
	if !ok {
		return nil, false
	}
	c.Order.MoveToFront(e)
	return e.Value.(*pictureEntry).img, true
}

// Put keeps img as the picture for k, while a place shows its source: a
// picture of a view that was replaced as it drew is not kept.
func (c *PictureCache) Put(k PictureKey, img image.Image) {
	if !c.shown(k.Source) {
		return
	}
	for old, e := range c.Entries {
		if old.Source == k.Source && old.Dark == k.Dark {
			c.drop(old, e)
		}
	}
	c.Entries[k] = c.Order.PushFront(&pictureEntry{key: k, img: img})
	c.Used += ImageBytes(img)
	for c.Used > c.max && c.Order.Len() > 1 {
		last := c.Order.Back()
		c.drop(last.Value.(*pictureEntry).key, last)
	}
}

func (c *PictureCache) drop(k PictureKey, e *list.Element) {
	c.Used -= ImageBytes(e.Value.(*pictureEntry).img)
	c.Order.Remove(e)
	delete(c.Entries, k)
}
