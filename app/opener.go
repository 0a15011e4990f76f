package app

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// OpenWithDesktop hands link to the desktop's opener (xdg-open, open,
// rundll32) and waits for it in the background: fyne's App.OpenURL starts
// xdg-open and never waits, which left a defunct child per click and lost
// its failure (as root, Chromium refuses to start and xdg-open exits 4).
// exited gets how the opener ended, from another goroutine; with a plain
// browser, xdg-open ends only when the browser does.
func OpenWithDesktop(link *url.URL, exited func(error)) error {
	name, args := DesktopOpener(runtime.GOOS)
	cmd := exec.Command(name, append(args, link.String())...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr // its complaints go where the app's do
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		if err := cmd.Wait(); err != nil {
			exited(fmt.Errorf("%s: %w", name, err))
			return
		}
		exited(nil)
	}()
	return nil
}

// DesktopOpener is the program, and its first arguments, that opens a link
// with the desktop on goos (as fyne's App.OpenURL picks it).
func DesktopOpener(goos string) (string, []string) {
	switch goos {
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler"}
	case "darwin":
		return "open", nil
	}
	return "xdg-open", nil
}

// OpenPath opens the file or folder at path with the desktop: a page in
// the browser, a folder in the file manager. When the desktop can't, now
// or once its opener ends, failed is told why, on the UI goroutine.
func (u *UI) OpenPath(path string, failed func(err error)) {
	link := FileURL(path)
	if u.Deps.OpenURL == nil { // tests that open nothing: fyne's test app takes it
		if err := u.App.OpenURL(link); err != nil {
			failed(err)
		}
		return
	}
	exited := func(err error) {
		if err != nil {
			u.Do(func() { failed(err) })
		}
	}
	if err := u.Deps.OpenURL(link, exited); err != nil {
		failed(err)
	}
}

// CannotOpen says in a dialog that what was to be opened was not, in a
// line that can be selected and copied: it holds the path to open by hand.
func (u *UI) CannotOpen(title, line string) {
	l := widget.NewLabel(line)
	l.Wrapping, l.Selectable = fyne.TextWrapWord, true
	d := dialog.NewCustom(title, "OK", l, u.Win)
	d.Resize(fyne.NewSize(min(600, u.Win.Canvas().Size().Width-40), l.MinSize().Height))
	d.Show()
}

// FileURL is the file:// URL of an absolute path.
func FileURL(path string) *url.URL {
	return &url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
}
