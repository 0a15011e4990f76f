package charts

import (
	"image/color"
	"math"
)

// Theme selects the colours of a drawing.
type Theme string

// The two themes.
const (
	Light Theme = "light"
	Dark  Theme = "dark"
)

// palette is a theme's colours by role.
type palette struct {
	bg, panel, code, text, muted, faint, grid, axis, border, zebra color.NRGBA
	primary, secondary, primaryText, secondaryText                 color.NRGBA
	rampLo, rampHi                                                 float64 // part of the colour map used for series
	over, overText                                                 color.NRGBA
	looped, loopedHatch, loopedText                                color.NRGBA
	failed, failedHatch, failedText                                color.NRGBA
	pendingText                                                    color.NRGBA
	measured, measuredText, simulated, simulatedText               color.NRGBA
}

func hex(v uint32) color.NRGBA {
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

func paletteFor(t Theme) palette {
	if t == Dark {
		return palette{
			bg: hex(0x0d1117), panel: hex(0x161b22), code: hex(0x11161d), text: hex(0xe6edf3),
			muted: hex(0x9198a1), faint: hex(0x6e7681), grid: hex(0x262c36), axis: hex(0x3d444d),
			border: hex(0x30363d), zebra: hex(0x12171e),
			primary: hex(0x58a6ff), secondary: hex(0xf0883e), primaryText: hex(0x79c0ff), secondaryText: hex(0xffa657),
			rampLo: 0.30, rampHi: 1.0,
			over: hex(0x21262d), overText: hex(0x8b949e),
			looped: hex(0x272115), loopedHatch: hex(0x6e4b0a), loopedText: hex(0xe3b341),
			failed: hex(0x2a1618), failedHatch: hex(0x8e1519), failedText: hex(0xff7b72),
			pendingText: hex(0x6e7681),
			measured:    hex(0x12301c), measuredText: hex(0x56d364), simulated: hex(0x3b2300), simulatedText: hex(0xf2cc60),
		}
	}
	return palette{
		bg: hex(0xffffff), panel: hex(0xf6f8fa), code: hex(0xf3f4f6), text: hex(0x1f2328),
		muted: hex(0x59636e), faint: hex(0x8c959f), grid: hex(0xe8ebef), axis: hex(0xc5ccd3),
		border: hex(0xd1d9e0), zebra: hex(0xf8f9fb),
		primary: hex(0x1f6feb), secondary: hex(0xe16f24), primaryText: hex(0x0b4fb5), secondaryText: hex(0xa8490f),
		rampLo: 0.0, rampHi: 0.82,
		over: hex(0xeceff2), overText: hex(0x6e7781),
		looped: hex(0xfff6e6), loopedHatch: hex(0xf2c27a), loopedText: hex(0x8a4b00),
		failed: hex(0xfdeeee), failedHatch: hex(0xf1a19c), failedText: hex(0xb42318),
		pendingText: hex(0x8c959f),
		measured:    hex(0xdafbe1), measuredText: hex(0x116329), simulated: hex(0xfff1c2), simulatedText: hex(0x7a4a00),
	}
}

// viridisStops is the viridis colour map (van der Walt & Smith, matplotlib)
// sampled at eleven even steps; colours between are interpolated.
var viridisStops = []color.NRGBA{
	hex(0x440154), hex(0x482475), hex(0x414487), hex(0x355f8d), hex(0x2a788e), hex(0x21918c),
	hex(0x22a884), hex(0x44bf70), hex(0x7ad151), hex(0xbddf26), hex(0xfde725),
}

// Viridis is the sequential colour map at pos (0–1, clamped), as the
// exported heatmaps and the app's live one colour a cell.
func Viridis(pos float64) color.NRGBA { return colorAt(viridisStops, pos) }

// divergingStops is ColorBrewer's RdBu: red for slower, blue for faster.
var divergingStops = []color.NRGBA{
	hex(0x67001f), hex(0xb2182b), hex(0xd6604d), hex(0xf4a582), hex(0xfddbc7), hex(0xf7f7f7),
	hex(0xd1e5f0), hex(0x92c5de), hex(0x4393c3), hex(0x2166ac), hex(0x053061),
}

// colorAt interpolates the stops at position f (0–1).
func colorAt(stops []color.NRGBA, f float64) color.NRGBA {
	f = math.Max(0, math.Min(1, f))
	x := f * float64(len(stops)-1)
	i := int(math.Floor(x))
	if i >= len(stops)-1 {
		return stops[len(stops)-1]
	}
	t := x - float64(i)
	a, b := stops[i], stops[i+1]
	mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + (float64(q)-float64(p))*t)) }
	return color.NRGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 255}
}

// luminance is the relative luminance of c (WCAG), 0–1.
func luminance(c color.NRGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// TextOn is a text colour readable on fill: near-black or white.
func TextOn(fill color.NRGBA) color.NRGBA {
	if luminance(fill) > 0.36 {
		return hex(0x111418)
	}
	return hex(0xffffff)
}

// withAlpha returns c with alpha a (0–1).
func withAlpha(c color.NRGBA, a float64) color.NRGBA {
	c.A = uint8(math.Round(255 * a))
	return c
}

func toNRGBA(c color.Color) color.NRGBA { return color.NRGBAModel.Convert(c).(color.NRGBA) }
