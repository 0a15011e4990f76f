package widget

import (
	"speedmatrix/app"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Banner is the one error style of the app: a red box with white text. It
// is hidden until show.
type Banner struct {
	Box             *fyne.Container
	message, action *widget.RichText
	detail          *widget.Label
	detailBox       fyne.CanvasObject // the detail on its panel, hidden until Details
	toggle, button  *widget.Button
	detailShown     bool
	onPress         func()
	Current         app.Notice
}

// NewBanner makes a hidden banner.
func NewBanner() *Banner {
	b := &Banner{}
	b.message = widget.NewRichText(&widget.TextSegment{Style: bannerStyle(true)})
	b.action = widget.NewRichText(&widget.TextSegment{Style: bannerStyle(false)})
	b.message.Wrapping, b.action.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	b.detail = widget.NewLabel("")
	b.detail.Wrapping = fyne.TextWrapBreak
	b.detail.TextStyle = fyne.TextStyle{Monospace: true}
	b.toggle = widget.NewButton("Details", b.OnToggle)
	b.toggle.Importance = widget.LowImportance
	b.button = widget.NewButton("", func() {
		if b.onPress != nil {
			b.onPress()
		}
	})
	icon := widget.NewIcon(theme.NewColoredResource(theme.ErrorIcon(), theme.ColorNameForeground))
	// The buttons beside the text, not under it, and the detail in a
	// panel of a few lines that scrolls: a banner takes little of a
	// screen's height, whatever it says.
	buttons := container.NewCenter(container.NewHBox(b.button, b.toggle))
	b.detailBox = Panel(container.New(&cappedHeight{max: bannerDetailHeight, of: b.detail}, container.NewVScroll(b.detail)))
	b.detailBox.Hide()
	text := container.NewVBox(b.message, b.action)
	bg := newThemedRect(theme.ColorNameError)
	row := container.NewBorder(nil, nil, container.NewVBox(icon), buttons, text)
	b.Box = container.NewStack(bg, container.NewPadded(container.NewBorder(nil, b.detailBox, nil, nil, row)))
	b.Box.Hide()
	return b
}

// bannerDetailHeight is the most a banner's detail takes before it
// scrolls: about four lines.
const bannerDetailHeight = 96

// cappedHeight lays its objects over its whole size, and asks for the
// height of of (at that width), up to max.
type cappedHeight struct {
	max float32
	of  fyne.CanvasObject
}

// Layout gives every object the whole size, and of its width.
func (c *cappedHeight) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Resize(size)
	}
	c.of.Resize(fyne.NewSize(size.Width, c.of.MinSize().Height))
}

// MinSize is as tall as of, up to max; as narrow as the objects allow.
func (c *cappedHeight) MinSize(objects []fyne.CanvasObject) fyne.Size {
	w := float32(0)
	for _, o := range objects {
		w = max(w, o.MinSize().Width)
	}
	return fyne.NewSize(w, min(c.of.MinSize().Height, c.max))
}

// bannerStyle is white text on the banner: bold for the message.
func bannerStyle(bold bool) widget.RichTextStyle {
	s := widget.RichTextStyleParagraph
	s.ColorName = theme.ColorNameForegroundOnError
	s.TextStyle = fyne.TextStyle{Bold: bold}
	return s
}

// Object is the banner's widget tree.
func (b *Banner) Object() fyne.CanvasObject { return b.Box }

// Show replaces what the banner says and shows it.
func (b *Banner) Show(n app.Notice) {
	b.Current = n
	setSegment(b.message, n.Message)
	setSegment(b.action, n.Action)
	b.onPress = n.OnPress
	b.button.SetText(n.Button)
	if n.Button == "" || n.OnPress == nil {
		b.button.Hide()
	} else {
		b.button.Show()
	}
	b.detail.SetText(n.Detail)
	b.detailShown = false
	b.detailBox.Hide()
	b.toggle.SetText("Details")
	if n.Detail == "" {
		b.toggle.Hide()
	} else {
		b.toggle.Show()
	}
	b.Box.Show()
	b.Box.Refresh()
}

// Hide clears the banner.
func (b *Banner) Hide() {
	b.Current = app.Notice{}
	b.Box.Hide()
}

// OnToggle shows the technical detail, or hides it again.
func (b *Banner) OnToggle() {
	b.detailShown = !b.detailShown
	if b.detailShown {
		b.detailBox.Show()
		b.toggle.SetText("Hide details")
	} else {
		b.detailBox.Hide()
		b.toggle.SetText("Details")
	}
	b.Box.Refresh()
}

func setSegment(r *widget.RichText, text string) {
	seg := r.Segments[0].(*widget.TextSegment)
	seg.Text = text
	if text == "" {
		r.Hide()
	} else {
		r.Show()
	}
	r.Refresh()
}

// Visible reports whether the banner shows a problem.
func (b *Banner) Visible() bool { return b.Box.Visible() }
