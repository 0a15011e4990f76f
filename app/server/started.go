package server

import (
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/capture"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/servers"
)

// startedCard is the Server screen's "Started as" card: how the endpoint's
// server was started, read from its process (engine/capture) at Detect and
// again at the start of every run, which records it in its report's Launch
// command, or why that could not be read. It says when it was read: a
// server restarted since is another process. UI goroutine only.
type startedCard struct {
	Card    *widget.Card
	Command *widget.Label // the command line, monospaced
	Env     *fyne.Container
	Note    *widget.Label // the container, what could not be read
}

func newStartedCard() *startedCard {
	c := &startedCard{Command: widget.NewLabel(""), Env: container.NewStack(), Note: widget.NewLabel("")}
	c.Command.TextStyle = fyne.TextStyle{Monospace: true}
	c.Command.Wrapping = fyne.TextWrapBreak
	c.Note.Wrapping = fyne.TextWrapWord
	c.Card = widget.NewCard("Started as", "", container.NewVBox(c.Command, c.Env, c.Note))
	c.Card.Hide()
	return c
}

// Object is the card to place on the screen.
func (c *startedCard) Object() fyne.CanvasObject { return c.Card }

// Show describes p, read at; home is written $HOME in the command, as in
// reports.
func (c *startedCard) Show(p engine.ServerProcess, at time.Time, home string) {
	c.Card.Show()
	read := " · read " + at.Format("15:04:05")
	if len(p.Command) == 0 {
		c.Card.SetSubTitle("not read from its process" + read)
		c.Command.Hide()
		c.Env.Hide()
		c.Note.SetText("How this server was started could not be read: " + strings.TrimSuffix(p.NotCaptured, ".") +
			". Reports of runs against it say so in their Launch command.")
		c.Note.Show()
		return
	}
	c.Card.SetSubTitle(capture.StartedLine(p) + read)
	c.Command.SetText(launch.CommandLine(nil, p.Command, home))
	c.Command.Show()
	c.Env.Objects = []fyne.CanvasObject{envFacts(p.Env)}
	c.Env.Show()
	c.Env.Refresh()
	var notes []string
	if p.Container != nil {
		notes = append(notes, appwidget.Sentence(capture.ContainerLine(*p.Container)))
	}
	for _, n := range p.Notes {
		notes = append(notes, appwidget.Sentence(n))
	}
	c.Note.SetText(strings.Join(notes, " "))
	c.Note.Hidden = len(notes) == 0
	c.Note.Refresh()
}

// Hide forgets what was shown: another address is another server.
func (c *startedCard) Hide() { c.Card.Hide() }

// envFacts lists the server's variables of servers.EnvPrefixes, sorted.
func envFacts(env map[string]string) fyne.CanvasObject {
	if len(env) == 0 {
		return widget.NewLabel("Environment: none of " + strings.Join(servers.EnvPrefixes, "*, ") + "* set.")
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rows := make([][2]string, len(keys))
	for i, k := range keys {
		rows[i] = [2]string{k, env[k]}
	}
	return appwidget.KeyValues(rows...)
}
