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

// pictureKey names one picture drawn for the screen: what it shows (a
// report's chart, a comparison), the pane's size in device pixels, the
// scale and the theme.
type pictureKey struct {
	source            string // reportKey and kind, or the two reports of a comparison
	widthPx, heightPx int
	scale             float64
	dark              bool
}

// keyFor is the key of source's picture for pane p.
func keyFor(source string, p charts.Pane, dark bool) pictureKey {
	return pictureKey{source: source, widthPx: int(p.Width*p.Scale + 0.5), heightPx: int(p.Height*p.Scale + 0.5), scale: p.Scale, dark: dark}
}

// reportKey identifies a report by its content: the same run opened twice
// from History is one report, and its pictures are drawn once.
func reportKey(rep engine.Report) string {
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

// pictureCacheBytes bounds the pixels the cache keeps: a dozen report
// sheets at 1.5×, or some hundred charts.
const pictureCacheBytes = 256 << 20

// pictureCache keeps the pictures drawn for the screen, the least recently
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
type pictureCache struct {
	max, used int
	order     *list.List // of *pictureEntry, most recently used first
	entries   map[pictureKey]*list.Element
	places    map[string]string // what each place shows: the start of its pictures' sources
}

// The places that show cached pictures (pictureCache.showing).
const (
	placeResults = "results" // the report on the Results screen
	placeCompare = "compare" // History's comparison of two runs
	placeSweep   = "sweep"   // the sweep summary's best heatmap
)

type pictureEntry struct {
	key pictureKey
	img image.Image
}

func newPictureCache(maxBytes int) *pictureCache {
	return &pictureCache{max: maxBytes, order: list.New(), entries: map[pictureKey]*list.Element{}, places: map[string]string{}}
}

// showing says that place now shows the pictures whose sources start with
// prefix ("" for none), and drops those of what it showed before, unless
// another place shows them too.
func (c *pictureCache) showing(place, prefix string) {
	old := c.places[place]
	c.places[place] = prefix
	if old == "" || old == prefix {
		return
	}
	for k, e := range c.entries {
		if strings.HasPrefix(k.source, old) && !c.shown(k.source) {
			c.drop(k, e)
		}
	}
}

// shown reports whether a place shows the pictures of source.
func (c *pictureCache) shown(source string) bool {
	for _, prefix := range c.places {
		if prefix != "" && strings.HasPrefix(source, prefix) {
			return true
		}
	}
	return false
}

func imageBytes(img image.Image) int {
	b := img.Bounds()
	return 4 * b.Dx() * b.Dy()
}

// get returns the picture for k, if kept.
func (c *pictureCache) get(k pictureKey) (image.Image, bool) {
	e, ok := c.entries[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*pictureEntry).img, true
}

// put keeps img as the picture for k, while a place shows its source: a
// picture of a view that was replaced as it drew is not kept.
func (c *pictureCache) put(k pictureKey, img image.Image) {
	if !c.shown(k.source) {
		return
	}
	for old, e := range c.entries {
		if old.source == k.source && old.dark == k.dark {
			c.drop(old, e)
		}
	}
	c.entries[k] = c.order.PushFront(&pictureEntry{key: k, img: img})
	c.used += imageBytes(img)
	for c.used > c.max && c.order.Len() > 1 {
		last := c.order.Back()
		c.drop(last.Value.(*pictureEntry).key, last)
	}
}

func (c *pictureCache) drop(k pictureKey, e *list.Element) {
	c.used -= imageBytes(e.Value.(*pictureEntry).img)
	c.order.Remove(e)
	delete(c.entries, k)
}
